#include "PerfTable.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "npuwb/ir/Tensor.h"

namespace npuwb::cli {

namespace {
std::string shapeText(const std::vector<std::vector<int64_t>>& shapes) {
    std::string s;
    for (const auto& sh : shapes) {
        if (sh.empty()) continue;  // absent optional inputs, scalars
        if (!s.empty()) s += ",";
        s += shapeToString(sh);
    }
    return s;
}

std::string cyclesText(const LayerRow& l) {
    auto v = [](const std::optional<int64_t>& c) { return c ? std::to_string(*c) : std::string("-"); };
    if (!l.cyclesDdr && !l.cyclesNpu && !l.cyclesTotal) return "0/0/0";
    return v(l.cyclesDdr) + "/" + v(l.cyclesNpu) + "/" + v(l.cyclesTotal);
}
}  // namespace

std::vector<const LayerRow*> layerRowsOf(const Report& report) {
    std::vector<const LayerRow*> rows;
    for (const auto& l : report.layers)
        if (l.fusedInto.empty()) rows.push_back(&l);
    return rows;
}

std::map<std::string, const LayerRow*> rowsByName(const Report& report) {
    std::map<std::string, const LayerRow*> byName;
    for (const auto& l : report.layers) byName.emplace(l.fullName, &l);
    return byName;
}

int64_t fusedMacs(const LayerRow& row, const std::map<std::string, const LayerRow*>& byName) {
    int64_t macs = row.macs;
    for (const auto& name : row.fusedNodes)
        if (auto it = byName.find(name); it != byName.end()) macs += it->second->macs;
    return macs;
}

const std::vector<std::vector<int64_t>>& fusedOutputShapes(const LayerRow& row,
                                                           const std::map<std::string, const LayerRow*>& byName) {
    if (row.fusedNodes.empty()) return row.outputShapes;
    auto last = byName.find(row.fusedNodes.back());
    return last == byName.end() ? row.outputShapes : last->second->outputShapes;
}

std::string fusedOpType(const LayerRow& row, const std::map<std::string, const LayerRow*>& byName) {
    std::string s = row.opType;
    for (const auto& name : row.fusedNodes)
        if (auto it = byName.find(name); it != byName.end()) s += "+" + it->second->opType;
    return s;
}

void printLayerNotes(const Report& r, size_t folded) {
    if (folded > 0)
        std::printf("(%zu nodes ran inside a fused layer: its row, OpType A+B, holds their time)\n", folded);
    if (r.removedLayers.empty()) return;
    std::map<std::string, size_t> byRewrite;
    for (const RemovedLayer& l : r.removedLayers) ++byRewrite[l.removedBy];
    std::string counts;
    for (const auto& [rewrite, count] : byRewrite)
        counts += (counts.empty() ? "" : ", ") + rewrite + " " + std::to_string(count);
    std::printf("(%zu nodes of the model were removed before the run by exact rewrites (%s): no time of their own; "
                "IDs are the model's)\n",
                r.removedLayers.size(), counts.c_str());
}

void printPerfDetailTable(const Report& r, const PerfTableOptions& options) {
    const std::map<std::string, const LayerRow*> byName = rowsByName(r);
    std::vector<const LayerRow*> rows = layerRowsOf(r);
    const size_t layerRows = rows.size(), folded = r.layers.size() - rows.size();
    if (options.top > 0) {
        std::stable_sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->timeUs > b->timeUs; });
        if (rows.size() > static_cast<size_t>(options.top)) rows.resize(static_cast<size_t>(options.top));
    }
    std::printf("%-4s %-26s %-8s %-6s %-20s %-18s %-26s %9s %11s %9s  %s\n", "ID", "OpType", "DataType", "Target",
                "InputShape", "OutputShape", "Cycles(DDR/NPU/Total)", "Time(us)", "MacUsage(%)", "RW(KB)", "FullName");
    for (const LayerRow* l : rows) {
        std::string usage = l->macUsagePercent ? std::to_string(*l->macUsagePercent).substr(0, 5) : "-";
        std::string in = l->inputShapes.empty() ? "" : shapeToString(l->inputShapes[0]);
        std::printf("%-4lld %-26s %-8s %-6s %-20s %-18s %-26s %9.1f %11s %9.1f  %s\n", static_cast<long long>(l->id),
                    fusedOpType(*l, byName).c_str(), l->dataType.c_str(), l->target.c_str(), in.c_str(),
                    shapeText(fusedOutputShapes(*l, byName)).c_str(), cyclesText(*l).c_str(), l->timeUs, usage.c_str(),
                    l->rwKB(),
                    l->fullName.c_str());
    }
    if (options.top > 0 && layerRows > rows.size())
        std::printf("(%zu slowest of %zu layers)\n", rows.size(), layerRows);
    printLayerNotes(r, folded);
    struct OpTime {
        int calls = 0;
        double cpuUs = 0, npuUs = 0, totalUs = 0;
    };
    double rwKB = 0, npuUs = 0, cpuUs = 0;
    std::map<std::string, OpTime> byOp;
    for (const auto& l : r.layers) {
        rwKB += l.rwKB();
        if (!l.fusedInto.empty()) continue;  // counted with its fused layer
        const bool onNpu = l.target != "CPU";
        (onNpu ? npuUs : cpuUs) += l.timeUs;
        OpTime& op = byOp[fusedOpType(l, byName)];
        op.calls++;
        (onNpu ? op.npuUs : op.cpuUs) += l.timeUs;
        op.totalUs += l.timeUs;
    }
    // An imported log's run is its printed total; a runtime run's totals come from other passes than the layer rows
    // (npuwb/Report.h RuntimeSection), so there the rows' own sum is the per-frame total of the table.
    const double total = r.runtime ? npuUs + cpuUs : r.run.medianUs;
    std::printf("\nTotal Operator Elapsed Per Frame Time(us): %.1f   (NPU %.1f, CPU %.1f)\n", total, npuUs, cpuUs);
    std::printf("Total Memory Read/Write Per Frame Size(KB): %.1f\n", rwKB);
    if (!options.summaryLine.empty()) std::printf("%s\n", options.summaryLine.c_str());
    std::printf("\n%-26s %10s %12s %12s %14s %12s\n", "OpType", "CallNumber", "CPUTime(us)", "NPUTime(us)",
                "TotalTime(us)", "TimeRatio(%)");
    std::vector<std::pair<std::string, OpTime>> ranking(byOp.begin(), byOp.end());
    std::stable_sort(ranking.begin(), ranking.end(),
                     [](const auto& a, const auto& b) { return a.second.totalUs > b.second.totalUs; });
    for (const auto& [op, v] : ranking)
        std::printf("%-26s %10d %12.1f %12.1f %14.1f %12.2f\n", op.c_str(), v.calls, v.cpuUs, v.npuUs, v.totalUs,
                    total > 0 ? 100.0 * v.totalUs / total : 0.0);
}

}  // namespace npuwb::cli
