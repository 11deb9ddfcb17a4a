// cpu-fallback (RKNN SDK user guide V2.5.0, 5.2.2.3): layers the chip's NPU cannot run go to the CPU in float32, with a
// layout conversion on each side. The gain is the layer's CPU time minus what the cost model gives it on the NPU.
#include <algorithm>

#include "advisor/PassScan.h"
#include "advisor/RuleSupport.h"
#include "npuwb/VendorGuide.h"

namespace npuwb::advisor {
namespace {

/// Kernels (each <= maxKernel, dividing the size) that pool `size` down to <= maxSize in stages; empty if none.
std::vector<int64_t> poolStages(int64_t size, int64_t maxSize, int64_t maxKernel) {
    std::vector<int64_t> kernels;
    while (size > maxSize) {
        int64_t k = maxKernel;
        while (k >= 2 && size % k != 0) --k;
        if (k < 2) return {};
        kernels.push_back(k);
        size /= k;
    }
    return kernels;
}

/// A global pool over a map larger than the NPU's limit is exact as non-overlapping AveragePool/MaxPool stages
/// (every window has the same size) followed by the global pool on a map within the limit.
std::string globalPoolMitigation(const AdviceContext& c, const PlannedLayer& layer, const std::string& npuOp) {
    const NodeShapes& a = *layer.nodes.front();
    const NpuOp* op = c.chip.npuOp(npuOp);
    if (!op || a.inputs.empty() || a.inputs[0].size() != 4) return {};
    int64_t maxSize = 0, maxKernel = 0;
    for (const auto& l : op->limits) {
        if (l.key == "input.height") maxSize = l.max;
        if (l.key == "kernel_h") maxKernel = l.max;
    }
    if (maxSize <= 0 || maxKernel < 2) return {};
    auto hs = poolStages(a.inputs[0][2], maxSize, maxKernel), ws = poolStages(a.inputs[0][3], maxSize, maxKernel);
    if ((hs.empty() && a.inputs[0][2] > maxSize) || (ws.empty() && a.inputs[0][3] > maxSize)) return {};
    std::string stages;
    for (size_t i = 0; i < std::max(hs.size(), ws.size()); ++i)
        stages += (stages.empty() ? "" : ", ") + std::to_string(i < hs.size() ? hs[i] : 1) + "x" +
                  std::to_string(i < ws.size() ? ws[i] : 1);
    std::string pool = a.node->opType == "GlobalMaxPool" ? "MaxPool" : "AveragePool";
    return "Pool in stages within the limit: non-overlapping " + pool + " with kernel=stride " + stages +
           ", then " + a.node->opType + " on the remaining map (exact: every window has the same size).";
}

std::string mitigationFor(const std::string& op, const std::string& reason) {
    if (reason.find("does not support") != std::string::npos)
        return "Keep " + op + " in fp16 with hybrid quantization, or replace it by an op the NPU runs at this "
               "dtype (a Div by a constant is a Mul by its reciprocal).";
    if (reason.find("limit exceeded") != std::string::npos) {
        if (reason.find("kernel") != std::string::npos)
            return "Bring the kernel within the limit: stack smaller kernels (two 3x3 for a 5x5) or split the kernel "
                   "and add the partial convolutions.";
        if (reason.find("stride") != std::string::npos)
            return "Use a stride within the limit, e.g. a stride-1 convolution followed by subsampling (pooling or a "
                   "strided Slice), or two strided convolutions.";
        if (reason.find("pad") != std::string::npos)
            return "Move the excess padding into a separate Pad before the convolution.";
        if (reason.find("dilation") != std::string::npos)
            return "Reduce the dilation, or rewrite the dilated convolution as space-to-depth + convolution.";
        return "Split the tensor into parts within the limit (Split/Slice), run " + op +
               " on each and Concat the results, or reshape so the limited dimension is smaller.";
    }
    return "Replace " + op + " with an equivalent sequence of NPU ops (" + citeVendorGuide("5.2.4.1") +
           ": e.g. data rearrangements as a Conv with 0/1 weights), or move it out of the model into "
           "pre/post-processing.";
}

class CpuFallbackRule final : public Rule {
public:
    std::string name() const override { return "cpu-fallback"; }
    std::string description() const override {
        return "Ops that fall back to the CPU on this chip (not on the NPU op list, dtype, or a limit exceeded)";
    }
    std::vector<Finding> check(const AdviceContext& c) const override {
        std::vector<Finding> out;
        std::vector<PassHit> hits;
        bool scanned = false;
        for (size_t i = 0; i < c.layers.size(); ++i) {
            const PlannedLayer& layer = c.layers[i];
            if (!layer.npuOp.empty()) continue;
            if (!scanned) hits = scanPasses(c), scanned = true;
            const LayerRow& row = c.estimate.layers[i];
            const NodeShapes& a = *layer.nodes.front();
            double npuUs = npuTimeUs(c, i);
            Finding f;
            f.nodes = layerNodeIds(layer);
            f.hazard = "'" + f.nodes[0] + "' (" + a.node->opType + ") runs on the CPU: " + layer.cpuReason;
            f.evidence = {evidence("CPU time", row.timeUs, "us"), evidence("NPU time if supported", npuUs, "us"),
                          evidence("share of model time", row.timePercent, "%")};
            f.estimatedGainUs = std::max(0.0, row.timeUs - npuUs);
            f.severity = maxSeverity("medium", severityForGain(f.estimatedGainUs, totalUs(c)));
            f.mitigation = mitigationFor(a.node->opType, layer.cpuReason);
            if (a.node->opType.rfind("Global", 0) == 0 && layer.cpuReason.find("limit exceeded") != std::string::npos)
                if (std::string staged = globalPoolMitigation(c, layer, a.node->opType); !staged.empty())
                    f.mitigation = staged;
            f.guideSection = "5.2.2.3";
            if (const PassHit* fix = passFixing(hits, f.nodes[0])) {
                f.pass = fix->pass;
                f.passAnchor = fix->match.nodes.front();  // the match may start before this layer's node
                f.mitigation = "Apply " + fix->pass + ": " + fix->match.explanation + ". " + f.mitigation;
            }
            out.push_back(std::move(f));
        }
        return out;
    }
};

NPUWB_RULE(CpuFallbackRule);

}  // namespace
}  // namespace npuwb::advisor
