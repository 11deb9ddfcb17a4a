// conv-utilization (RKNN SDK user guide V2.5.0, 5.2.5.2): the guide's rules of thumb for a convolution's MAC
// utilization, one finding per rule a layer breaks. Gains come from the cost-model term behind the rule where there is
// one (few output pixels or channels leave array lanes idle; large filters are re-streamed from DDR when they do not
// fit the buffer); the rules without a term (many input channels, Ksize/Kstride) carry no gain.
#include <algorithm>
#include <functional>
#include <limits>

#include "advisor/RuleSupport.h"
#include "npuwb/VendorGuide.h"
#include "perfmodel/LayerCost.h"

namespace npuwb::advisor {
namespace {

constexpr int64_t kGoodInputChannels = 512;    // above this utilization declines
constexpr int64_t kFilterBytesLimit = 6 * 1024;  // KH*KW*KC*type_bytes below 6 KB is good
constexpr int64_t kSmallOutputPixels = 16;     // output H*W below this is poor

std::string severityForShare(double percent) { return percent >= 5.0 ? "medium" : "low"; }

class ConvUtilizationRule final : public Rule {
public:
    std::string name() const override { return "conv-utilization"; }
    std::string description() const override {
        return "Conv sizes that use the MAC array poorly (" + citeVendorGuide("5.2.5.2") +
               "): >512 input channels, filters >6 KB, Ksize/Kstride <= 1, output H*W < 16, fewer output channels "
               "than the array is wide";
    }
    std::vector<Finding> check(const AdviceContext& c) const override {
        std::vector<Finding> out;
        const NpuDTypeRates& r = adviceRates(c);
        for (size_t i = 0; i < c.layers.size(); ++i) {
            const PlannedLayer& layer = c.layers[i];
            if (!isConvLayer(layer) || layer.nodes.front()->node->opType != "Conv") continue;
            const LayerRow& row = c.estimate.layers[i];
            const ConvGeometry& g = layer.work.conv;
            const bool depthwise = isDepthwiseLayer(layer);
            const std::string id = nodeId(*layer.nodes.front()->node);
            auto add = [&](std::string what, std::vector<Evidence> ev, double gainUs, std::string mitigation) {
                Finding f;
                f.nodes = layerNodeIds(layer);
                f.hazard = "'" + id + "' (" + row.opType + "): " + what;
                f.evidence = std::move(ev);
                for (auto& e : layerEvidence(row)) f.evidence.push_back(e);
                f.estimatedGainUs = gainUs;
                f.severity = gainUs > 0 ? severityForGain(gainUs, totalUs(c)) : severityForShare(row.timePercent);
                f.mitigation = std::move(mitigation);
                f.guideSection = "5.2.5.2";
                out.push_back(std::move(f));
            };

            if (!depthwise && g.inChannelsPerGroup > kGoodInputChannels)
                add(std::to_string(g.inChannelsPerGroup) + " input channels (> 512): utilization declines",
                    {evidence("input channels", double(g.inChannelsPerGroup))}, 0.0,
                    "Reduce the input channels (a cheaper 1x1 bottleneck before it) or split them into groups; "
                    "below 256 is good.");

            const int64_t filterBytes = g.kernelH * g.kernelW * g.inChannelsPerGroup * r.bytes;
            if (!depthwise && filterBytes > kFilterBytesLimit) {
                ChipProfile roomy = c.chip;  // same layer with every weight fitting the buffer: no re-streaming
                roomy.bufferBytesPerCore = std::numeric_limits<int64_t>::max() / 4;
                double now = npuLayerCost(layer.work, c.chip, r, c.options.cores, c.chip.coefficients).timeUs;
                double fits = npuLayerCost(layer.work, roomy, r, c.options.cores, c.chip.coefficients).timeUs;
                add("filter KH*KW*KC*type_bytes = " + std::to_string(g.kernelH) + "*" + std::to_string(g.kernelW) + "*" +
                        std::to_string(g.inChannelsPerGroup) + "*" + std::to_string(r.bytes) + " = " +
                        num(double(filterBytes) / 1024.0) + " KB (> 6 KB)",
                    {evidence("filter bytes", double(filterBytes)), evidence("weights", double(layer.work.weightBytes) / 1024.0, "KB")},
                    std::max(0.0, now - fits),
                    "Keep each filter under 6 KB: fewer input channels per filter (groups) or a smaller kernel "
                    "(stack 3x3 instead of 5x5/7x7).");
            }

            const std::vector<int64_t> strides = layer.nodes.front()->node->attrInts("strides", {1, 1});
            const int64_t sh = strides.empty() ? 1 : strides[0], sw = strides.size() > 1 ? strides[1] : sh;
            const bool poorH = sh > 1 && g.kernelH <= sh, poorW = sw > 1 && g.kernelW <= sw;
            if (poorH || poorW)
                add("kernel " + std::to_string(g.kernelH) + "x" + std::to_string(g.kernelW) + " with stride " +
                        std::to_string(sh) + "x" + std::to_string(sw) + ": Ksize/Kstride <= 1",
                    {evidence("Ksize", double(poorH ? g.kernelH : g.kernelW)), evidence("Kstride", double(poorH ? sh : sw))},
                    0.0,
                    "Use a kernel larger than the stride (e.g. 3x3 stride 2 instead of 2x2/1x1 stride 2): larger "
                    "Ksize/Kstride uses the array better.");

            const int64_t hw = outputPixels(layer);
            const int64_t lanes = std::max(roundUp(hw, c.chip.hwAlign), c.chip.coefficients.minStripePixels);
            if (hw < kSmallOutputPixels && hw < lanes)
                add("output H*W = " + std::to_string(g.outH) + "x" + std::to_string(g.outW) + " = " + std::to_string(hw) +
                        " (< 16): the array computes " + std::to_string(lanes) + " pixels",
                    {evidence("output H*W", double(hw)), evidence("pixels computed", double(lanes))},
                    gainFromScaling(row, c.chip.clockMHz, double(hw) / double(lanes)),
                    "Avoid convolutions on tiny maps: merge parallel small-map layers into one, or express "
                    "squeeze-excitation style 1x1-map convs as one Gemm over the batch.");

            const int64_t outAlign = r.convOutputChannelAlign;
            const int64_t outPerGroup = g.outChannels / std::max<int64_t>(1, g.groups);
            if (!depthwise && outPerGroup < outAlign)
                add(std::to_string(outPerGroup) + " output channels per group, the array computes " +
                        std::to_string(outAlign),
                    {evidence("output channels", double(outPerGroup)), evidence("output alignment", double(outAlign))},
                    gainFromScaling(row, c.chip.clockMHz,
                                    double(outPerGroup) / double(roundUp(outPerGroup, r.atomicOutputChannels))),
                    "Give the layer at least " + std::to_string(outAlign) + " output channels (same time), or "
                    "concatenate parallel narrow convolutions that read the same input into one.");
        }
        return out;
    }
};

NPUWB_RULE(ConvUtilizationRule);

}  // namespace
}  // namespace npuwb::advisor
