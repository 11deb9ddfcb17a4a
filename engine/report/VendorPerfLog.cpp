#include "npuwb/VendorPerfLog.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"

namespace npuwb {

namespace {

enum class Col { Id, OpType, DataType, Target, InputShape, OutputShape, Cycles, DdrCycles, NpuCycles, TotalCycles,
                 Time, MacUsage, Rw, FullName, Other };
enum class RankCol { OpType, Calls, Cpu, Gpu, Npu, Total, Ratio, Other };

// Header names that the vendor prints with a space inside; whitespace tokenizing splits them, so they are rejoined.
const char* const kTwoWordNames[] = {"Layer ID",     "Layer Name",    "DDR Cycles",   "NPU Cycles",
                                     "Total Cycles", "Task Number",   "Task Size",    "Regcmd Size",
                                     "Lut Number",   "Call Number",   "CPU Time(us)", "GPU Time(us)",
                                     "NPU Time(us)", "Total Time(us)", "Time Ratio(%)"};

Col layerColumn(const std::string& name) {
    static const std::map<std::string, Col> names = {
        {"ID", Col::Id},          {"Layer ID", Col::Id},           {"OpType", Col::OpType},
        {"Operator", Col::OpType}, {"DataType", Col::DataType},    {"Target", Col::Target},
        {"InputShape", Col::InputShape}, {"OutputShape", Col::OutputShape},
        {"Cycles(DDR/NPU/Total)", Col::Cycles}, {"DDR Cycles", Col::DdrCycles}, {"DDRCycles", Col::DdrCycles},
        {"NPU Cycles", Col::NpuCycles}, {"NPUCycles", Col::NpuCycles}, {"Total Cycles", Col::TotalCycles},
        {"MaxCycles", Col::TotalCycles}, {"Time(us)", Col::Time}, {"MacUsage(%)", Col::MacUsage},
        {"RW(KB)", Col::Rw},      {"FullName", Col::FullName},     {"FullNName", Col::FullName},
        {"Name", Col::FullName},  {"Layer Name", Col::FullName}};
    auto it = names.find(name);
    return it == names.end() ? Col::Other : it->second;
}

RankCol rankingColumn(const std::string& name) {
    static const std::map<std::string, RankCol> names = {
        {"OpType", RankCol::OpType},        {"CallNumber", RankCol::Calls},   {"Call Number", RankCol::Calls},
        {"CPUTime(us)", RankCol::Cpu},      {"CPU Time(us)", RankCol::Cpu},   {"GPUTime(us)", RankCol::Gpu},
        {"GPU Time(us)", RankCol::Gpu},     {"NPUTime(us)", RankCol::Npu},    {"NPU Time(us)", RankCol::Npu},
        {"TotalTime(us)", RankCol::Total},  {"Total Time(us)", RankCol::Total}, {"TimeRatio(%)", RankCol::Ratio},
        {"Time Ratio(%)", RankCol::Ratio}};
    auto it = names.find(name);
    return it == names.end() ? RankCol::Other : it->second;
}

/// Drops CR, log prefixes ("D RKNN: [04:33:42.488] ") and table borders ('|', box-drawing verticals).
std::string normalizeLine(std::string s) {
    if (!s.empty() && s.back() == '\r') s.pop_back();
    static const std::regex logPrefix(R"(^\s*[DIWE] RKNN: \[[^\]]*\]\s?)");
    s = std::regex_replace(s, logPrefix, "", std::regex_constants::format_first_only);
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        const auto b1 = i + 2 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0;
        const auto b2 = i + 2 < s.size() ? static_cast<unsigned char>(s[i + 2]) : 0;
        if (static_cast<unsigned char>(s[i]) == 0xE2 &&
            ((b1 == 0x94 && (b2 == 0x82 || b2 == 0x83)) || (b1 == 0x95 && b2 == 0x91))) {  // │ ┃ ║
            out += ' ';
            i += 2;
            continue;
        }
        out += (s[i] == '|' || s[i] == '\t') ? ' ' : s[i];
    }
    return out;
}

/// A line made only of rule characters: ---, ===, +--+, or box drawing (U+2500..U+257F).
bool isRule(const std::string& s) {
    bool any = false;
    for (size_t i = 0; i < s.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c == ' ') continue;
        if (c == '-' || c == '=' || c == '+' || c == '*' || c == '~' || c == '_') { any = true; continue; }
        if (c == 0xE2 && i + 2 < s.size() && (static_cast<unsigned char>(s[i + 1]) == 0x94 ||
                                              static_cast<unsigned char>(s[i + 1]) == 0x95)) {
            i += 2;
            any = true;
            continue;
        }
        return false;
    }
    return any;
}

std::vector<std::string> tokenize(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string t; in >> t;) out.push_back(t);
    return out;
}

/// Header tokens with the vendor's two-word names rejoined ("DDR" "Cycles" -> "DDR Cycles").
std::vector<std::string> headerNames(const std::vector<std::string>& tokens) {
    std::vector<std::string> out;
    for (size_t i = 0; i < tokens.size(); ++i) {
        if (i + 1 < tokens.size()) {
            const std::string pair = tokens[i] + " " + tokens[i + 1];
            if (std::find(std::begin(kTwoWordNames), std::end(kTwoWordNames), pair) != std::end(kTwoWordNames)) {
                out.push_back(pair);
                ++i;
                continue;
            }
        }
        out.push_back(tokens[i]);
    }
    return out;
}

/// 1.5 prints the workload as "0.0%/0.0%/0.0% - Up:0.0%": one value over three tokens.
void mergeWorkloadSuffix(std::vector<std::string>& tokens) {
    for (size_t i = 1; i + 1 < tokens.size(); ++i)
        if (tokens[i] == "-" && tokens[i + 1].rfind("Up:", 0) == 0) {
            tokens[i - 1] += " - " + tokens[i + 1];
            tokens.erase(tokens.begin() + static_cast<std::ptrdiff_t>(i), tokens.begin() + static_cast<std::ptrdiff_t>(i) + 2);
        }
}

bool isInteger(const std::string& t) {
    return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

std::optional<double> toNumber(std::string t) {
    if (!t.empty() && t.back() == '%') t.pop_back();
    double v = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::optional<int64_t> toInt(const std::string& t) {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
    return v;
}

bool isNone(const std::string& t) { return t == "\\" || t == "-" || t == "/"; }

/// "(1,3,224,224),(32,3,3,3),(32)" -> shapes; "\" -> none; a trailing "..." (list cut by the vendor) is dropped.
std::vector<std::vector<int64_t>> parseShapes(const std::string& text) {
    std::vector<std::vector<int64_t>> shapes;
    for (size_t open = text.find('('); open != std::string::npos; open = text.find('(', open + 1)) {
        const size_t close = text.find(')', open);
        if (close == std::string::npos) break;
        std::vector<int64_t> dims;
        std::stringstream ss(text.substr(open + 1, close - open - 1));
        for (std::string d; std::getline(ss, d, ',');)
            if (auto v = toInt(d)) dims.push_back(*v);
        shapes.push_back(std::move(dims));
        open = close;
    }
    return shapes;
}

struct Parser {
    std::string source;
    VendorPerfLog log;
    std::vector<Col> columns;
    std::vector<RankCol> rankColumns;
    enum class State { None, Layers, Ranking } state = State::None;
    int tablesSeen = 0;
    bool haveTarget = false;

    [[noreturn]] void fail(int line, const std::string& what) const {
        failInput(source + ":" + std::to_string(line) + ": " + what);
    }

    bool matchTotals(const std::string& s) {
        static const std::regex elapsed(R"(Total Operator Elapsed( Per Frame)? Time\(us\):\s*([0-9]+(\.[0-9]+)?))");
        static const std::regex plain(R"(^Total Time\(us\):\s*([0-9]+(\.[0-9]+)?))");
        static const std::regex rwKB(R"(Total Memory Read/Write( Per Frame)? Size\(KB\):\s*([0-9]+(\.[0-9]+)?))");
        static const std::regex rwMB(R"(Total Memory RW Amount\(MB\):\s*([0-9]+(\.[0-9]+)?))");
        std::smatch m;
        if (std::regex_search(s, m, elapsed)) log.totalUs = toNumber(m[2]);
        else if (std::regex_search(s, m, plain)) log.totalUs = toNumber(m[1]);
        else if (std::regex_search(s, m, rwKB)) log.totalRwKB = toNumber(m[2]);
        else if (std::regex_search(s, m, rwMB)) {
            if (auto mb = toNumber(m[1])) log.totalRwKB = *mb * 1024.0;
        } else return false;
        return true;
    }

    bool isLayerHeader(const std::vector<std::string>& names) const {
        auto has = [&](Col c) {
            return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return layerColumn(n) == c; });
        };
        return has(Col::Time) && (has(Col::Id) || has(Col::FullName)) && (has(Col::OpType) || has(Col::FullName)) &&
               std::find(names.begin(), names.end(), "CallNumber") == names.end() &&
               std::find(names.begin(), names.end(), "Call Number") == names.end();
    }

    static bool isRankingHeader(const std::vector<std::string>& names) {
        return !names.empty() && names[0] == "OpType" &&
               (std::find(names.begin(), names.end(), "CallNumber") != names.end() ||
                std::find(names.begin(), names.end(), "Call Number") != names.end());
    }

    void startLayerTable(const std::vector<std::string>& names, int line) {
        if (!log.layers.empty()) {
            log.warnings.push_back(source + ":" + std::to_string(line) +
                                   ": another per-layer table starts here; the last table is used");
            log.layers.clear();
        }
        columns.clear();
        for (const auto& n : names) columns.push_back(layerColumn(n));
        auto has = [&](Col c) { return std::find(columns.begin(), columns.end(), c) != columns.end(); };
        haveTarget = has(Col::Target);
        log.format = has(Col::Cycles) ? "rknn2" : has(Col::DdrCycles) ? "rknn2-split-cycles" : "rknn-toolkit1";
        state = State::Layers;
        ++tablesSeen;
    }

    bool fullNameIsLast() const { return !columns.empty() && columns.back() == Col::FullName; }
    bool hasIdColumn() const { return std::find(columns.begin(), columns.end(), Col::Id) != columns.end(); }

    bool looksLikeRow(const std::vector<std::string>& t) const {
        if (hasIdColumn()) {
            const size_t idAt = static_cast<size_t>(std::find(columns.begin(), columns.end(), Col::Id) - columns.begin());
            return idAt < t.size() && isInteger(t[idAt]) && t.size() > 1;
        }
        return t.size() + (fullNameIsLast() ? 1 : 0) >= columns.size();  // toolkit1 "Layer Name  Time(us)"
    }

    double number(const std::string& t, const char* column, int line) const {
        auto v = toNumber(t);
        if (!v) fail(line, std::string(column) + " '" + t + "' is not a number");
        return *v;
    }

    std::optional<int64_t> cycles(const std::string& t, int line) const {
        if (isNone(t)) return std::nullopt;
        return static_cast<int64_t>(std::llround(number(t, "cycles", line)));
    }

    void parseRow(std::vector<std::string> t, int line) {
        const size_t n = columns.size();
        const size_t needed = fullNameIsLast() ? n - 1 : n;
        if (t.size() < needed)
            fail(line, "row has " + std::to_string(t.size()) + " of the table's " + std::to_string(n) +
                           " columns (truncated or malformed line)");
        if (t.size() > n) {
            if (!fullNameIsLast()) fail(line, "row has more columns than the header (" + std::to_string(t.size()) + " > " +
                                                  std::to_string(n) + ")");
            for (size_t i = n; i < t.size(); ++i) t[n - 1] += " " + t[i];  // a FullName with spaces
            t.resize(n);
        }
        LayerRow row;
        row.id = static_cast<int64_t>(log.layers.size()) + 1;
        row.target = haveTarget ? "CPU" : "NPU";  // toolkit1 only lists NPU layers
        for (size_t c = 0; c < t.size(); ++c) {
            const std::string& v = t[c];
            switch (columns[c]) {
            case Col::Id: {
                auto id = toInt(v);
                if (!id) fail(line, "ID '" + v + "' is not an integer");
                row.id = *id;
                break;
            }
            case Col::OpType: row.opType = v; break;
            case Col::DataType: {
                row.dataType = isNone(v) ? "" : v;
                std::transform(row.dataType.begin(), row.dataType.end(), row.dataType.begin(),
                               [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
                break;
            }
            case Col::Target: {
                std::string up = v;
                std::transform(up.begin(), up.end(), up.begin(),
                               [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
                if (up != "CPU" && up != "NPU" && up != "GPU")
                    log.warnings.push_back(source + ":" + std::to_string(line) + ": unknown target '" + v +
                                           "' shown as CPU");
                row.target = (up == "NPU" || up == "GPU") ? up : "CPU";
                break;
            }
            case Col::InputShape: row.inputShapes = parseShapes(v); break;
            case Col::OutputShape: row.outputShapes = parseShapes(v); break;
            case Col::Cycles: {
                if (isNone(v)) break;
                std::vector<std::string> parts;
                std::stringstream ss(v);
                for (std::string p; std::getline(ss, p, '/');) parts.push_back(p);
                if (parts.size() != 3) fail(line, "Cycles(DDR/NPU/Total) '" + v + "' is not DDR/NPU/Total");
                row.cyclesDdr = cycles(parts[0], line);
                row.cyclesNpu = cycles(parts[1], line);
                row.cyclesTotal = cycles(parts[2], line);
                break;
            }
            case Col::DdrCycles: row.cyclesDdr = cycles(v, line); break;
            case Col::NpuCycles: row.cyclesNpu = cycles(v, line); break;
            case Col::TotalCycles: row.cyclesTotal = cycles(v, line); break;
            case Col::Time: row.timeUs = row.timeUsMin = number(v, "Time(us)", line); break;
            case Col::MacUsage: {
                // Per core on multi-core chips ("77.24/0.00/0.00"): the busiest core's utilization.
                if (isNone(v)) break;
                std::stringstream ss(v);
                double best = 0;
                for (std::string p; std::getline(ss, p, '/');) best = std::max(best, number(p, "MacUsage(%)", line));
                row.macUsagePercent = best;
                break;
            }
            case Col::Rw:
                // The vendor reports read + write together; the schema's rwKB is bytesRead + bytesWritten.
                if (!isNone(v)) row.bytesRead = static_cast<int64_t>(std::llround(number(v, "RW(KB)", line) * 1024.0));
                break;
            case Col::FullName: row.fullName = v; break;
            case Col::Other: break;
            }
        }
        if (row.fullName.empty()) row.fullName = row.opType + ":" + std::to_string(row.id);
        log.layers.push_back(std::move(row));
    }

    void startRanking(const std::vector<std::string>& names) {
        rankColumns.clear();
        for (const auto& n : names) rankColumns.push_back(rankingColumn(n));
        log.ranking.clear();
        state = State::Ranking;
    }

    bool parseRankingRow(const std::vector<std::string>& t, int line) {
        if (t.size() != rankColumns.size() || isInteger(t[0]) || t.size() < 2 || !toNumber(t[1])) return false;
        if (t[0] == "Total") return true;  // a sum some tools add
        VendorOpRanking r;
        for (size_t c = 0; c < t.size(); ++c) {
            switch (rankColumns[c]) {
            case RankCol::OpType: r.opType = t[c]; break;
            case RankCol::Calls: r.calls = static_cast<int64_t>(number(t[c], "CallNumber", line)); break;
            case RankCol::Cpu: r.cpuUs = number(t[c], "CPUTime(us)", line); break;
            case RankCol::Gpu: r.gpuUs = number(t[c], "GPUTime(us)", line); break;
            case RankCol::Npu: r.npuUs = number(t[c], "NPUTime(us)", line); break;
            case RankCol::Total: r.totalUs = number(t[c], "TotalTime(us)", line); break;
            case RankCol::Ratio: r.ratioPercent = number(t[c], "TimeRatio(%)", line); break;
            case RankCol::Other: break;
            }
        }
        log.ranking.push_back(std::move(r));
        return true;
    }

    void feed(const std::string& raw, int line) {
        const std::string s = normalizeLine(raw);
        auto first = s.find_first_not_of(' ');
        if (first == std::string::npos) return;  // blank lines do not end a table (1.5 puts them around "...")
        const std::string trimmed = s.substr(first, s.find_last_not_of(' ') - first + 1);
        if (matchTotals(trimmed)) {
            if (state == State::Layers) state = State::None;
            return;
        }
        if (isRule(trimmed)) return;
        std::vector<std::string> tokens = tokenize(trimmed);
        mergeWorkloadSuffix(tokens);
        const std::vector<std::string> names = headerNames(tokens);
        if (isRankingHeader(names)) return startRanking(names);
        if (isLayerHeader(names)) return startLayerTable(names, line);
        if (trimmed.find_first_not_of('.') == std::string::npos) {  // "..." : rows left out of the log
            if (state == State::Layers)
                log.warnings.push_back(source + ":" + std::to_string(line) +
                                       ": rows were left out of the log ('...'); the layer sum will not match the total");
            return;
        }
        if (state == State::Layers) {
            if (looksLikeRow(tokens)) return parseRow(std::move(tokens), line);
            if (tokens.size() == 1 && !log.layers.empty()) {  // toolkit1 wraps long names onto the next line
                log.layers.back().fullName += tokens[0];
                return;
            }
            state = State::None;
        } else if (state == State::Ranking) {
            if (!parseRankingRow(tokens, line)) state = State::None;
        }
    }
};

}  // namespace

double VendorPerfLog::layerTimeSumUs() const {
    double sum = 0;
    for (const auto& l : layers) sum += l.timeUs;
    return sum;
}

VendorPerfLog parseRknnPerfLog(const std::string& text, const std::string& source) {
    Parser p;
    p.source = source;
    std::istringstream in(text);
    int line = 0;
    for (std::string raw; std::getline(in, raw);) p.feed(raw, ++line);
    if (p.tablesSeen == 0)
        failInput(source + ": no RKNN per-layer perf table found (expected a header line such as 'ID OpType DataType "
                           "Target ... Time(us) ... FullName' or toolkit1's 'Layer ID Name Operator Uid Time(us)')");
    if (p.log.layers.empty())
        failInput(source + ": the per-layer perf table has a header but no rows (is the log cut short?)");
    if (!p.log.totalUs)
        p.log.warnings.push_back(source + ": no 'Total ... Time(us)' line; the run time is the sum of the layers");
    return std::move(p.log);
}

VendorPerfLog loadRknnPerfLog(const std::string& path) {
    return parseRknnPerfLog(readFile(path, 256 << 20), path);  // the largest published logs are a few MB
}

Report reportFromRknnPerfLog(const VendorPerfLog& log, const std::string& source) {
    Report r = newReport("profile");
    r.model.path = source;
    r.model.name = std::filesystem::path(source).stem().string();
    r.model.producer = "RKNN perf log (" + log.format + ")";
    r.model.nodeCount = static_cast<int64_t>(log.layers.size());
    for (const auto& l : log.layers) ++r.model.opHistogram[l.opType.empty() ? "?" : l.opType];
    r.environment.backend = "rknpu";
    r.environment.device = "board (imported vendor log)";
    r.environment.threads = 1;
    const double layerSum = log.layerTimeSumUs();
    const double total = log.totalUs.value_or(layerSum);
    r.run.runs = 1;
    r.run.medianUs = r.run.minUs = r.run.meanUs = r.run.maxUs = total;
    r.run.samplesUs = {total};
    r.layers = log.layers;
    for (size_t i = 0; i < r.layers.size(); ++i) {
        // The report's id is the execution step (0, 1, ...); the vendor's IDs start at 1 (toolkit1 skips some).
        r.layers[i].id = static_cast<int64_t>(i);
        r.layers[i].timePercent = layerSum > 0 ? 100.0 * r.layers[i].timeUs / layerSum : 0.0;
    }
    return r;
}

}  // namespace npuwb
