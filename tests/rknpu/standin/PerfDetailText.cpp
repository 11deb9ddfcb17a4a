#include "PerfDetailText.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace npuwb::standin {
namespace {

std::string vendorTypeName(DType t) {  // rknn_api.h get_type_string()
    switch (t) {
    case DType::F32: return "FP32";
    case DType::F16: return "FP16";
    case DType::BF16: return "BF16";
    case DType::I8: return "INT8";
    case DType::U8: return "UINT8";
    case DType::I16: return "INT16";
    case DType::U16: return "UINT16";
    case DType::I32: return "INT32";
    case DType::U32: return "UINT32";
    case DType::I64: return "INT64";
    case DType::Bool: return "BOOL";
    default: return "\\";
    }
}

std::string vendorShape(const Shape& s) {  // "(1,3,224,224)"
    std::string out = "(";
    for (size_t i = 0; i < s.size(); ++i) {
        if (i) out += ',';
        out += std::to_string(s[i]);
    }
    return out + ")";
}

std::string joined(const std::vector<std::string>& parts) {
    if (parts.empty()) return "\\";
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
        if (i) out += ',';
        out += parts[i];
    }
    return out;
}

std::string oneLine(std::string s) {
    std::replace(s.begin(), s.end(), '\n', ' ');
    std::replace(s.begin(), s.end(), '\r', ' ');
    return s.empty() ? "\\" : s;
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string aligned(const std::vector<std::vector<std::string>>& rows) {
    std::vector<size_t> width;
    for (const auto& r : rows)
        for (size_t c = 0; c < r.size(); ++c) {
            if (width.size() <= c) width.push_back(0);
            width[c] = std::max(width[c], r[c].size());
        }
    std::string out;
    for (const auto& r : rows) {
        std::string line;
        for (size_t c = 0; c < r.size(); ++c)
            line += c + 1 < r.size() ? r[c] + std::string(width[c] - r[c].size() + 3, ' ') : r[c];
        out += line + "\n";
    }
    return out;
}

}  // namespace

void LayerTimes::grow(size_t steps) {
    if (steps_.size() < steps) steps_.resize(steps);
}

void LayerTimes::startRun() {
    for (auto& s : steps_) s.us = 0;
}

void LayerTimes::runStarted(size_t nodeCount) { grow(nodeCount); }

void LayerTimes::nodeStarted(size_t, const Node&) { started_ = std::chrono::steady_clock::now(); }

void LayerTimes::nodeFinished(size_t step, const Node&, const std::vector<const Value*>& inputs,
                              const std::vector<Value>& outputs) {
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started_).count();
    grow(step + 1);
    Step& s = steps_[step];
    s.us += us;
    if (!s.outputShapes.empty() || outputs.empty()) return;  // shapes learnt once
    s.bytes = 0;
    for (const Value* v : inputs)
        if (v && v->isTensor()) {
            s.inputShapes.push_back(vendorShape(v->tensor.shape()));
            s.bytes += shapeNumel(v->tensor.shape()) * static_cast<int64_t>(dtypeSize(v->tensor.dtype()));
        }
    for (const Value& v : outputs)
        if (v.isTensor()) {
            s.outputShapes.push_back(vendorShape(v.tensor.shape()));
            s.bytes += shapeNumel(v.tensor.shape()) * static_cast<int64_t>(dtypeSize(v.tensor.dtype()));
            if (s.dataType.empty()) s.dataType = vendorTypeName(v.tensor.dtype());
        }
}

void LayerTimes::kernelTimed(const std::vector<size_t>& steps, double microseconds) {
    // A fused kernel's time goes whole to its first node, as the engine's profiler and the vendor's perf detail
    // count a fused layer once; its other nodes are listed with 0 us.
    if (steps.empty()) return;
    const size_t anchor = *std::min_element(steps.begin(), steps.end());
    grow(anchor + 1);
    steps_[anchor].us += microseconds;
}

std::string LayerTimes::table(const Session& session, int64_t items) const {
    const Graph& g = session.model().graph;
    const auto& order = session.executionOrder();
    std::vector<std::vector<std::string>> rows{{"ID", "OpType", "DataType", "Target", "InputShape", "OutputShape",
                                                "Cycles(DDR/NPU/Total)", "Time(us)", "MacUsage(%)", "WorkLoad(0/1/2)",
                                                "RW(KB)", "FullName"}};
    struct Rank {
        int64_t calls = 0;
        double us = 0;
    };
    std::map<std::string, Rank> ranking;
    double totalUs = 0, totalKB = 0;
    int64_t id = 0;
    for (size_t step = 0; step < steps_.size() && step < order.size(); ++step) {
        // A step no kernel timed in this run (a reshape the backend turned into a view) is listed with 0 us.
        const Step& s = steps_[step];
        const Node& node = g.nodes[order[step]];
        const std::string name = oneLine(node.name.empty() && !node.outputs.empty() ? node.outputs[0] : node.name);
        const double kb = static_cast<double>(s.bytes * items) / 1024.0;
        rows.push_back({std::to_string(++id), node.opType, s.dataType.empty() ? "\\" : s.dataType, "CPU",
                        joined(s.inputShapes), joined(s.outputShapes), "\\", fixed(s.us, 1), "\\", "\\",
                        fixed(kb, 0), node.opType + ":" + name});
        totalUs += s.us;
        totalKB += kb;
        ranking[node.opType].calls += 1;
        ranking[node.opType].us += s.us;
    }
    const std::string wide(120, '-');
    std::string out = wide + "\n" + std::string(40, ' ') + "Network Layer Information Table\n" + wide + "\n";
    std::string body = aligned(rows);
    const size_t headerEnd = body.find('\n') + 1;
    out += body.substr(0, headerEnd) + wide + "\n" + body.substr(headerEnd) + wide + "\n";
    out += "Total Operator Elapsed Per Frame Time(us): " + fixed(totalUs, 0) + "\n";
    out += "Total Memory Read/Write Per Frame Size(KB): " + fixed(totalKB, 0) + "\n" + wide + "\n";

    std::vector<std::pair<std::string, Rank>> sorted(ranking.begin(), ranking.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.us > b.second.us; });
    std::vector<std::vector<std::string>> rankRows{
        {"OpType", "CallNumber", "CPUTime(us)", "GPUTime(us)", "NPUTime(us)", "TotalTime(us)", "TimeRatio(%)"}};
    for (const auto& [op, r] : sorted)
        rankRows.push_back({op, std::to_string(r.calls), fixed(r.us, 1), "0", "0", fixed(r.us, 1),
                            fixed(totalUs > 0 ? 100.0 * r.us / totalUs : 0.0, 2) + "%"});
    const std::string narrow(100, '-');
    std::string rank = aligned(rankRows);
    const size_t rankHeaderEnd = rank.find('\n') + 1;
    out += narrow + "\n" + std::string(33, ' ') + "Operator Time Consuming Ranking Table\n" + narrow + "\n" +
           rank.substr(0, rankHeaderEnd) + narrow + "\n" + rank.substr(rankHeaderEnd) + narrow + "\n";
    return out;
}

}  // namespace npuwb::standin
