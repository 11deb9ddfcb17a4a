// Per-layer time analysis (RKNN SDK user guide V2.5.0, 5.2.2.2 and 5.2.2.4):
//   bandwidth-bound      NPU layers whose DDR cycles exceed their compute cycles; the gain is the time spent
//                        waiting for memory beyond the compute time.
//   low-mac-utilization  time-heavy layers using the MAC array poorly; the gain is the time above what the same
//                        MACs take at the cost model's aligned-layer efficiency.
#include <algorithm>
#include <set>

#include "advisor/RuleSupport.h"

namespace npuwb::advisor {
namespace {

constexpr double kMinSharePercent = 1.0;       // bandwidth-bound: layers below this share are not worth a finding
constexpr double kHeavySharePercent = 2.0;     // low-mac-utilization: "time-heavy"
constexpr double kLowUsageOfAchievable = 0.5;  // usage below half of what aligned layers reach is "low"

bool channelsPaddedInMemory(const PlannedLayer& layer, int64_t c2) {
    for (const NodeShapes* ns : {layer.nodes.front(), layer.nodes.back()})
        for (const auto& shapes : {ns->inputs, ns->outputs})
            for (const Shape& s : shapes)
                if (s.size() == 4 && s[1] % c2 != 0) return true;
    return false;
}

class BandwidthBoundRule final : public Rule {
public:
    std::string name() const override { return "bandwidth-bound"; }
    std::string description() const override {
        return "NPU layers whose DDR cycles exceed their NPU (compute) cycles";
    }
    std::vector<Finding> check(const AdviceContext& c) const override {
        std::vector<Finding> out;
        const NpuDTypeRates& r = adviceRates(c);
        for (size_t i = 0; i < c.layers.size(); ++i) {
            const LayerRow& row = c.estimate.layers[i];
            if (c.layers[i].npuOp.empty() || !row.cyclesDdr || !row.cyclesNpu) continue;
            double ddr = double(*row.cyclesDdr), npu = double(*row.cyclesNpu);
            if (ddr <= npu || row.timePercent < kMinSharePercent) continue;
            const PlannedLayer& layer = c.layers[i];
            Finding f;
            f.nodes = layerNodeIds(layer);
            f.hazard = "'" + f.nodes[0] + "' (" + row.opType + ") is bandwidth-bound: " + num(ddr) + " DDR cycles vs " +
                       num(npu) + " NPU cycles for " + num(row.rwKB()) + " KB moved";
            f.evidence = {evidence("DDR/NPU cycles", npu > 0 ? ddr / npu : 0.0), evidence("RW", row.rwKB(), "KB")};
            for (auto& e : layerEvidence(row)) f.evidence.push_back(e);
            f.estimatedGainUs = gainFromScaling(row, c.chip.clockMHz, 1.0, ddr > 0 ? npu / ddr : 1.0);
            f.severity = severityForGain(f.estimatedGainUs, totalUs(c));
            f.guideSection = "5.2.2.4";
            std::string m;
            if (c.options.dtype != "int8") m += "Quantize to int8 (half the bytes). ";
            static const std::set<std::string> weighted = {"Conv", "ConvTranspose", "Gemm", "MatMul"};
            if (!weighted.count(layer.nodes.front()->node->opType))
                m += "Fuse it into the producing convolution (the chip fuses Conv with Add/Relu/Clip/Sigmoid/...) or "
                     "remove it: a separate elementwise layer writes and re-reads its whole tensor. ";
            else
                m += "Move fewer bytes: fewer channels on large maps, weights that fit the on-chip buffer, neighbours "
                     "fused so the tensor stays on chip. ";
            if (channelsPaddedInMemory(layer, r.c2))
                m += "Channels that are multiples of " + std::to_string(r.c2) +
                     " avoid the padding activations get in memory (NC1HWC2).";
            while (!m.empty() && m.back() == ' ') m.pop_back();
            f.mitigation = m;
            out.push_back(std::move(f));
        }
        return out;
    }
};

class LowMacUtilizationRule final : public Rule {
public:
    std::string name() const override { return "low-mac-utilization"; }
    std::string description() const override {
        return "Time-heavy layers (>= 2% of the model) whose MAC usage is below half of what aligned layers reach";
    }
    std::vector<Finding> check(const AdviceContext& c) const override {
        std::vector<Finding> out;
        const NpuDTypeRates& r = adviceRates(c);
        const double efficiency = c.chip.coefficients.computeEfficiency;
        for (size_t i = 0; i < c.layers.size(); ++i) {
            const PlannedLayer& layer = c.layers[i];
            const LayerRow& row = c.estimate.layers[i];
            if (!isConvLayer(layer) || !row.macUsagePercent || !row.cyclesNpu || row.macs <= 0) continue;
            // A depthwise conv reduces over one channel, so one of atomicInputChannels lanes is all it can use.
            const bool depthwise = isDepthwiseLayer(layer);
            const double achievable = efficiency / (depthwise ? double(r.atomicInputChannels) : 1.0);
            if (row.timePercent < kHeavySharePercent || *row.macUsagePercent >= 100.0 * achievable * kLowUsageOfAchievable)
                continue;
            int64_t cores = layer.work.splitsAcrossCores ? std::max(1, c.options.cores) : 1;
            double idealNpu = double(row.macs) / (double(r.macsPerCycle) * achievable * double(cores));
            double npu = double(*row.cyclesNpu);
            bool ddrBound = row.cyclesDdr && double(*row.cyclesDdr) > npu;
            Finding f;
            f.nodes = layerNodeIds(layer);
            f.hazard = "'" + f.nodes[0] + "' (" + row.opType + ") takes " + num(row.timePercent) + "% of the time at " +
                       num(*row.macUsagePercent) + "% MAC usage (" + (ddrBound ? "bandwidth" : "compute") + "-bound)";
            f.evidence = {evidence("achievable MAC usage", 100.0 * achievable, "%"), evidence("MACs", double(row.macs))};
            for (auto& e : layerEvidence(row)) f.evidence.push_back(e);
            f.estimatedGainUs = npu > 0 ? gainFromScaling(row, c.chip.clockMHz, std::min(1.0, idealNpu / npu)) : 0.0;
            f.severity = maxSeverity(row.timePercent >= 5.0 ? "medium" : "low", severityForGain(f.estimatedGainUs, totalUs(c)));
            f.guideSection = "5.2.2.2";
            f.mitigation = depthwise ? "Depthwise convolutions use one input lane of the array: merge it with the "
                                       "following 1x1 conv into a dense conv where the MACs allow, or give it aligned "
                                       "channels and larger maps."
                         : ddrBound ? "The layer waits for DDR: see its bandwidth-bound finding (bytes moved, fusion)."
                                    : "Reshape the layer for the array: aligned channels, kernel larger than stride, "
                                      "more output pixels per pass (see its channel-alignment/conv-utilization findings).";
            out.push_back(std::move(f));
        }
        return out;
    }
};

NPUWB_RULE(BandwidthBoundRule);
NPUWB_RULE(LowMacUtilizationRule);

}  // namespace
}  // namespace npuwb::advisor
