// The RKNN perf-log parser on real published logs (tests/data/rknn-logs, sources in its README), on variants of
// them (CRLF, log prefixes, box drawing) and on cut or damaged copies.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <random>
#include <regex>

#include "npuwb/VendorPerfLog.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"

using namespace npuwb;

namespace {
const std::string kLogs = std::string(NPUWB_SOURCE_DIR) + "/tests/data/rknn-logs/";
const std::string kYolo = kLogs + "rk3588-yolov8n-1920x1088-perf-detail.txt";
const std::string kBoardTest = kLogs + "toolkit2-1.5.1-board-test-readme.txt";
const std::string kToolkit1 = kLogs + "toolkit1-rv1126-mobilenetv1-issue388-excerpt.txt";

std::string errorOf(const std::string& text, const std::string& source = "bad.txt") {
    try {
        parseRknnPerfLog(text, source);
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
        return e.what();
    }
    return "";
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream ss(text);
    for (std::string l; std::getline(ss, l);) out.push_back(l);
    return out;
}

std::string join(const std::vector<std::string>& ls, const std::string& eol = "\n") {
    std::string out;
    for (const auto& l : ls) out += l + eol;
    return out;
}
}  // namespace

TEST(VendorPerfLog, Rk3588Yolov8PerfDetailRowsAndTotals) {
    VendorPerfLog log = loadRknnPerfLog(kYolo);
    EXPECT_EQ(log.format, "rknn2");
    ASSERT_EQ(log.layers.size(), 108u);
    ASSERT_TRUE(log.totalUs.has_value());
    EXPECT_DOUBLE_EQ(*log.totalUs, 96186);
    EXPECT_DOUBLE_EQ(log.layerTimeSumUs(), *log.totalUs);  // every row is in this log
    ASSERT_TRUE(log.totalRwKB.has_value());
    double rwKB = 0;
    for (const auto& l : log.layers) rwKB += l.rwKB();
    EXPECT_NEAR(rwKB, *log.totalRwKB, 0.001 * *log.totalRwKB);  // per-row RW(KB) is rounded by the vendor
    EXPECT_TRUE(log.warnings.empty());

    const LayerRow& conv = log.layers[1];
    EXPECT_EQ(conv.id, 2);
    EXPECT_EQ(conv.opType, "ConvExSwish");
    EXPECT_EQ(conv.dataType, "uint8");
    EXPECT_EQ(conv.target, "NPU");
    EXPECT_EQ(conv.inputShapes, (std::vector<std::vector<int64_t>>{{1, 3, 1920, 1088}, {16, 3, 3, 3}, {16}}));
    EXPECT_EQ(conv.outputShapes, (std::vector<std::vector<int64_t>>{{1, 16, 960, 544}}));
    EXPECT_EQ(conv.cyclesDdr, 1222645);
    EXPECT_EQ(conv.cyclesNpu, 4700160);
    EXPECT_EQ(conv.cyclesTotal, 4700160);
    EXPECT_DOUBLE_EQ(conv.timeUs, 9524);
    ASSERT_TRUE(conv.macUsagePercent.has_value());
    EXPECT_DOUBLE_EQ(*conv.macUsagePercent, 0.77);
    EXPECT_DOUBLE_EQ(conv.rwKB(), 6122);
    EXPECT_EQ(conv.fullName, "Conv:/model.0/conv/Conv");

    const LayerRow& split = log.layers[4];  // "(1,16,480,272),..." : the vendor's cut list
    EXPECT_EQ(split.opType, "Split");
    EXPECT_EQ(split.outputShapes, (std::vector<std::vector<int64_t>>{{1, 16, 480, 272}}));
    EXPECT_FALSE(split.macUsagePercent.has_value());  // "\"

    EXPECT_EQ(log.layers[42].fullName, "MaxPool:/model.9/m_1/MaxPool");
    EXPECT_DOUBLE_EQ(log.layers[42].timeUs, 5125);
    const LayerRow& out = log.layers[70];
    EXPECT_EQ(out.opType, "OutputOperator");
    EXPECT_EQ(out.target, "CPU");
    EXPECT_TRUE(out.outputShapes.empty());
    EXPECT_EQ(log.layers.back().id, 108);

    for (const auto& l : log.layers)  // published samples: Total = max(DDR, NPU)
        EXPECT_EQ(*l.cyclesTotal, std::max(*l.cyclesDdr, *l.cyclesNpu)) << l.fullName;
}

TEST(VendorPerfLog, RankingTableAgreesWithTheRows) {
    VendorPerfLog log = loadRknnPerfLog(kYolo);
    ASSERT_EQ(log.ranking.size(), 11u);
    EXPECT_EQ(log.ranking[0].opType, "ConvExSwish");
    EXPECT_EQ(log.ranking[0].calls, 57);
    EXPECT_DOUBLE_EQ(log.ranking[0].ratioPercent, 72.02);
    std::map<std::string, std::pair<int64_t, double>> fromRows;
    for (const auto& l : log.layers) {
        fromRows[l.opType].first++;
        fromRows[l.opType].second += l.timeUs;
    }
    double rankingSum = 0;
    for (const auto& r : log.ranking) {
        EXPECT_EQ(fromRows[r.opType].first, r.calls) << r.opType;
        EXPECT_DOUBLE_EQ(fromRows[r.opType].second, r.totalUs) << r.opType;
        EXPECT_DOUBLE_EQ(r.cpuUs + r.gpuUs + r.npuUs, r.totalUs) << r.opType;
        rankingSum += r.totalUs;
    }
    EXPECT_DOUBLE_EQ(rankingSum, *log.totalUs);
}

TEST(VendorPerfLog, Toolkit2Version15SplitCycleColumnsWithElidedRows) {
    VendorPerfLog log = loadRknnPerfLog(kBoardTest);
    EXPECT_EQ(log.format, "rknn2-split-cycles");
    ASSERT_EQ(log.layers.size(), 2u);
    EXPECT_DOUBLE_EQ(*log.totalUs, 20274);
    const LayerRow& in = log.layers[0];
    EXPECT_EQ(in.opType, "InputOperator");
    EXPECT_EQ(in.target, "CPU");
    EXPECT_DOUBLE_EQ(in.timeUs, 21);
    EXPECT_DOUBLE_EQ(in.rwKB(), 147.0);
    const LayerRow& conv = log.layers[1];
    EXPECT_EQ(conv.opType, "ConvRelu");
    EXPECT_EQ(conv.cyclesDdr, 94150);
    EXPECT_EQ(conv.cyclesNpu, 10584);
    EXPECT_EQ(conv.cyclesTotal, 94150);
    EXPECT_DOUBLE_EQ(conv.timeUs, 375);
    EXPECT_DOUBLE_EQ(*conv.macUsagePercent, 2.82);
    EXPECT_DOUBLE_EQ(conv.rwKB(), 543.75);
    EXPECT_EQ(conv.fullName, "Conv:conv1");
    // The README leaves rows out ("..."): said in a warning naming the line; the ranking still sums to the total.
    ASSERT_EQ(log.warnings.size(), 1u);
    EXPECT_NE(log.warnings[0].find(":10: rows were left out"), std::string::npos) << log.warnings[0];
    ASSERT_EQ(log.ranking.size(), 7u);
    double sum = 0;
    for (const auto& r : log.ranking) sum += r.totalUs;
    EXPECT_DOUBLE_EQ(sum, 20274);
    EXPECT_EQ(log.ranking[3].opType, "exSoftmax13");
    EXPECT_DOUBLE_EQ(log.ranking[3].cpuUs, 387);
}

TEST(VendorPerfLog, Toolkit1WrappedNamesAndNoTotal) {
    VendorPerfLog log = loadRknnPerfLog(kToolkit1);
    EXPECT_EQ(log.format, "rknn-toolkit1");
    ASSERT_EQ(log.layers.size(), 5u);
    EXPECT_EQ(log.layers[0].id, 0);
    EXPECT_EQ(log.layers[1].id, 2);  // toolkit1 skips IDs
    EXPECT_EQ(log.layers[0].fullName, "MobilenetV1/MobilenetV1/Conv2d_0/Relu6_1_RKNN_mark_perm_60_0");
    EXPECT_EQ(log.layers[2].fullName, "MobilenetV1/MobilenetV1/Conv2d_1_depthwise/Relu6_3_2");
    EXPECT_EQ(log.layers[2].opType, "DEPTH_WISE_CONV");
    EXPECT_EQ(log.layers[4].fullName, "MobilenetV1/MobilenetV1/Conv2d_2_depthwi");  // the excerpt ends here
    EXPECT_EQ(log.layers[0].target, "NPU");
    EXPECT_DOUBLE_EQ(log.layerTimeSumUs(), 361 + 920 + 896 + 1106 + 430);
    EXPECT_FALSE(log.totalUs.has_value());
    ASSERT_FALSE(log.warnings.empty());
    EXPECT_NE(log.warnings.back().find("no 'Total"), std::string::npos);
    Report r = reportFromRknnPerfLog(log, kToolkit1);
    EXPECT_DOUBLE_EQ(r.run.medianUs, 3713);  // the layer sum stands in for the missing total
}

TEST(VendorPerfLog, CrlfLogPrefixesAndBoxDrawingParseTheSame) {
    const std::string text = readFile(kYolo);
    const VendorPerfLog plain = parseRknnPerfLog(text, "plain");
    std::vector<std::string> prefixed, boxed;
    for (const auto& l : lines(text)) {
        prefixed.push_back("D RKNN: [04:33:42.488] " + l);
        std::string b = std::regex_replace(l, std::regex("^-+$"), "\xE2\x94\x9C\xE2\x94\x80\xE2\x94\x80\xE2\x94\xA4");
        boxed.push_back("\xE2\x94\x82 " + b + " \xE2\x94\x82");
    }
    for (const std::string& variant : {join(lines(text), "\r\n"), join(prefixed, "\r\n"), join(boxed)}) {
        VendorPerfLog v = parseRknnPerfLog(variant, "variant");
        ASSERT_EQ(v.layers.size(), plain.layers.size());
        EXPECT_EQ(v.totalUs, plain.totalUs);
        EXPECT_EQ(v.ranking.size(), plain.ranking.size());
        for (size_t i = 0; i < v.layers.size(); ++i) {
            EXPECT_EQ(v.layers[i].fullName, plain.layers[i].fullName);
            EXPECT_EQ(v.layers[i].timeUs, plain.layers[i].timeUs);
            EXPECT_EQ(v.layers[i].cyclesTotal, plain.layers[i].cyclesTotal);
            EXPECT_EQ(v.layers[i].bytesRead, plain.layers[i].bytesRead);
        }
    }
}

TEST(VendorPerfLog, TruncatedRowNamesFileAndLine) {
    auto ls = lines(readFile(kYolo));
    ASSERT_EQ(ls[54].substr(0, 2), "50");  // line 55 holds ID 50
    ls[54] = ls[54].substr(0, 60);         // cut inside the row, as a log cut short would be
    ls.resize(55);
    const std::string msg = errorOf(join(ls), "cut.txt");
    EXPECT_NE(msg.find("cut.txt:55:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
}

TEST(VendorPerfLog, MalformedValuesAndMissingTablesAreClearErrors) {
    auto ls = lines(readFile(kYolo));
    auto bad = ls;
    bad[6] = std::regex_replace(bad[6], std::regex(" 9524 "), " 95x4 ");
    std::string msg = errorOf(join(bad));
    EXPECT_NE(msg.find("bad.txt:7: Time(us) '95x4' is not a number"), std::string::npos) << msg;

    bad = ls;
    bad[8] = std::regex_replace(bad[8], std::regex("698639/522240/698639"), "698639/522240");
    msg = errorOf(join(bad));
    EXPECT_NE(msg.find("bad.txt:9:"), std::string::npos) << msg;

    msg = errorOf(join({ls.begin(), ls.begin() + 5}));  // the header and nothing after it
    EXPECT_NE(msg.find("header but no rows"), std::string::npos) << msg;
    msg = errorOf("");
    EXPECT_NE(msg.find("bad.txt: no RKNN per-layer perf table found"), std::string::npos) << msg;
    msg = errorOf("I RKNN: rknn_init done\nsome other text\n");
    EXPECT_NE(msg.find("no RKNN per-layer perf table found"), std::string::npos) << msg;
}

TEST(VendorPerfLog, EveryPrefixAndRandomDamageParsesOrFailsCleanly) {
    // A log cut at any byte, or with bytes flipped, gives a result or an Error, never a crash or another exception.
    for (const std::string& path : {kBoardTest, kToolkit1, kYolo}) {
        const std::string text = readFile(path);
        const size_t step = text.size() > 8000 ? 37 : 1;
        for (size_t n = 0; n <= text.size(); n += step) {
            try {
                parseRknnPerfLog(text.substr(0, n), "cut");
            } catch (const Error&) {
            }
        }
        std::mt19937 rng(1234);
        for (int round = 0; round < 200; ++round) {
            std::string damaged = text;
            for (int k = 0; k < 8; ++k) damaged[rng() % damaged.size()] = static_cast<char>(rng() % 256);
            try {
                parseRknnPerfLog(damaged, "damaged");
            } catch (const Error&) {
            }
        }
    }
}

TEST(VendorPerfLog, ReportMapping) {
    VendorPerfLog log = loadRknnPerfLog(kYolo);
    Report r = reportFromRknnPerfLog(log, kYolo);
    EXPECT_EQ(r.kind, "profile");
    EXPECT_EQ(r.environment.backend, "rknpu");
    EXPECT_DOUBLE_EQ(r.run.medianUs, 96186);
    ASSERT_EQ(r.layers.size(), 108u);
    double percent = 0;
    for (size_t i = 0; i < r.layers.size(); ++i) {
        EXPECT_EQ(r.layers[i].id, static_cast<int64_t>(i));  // execution steps in the report
        percent += r.layers[i].timePercent;
    }
    EXPECT_NEAR(percent, 100.0, 1e-6);
    EXPECT_EQ(r.model.opHistogram.at("ConvExSwish"), 57);
    EXPECT_EQ(r.model.name, "rk3588-yolov8n-1920x1088-perf-detail");
    // Survives the JSON round trip the CLI and GUI use.
    Report back = reportFromJson(toJson(r));
    ASSERT_EQ(back.layers.size(), r.layers.size());
    EXPECT_EQ(back.layers[1].cyclesNpu, 4700160);
    EXPECT_EQ(back.layers[1].macUsagePercent, r.layers[1].macUsagePercent);
}
