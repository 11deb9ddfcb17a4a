#include "advisor/RuleSupport.h"

#include <algorithm>
#include <cstdio>

#include "perfmodel/LayerCost.h"

namespace npuwb::advisor {

std::string nodeId(const Node& node) {
    return node.layerName();
}

std::vector<std::string> layerNodeIds(const PlannedLayer& layer) {
    std::vector<std::string> ids;
    for (const NodeShapes* ns : layer.nodes) ids.push_back(nodeId(*ns->node));
    return ids;
}

std::optional<size_t> layerOfNode(const AdviceContext& context, const std::string& id) {
    for (size_t i = 0; i < context.layers.size(); ++i)
        for (const NodeShapes* ns : context.layers[i].nodes)
            if (nodeId(*ns->node) == id) return i;
    return std::nullopt;
}

double totalUs(const AdviceContext& context) { return context.estimate.run.medianUs; }

std::string severityForGain(double gainUs, double total) {
    if (total <= 0) return "low";
    double share = gainUs / total;
    return share >= 0.05 ? "high" : share >= 0.01 ? "medium" : "low";
}

std::string maxSeverity(const std::string& a, const std::string& b) {
    auto rank = [](const std::string& s) { return s == "high" ? 2 : s == "medium" ? 1 : 0; };
    return rank(a) >= rank(b) ? a : b;
}

double gainFromScaling(const LayerRow& row, double clockMHz, double keepFraction, double ddrKeepFraction) {
    if (!row.cyclesNpu || !row.cyclesDdr || !row.cyclesTotal || clockMHz <= 0) return 0.0;
    double npu = double(*row.cyclesNpu), ddr = double(*row.cyclesDdr), total = double(*row.cyclesTotal);
    double overhead = std::max(0.0, total - std::max(npu, ddr));
    double after = std::max(npu * keepFraction, ddr * ddrKeepFraction) + overhead;
    return std::max(0.0, (total - after) / clockMHz);
}

const NpuDTypeRates& adviceRates(const AdviceContext& context) { return context.chip.rates(context.options.dtype); }

bool isConvLayer(const PlannedLayer& layer) {
    return !layer.npuOp.empty() && layer.work.kind != NpuWorkKind::Vector && layer.work.conv.outChannels > 0;
}

bool isDepthwiseLayer(const PlannedLayer& layer) {
    return !layer.npuOp.empty() && layer.work.kind == NpuWorkKind::DepthwiseConv;
}

int64_t outputPixels(const PlannedLayer& layer) { return layer.work.conv.outH * layer.work.conv.outW; }

std::string num(double value) {
    char buf[32];
    double a = value < 0 ? -value : value;
    std::snprintf(buf, sizeof buf, a >= 100 || a == double(int64_t(a)) ? "%.0f" : a >= 1 ? "%.1f" : "%.2f", value);
    return buf;
}

Evidence evidence(std::string label, double value, std::string unit) {
    return Evidence{std::move(label), value, std::move(unit)};
}

std::vector<Evidence> layerEvidence(const LayerRow& row) {
    std::vector<Evidence> e{evidence("layer time", row.timeUs, "us"), evidence("share of model time", row.timePercent, "%")};
    if (row.cyclesNpu && row.cyclesDdr) {
        e.push_back(evidence("NPU cycles", double(*row.cyclesNpu)));
        e.push_back(evidence("DDR cycles", double(*row.cyclesDdr)));
    }
    if (row.macUsagePercent) e.push_back(evidence("MAC usage", *row.macUsagePercent, "%"));
    return e;
}

}  // namespace npuwb::advisor

namespace npuwb::advisor {
namespace {

int64_t elements(const Shape& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
}

NpuWork workIfOnNpu(const NodeShapes& a, int64_t macs, const NpuDTypeRates& rates) {
    NpuWork w;
    w.macs = macs;
    int64_t inElems = 0, outElems = 0;
    for (size_t i = 0; i < a.inputs.size(); ++i) {
        if (a.inputs[i].empty()) continue;
        if (i < a.inputIsConstant.size() && a.inputIsConstant[i]) {
            w.weightBytes += elements(a.inputs[i]) * rates.bytes;
        } else {
            w.activationReadBytes += npuActivationBytes(a.inputs[i], rates);
            inElems += elements(a.inputs[i]);
        }
    }
    for (const Shape& s : a.outputs) {
        w.writeBytes += npuActivationBytes(s, rates);
        outElems += elements(s);
    }
    const Node& n = *a.node;
    if (n.opType == "Conv" && a.inputs.size() > 1 && a.inputs[1].size() == 4 && !a.outputs.empty() &&
        a.outputs[0].size() == 4) {
        const Shape& wt = a.inputs[1];
        const Shape& out = a.outputs[0];
        int64_t group = n.attrInt("group", 1);
        w.kind = group > 1 && wt[1] == 1 ? NpuWorkKind::DepthwiseConv : NpuWorkKind::Conv;
        w.conv = ConvGeometry{.batch = out[0], .inChannelsPerGroup = wt[1], .outChannels = wt[0], .groups = group,
                              .kernelH = wt[2], .kernelW = wt[3], .outH = out[2], .outW = out[3]};
    } else {
        w.kind = NpuWorkKind::Vector;
        w.vectorElements = std::max(inElems, outElems);
    }
    return w;
}

}  // namespace

double npuTimeUs(const AdviceContext& context, size_t index) {
    const PlannedLayer& layer = context.layers[index];
    const LayerRow& row = context.estimate.layers[index];
    if (!layer.npuOp.empty()) return row.timeUs;
    const NpuDTypeRates& rates = adviceRates(context);
    NpuWork w = workIfOnNpu(*layer.nodes.front(), row.macs, rates);
    return npuLayerCost(w, context.chip, rates, context.options.cores, context.chip.coefficients).timeUs;
}

}  // namespace npuwb::advisor
