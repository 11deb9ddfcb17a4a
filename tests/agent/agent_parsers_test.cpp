// The agent's parsers and the report fields it adds, without a board: sysfs formats as RK3588 kernels print them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "BoardFiles.h"
#include "BoardState.h"
#include "Job.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Report.h"
#include "npuwb/Error.h"

namespace npuwb::agent {
namespace {

TEST(AgentParsers, NpuLoadPerCore) {
    EXPECT_EQ(parseNpuLoad("NPU load:  Core0: 37%, Core1:  0%, Core2:  5%,"), (std::vector<int>{37, 0, 5}));
    EXPECT_EQ(parseNpuLoad("NPU load:  12%"), (std::vector<int>{12}));  // single-core NPUs (RK3566)
    EXPECT_TRUE(parseNpuLoad("NPU load: ").empty());
}

TEST(AgentParsers, CpuListsAndNaturalOrder) {
    EXPECT_EQ(parseCpuList("0-3,6"), (std::vector<int>{0, 1, 2, 3, 6}));
    EXPECT_EQ(parseCpuList("4,5"), (std::vector<int>{4, 5}));
    EXPECT_TRUE(parseCpuList("").empty());
    EXPECT_TRUE(naturalLess("policy4", "policy10"));
    EXPECT_FALSE(naturalLess("cpu10", "cpu2"));
    EXPECT_TRUE(naturalLess("dmc", "fdab0000.npu"));
}

// The job format itself is tested with the wire module (tests/unit/protocol); here: the agent's file reading.
TEST(AgentParsers, LoadJobReadsAFileAndNamesItInErrors) {
    const std::string dir = ::testing::TempDir();
    const std::string good = dir + "/npuwb-agent-job.json", bad = dir + "/npuwb-agent-bad-job.json";
    writeFileAtomically(good, R"({"model":"m.onnx","runs":3,"warmup":0,"inputShapes":{"x":[1,3,8,8]}})");
    writeFileAtomically(bad, R"({"model":"m.onnx","runs":-1})");
    const AgentJob job = loadJob(good);
    EXPECT_EQ(job.model, "m.onnx");
    EXPECT_EQ(job.run.runs, 3);
    EXPECT_EQ(job.run.warmup, 0);
    EXPECT_EQ(job.run.executor.backend, kAutoBackend);
    EXPECT_EQ(job.run.inputShapes.at("x"), (Shape{1, 3, 8, 8}));
    try {
        loadJob(bad);
        ADD_FAILURE() << "accepted runs -1";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
        EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("'runs'"), std::string::npos) << e.what();
    }
}

Report minimalReport() {
    Report r;
    r.model.path = "m.onnx";
    r.model.name = "m";
    r.run.runs = 1;
    r.run.medianUs = r.run.minUs = 10;
    return r;
}

TEST(AgentReportFields, BoardEnvironmentAndBreakdownRoundTrip) {
    Report r = minimalReport();
    r.environment.arch = "aarch64";
    r.environment.kernel = "5.10.160-rockchip-rk3588";
    r.environment.npuDriver = "0.9.6";
    r.environment.clocks = BoardClocks{.cpuFreqKHz = {1800000, 2400000},
                                       .npuFreqHz = 1000000000,
                                       .ddrFreqHz = std::nullopt,
                                       .governors = {{"policy0", "performance"}}};
    r.run.breakdown = TimeBreakdown{.preProcessUs = 12.5,
                                    .inputCopyUs = 3.0,
                                    .inferenceUs = 10.0,
                                    .outputCopyUs = 1.5,
                                    .postProcessUs = std::nullopt};
    const nlohmann::json j = toJson(r);
    EXPECT_EQ(j["environment"]["clocks"]["ddrFreqHz"], nullptr);
    EXPECT_EQ(j["run"]["breakdownUs"]["postProcess"], nullptr);
    Report back = reportFromJson(j);
    EXPECT_EQ(back.environment.arch, "aarch64");
    EXPECT_EQ(back.environment.kernel, r.environment.kernel);
    EXPECT_EQ(back.environment.npuDriver, "0.9.6");
    ASSERT_TRUE(back.environment.clocks);
    EXPECT_EQ(back.environment.clocks->cpuFreqKHz, r.environment.clocks->cpuFreqKHz);
    EXPECT_EQ(back.environment.clocks->npuFreqHz, 1000000000);
    EXPECT_FALSE(back.environment.clocks->ddrFreqHz);
    EXPECT_EQ(back.environment.clocks->governors, r.environment.clocks->governors);
    ASSERT_TRUE(back.run.breakdown);
    EXPECT_DOUBLE_EQ(back.run.breakdown->preProcessUs, 12.5);
    EXPECT_DOUBLE_EQ(back.run.breakdown->outputCopyUs, 1.5);
    EXPECT_FALSE(back.run.breakdown->postProcessUs);
}

TEST(AgentReportFields, AbsentFromLocalReports) {
    const nlohmann::json j = toJson(minimalReport());
    for (const char* key : {"arch", "kernel", "npuDriver", "clocks"}) EXPECT_FALSE(j["environment"].contains(key)) << key;
    EXPECT_FALSE(j["run"].contains("breakdownUs"));
    Report back = reportFromJson(j);
    EXPECT_TRUE(back.environment.arch.empty());
    EXPECT_FALSE(back.environment.clocks);
    EXPECT_FALSE(back.run.breakdown);
}

}  // namespace
}  // namespace npuwb::agent
