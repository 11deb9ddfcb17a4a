// channel-alignment and hw-alignment (RKNN SDK user guide V2.5.0, 5.2.5.1): the MAC array computes channels in blocks
// (input channels in blocks of atomicInputChannels, output channels of the chip's conv output alignment) and output
// pixels in multiples of hwAlign; the cost model charges the padded work, so the time lost to padding is the gain.
#include "advisor/PassScan.h"
#include "advisor/RuleSupport.h"
#include "perfmodel/LayerCost.h"

namespace npuwb::advisor {
namespace {

std::string dtypeOn(const AdviceContext& c) { return c.options.dtype + " on " + c.chip.name; }

class ChannelAlignmentRule final : public Rule {
public:
    std::string name() const override { return "channel-alignment"; }
    std::string description() const override {
        return "Conv input/output channels that are not multiples of the chip's channel alignment for the dtype";
    }
    std::vector<Finding> check(const AdviceContext& c) const override {
        std::vector<Finding> out;
        const NpuDTypeRates& r = adviceRates(c);
        std::vector<PassHit> hits = scanPasses(c);
        for (size_t i = 0; i < c.layers.size(); ++i) {
            const PlannedLayer& layer = c.layers[i];
            if (!isConvLayer(layer)) continue;
            const ConvGeometry& g = layer.work.conv;
            const int64_t outAlign = r.convOutputChannelAlign, inAlign = r.atomicInputChannels;
            const int64_t outPerGroup = isDepthwiseLayer(layer) ? g.outChannels : g.outChannels / std::max<int64_t>(1, g.groups);
            // Fewer output channels than one block is the "output channels" heuristic of conv-utilization.
            bool outMisaligned = outPerGroup >= outAlign && outPerGroup % outAlign != 0;
            bool inMisaligned = !isDepthwiseLayer(layer) && g.inChannelsPerGroup >= r.c2 && g.inChannelsPerGroup % inAlign != 0;
            if (!outMisaligned && !inMisaligned) continue;
            double keep = 1.0;
            // Documented alignment decides what is flagged; the gain is the padding the cost model charges
            // (output channels in blocks of atomicOutputChannels, which can be finer than the alignment).
            if (outMisaligned) keep *= double(outPerGroup) / double(roundUp(outPerGroup, r.atomicOutputChannels));
            if (inMisaligned) keep *= double(g.inChannelsPerGroup) / double(roundUp(g.inChannelsPerGroup, inAlign));
            const LayerRow& row = c.estimate.layers[i];
            Finding f;
            f.nodes = layerNodeIds(layer);
            std::string what;
            if (outMisaligned)
                what = "output channels " + std::to_string(outPerGroup) + " are computed as " +
                       std::to_string(roundUp(outPerGroup, outAlign)) + " (alignment " + std::to_string(outAlign) + ")";
            if (inMisaligned)
                what += std::string(what.empty() ? "" : ", ") + "input channels " + std::to_string(g.inChannelsPerGroup) +
                        " are reduced as " + std::to_string(roundUp(g.inChannelsPerGroup, inAlign)) + " (block " +
                        std::to_string(inAlign) + ")";
            f.hazard = "'" + f.nodes[0] + "' (" + row.opType + ", " + dtypeOn(c) + "): " + what;
            f.evidence = {evidence("output channels", double(outPerGroup)), evidence("output alignment", double(outAlign))};
            if (!isDepthwiseLayer(layer))
                for (auto& e : {evidence("input channels", double(g.inChannelsPerGroup)), evidence("input block", double(inAlign))})
                    f.evidence.push_back(e);
            f.evidence.push_back(evidence("useful MAC fraction", 100.0 * keep, "%"));
            for (auto& e : layerEvidence(row)) f.evidence.push_back(e);
            f.estimatedGainUs = gainFromScaling(row, c.chip.clockMHz, keep);
            f.severity = severityForGain(f.estimatedGainUs, totalUs(c));
            f.guideSection = "5.2.5.1";
            f.mitigation = "Choose channel counts that are multiples of the alignment (round down to save the padded "
                           "time, or up to use it for capacity at no cost).";
            if (outMisaligned)
                if (const PassHit* fix = passFixing(hits, f.nodes[0], "pad_channels"); fix && fix->match.nodes[0] == f.nodes[0]) {
                    f.pass = fix->pass;
                    f.passAnchor = fix->match.nodes[0];
                    f.mitigation += " pad_channels pads the filters with zeros so the runtime takes its aligned path "
                                    "(results unchanged; the padded MACs stay).";
                }
            out.push_back(std::move(f));
        }
        return out;
    }
};

class HwAlignmentRule final : public Rule {
public:
    std::string name() const override { return "hw-alignment"; }
    std::string description() const override {
        return "Conv outputs whose H*W is not a multiple of the chip's H*W alignment";
    }
    std::vector<Finding> check(const AdviceContext& c) const override {
        std::vector<Finding> out;
        const int64_t align = c.chip.hwAlign, stripe = c.chip.coefficients.minStripePixels;
        if (align <= 1) return out;
        for (size_t i = 0; i < c.layers.size(); ++i) {
            const PlannedLayer& layer = c.layers[i];
            if (!isConvLayer(layer) || layer.nodes.front()->node->opType != "Conv") continue;
            int64_t hw = outputPixels(layer);
            // Below the minimum stripe the stripe dominates: conv-utilization reports that (output H*W < 16).
            if (hw <= 1 || hw % align == 0 || hw < stripe) continue;
            const LayerRow& row = c.estimate.layers[i];
            double keep = double(hw) / double(roundUp(hw, align));
            Finding f;
            f.nodes = layerNodeIds(layer);
            f.hazard = "'" + f.nodes[0] + "' (" + row.opType + ") writes " + std::to_string(layer.work.conv.outH) + "x" +
                       std::to_string(layer.work.conv.outW) + " = " + std::to_string(hw) +
                       " pixels, not a multiple of " + std::to_string(align) + " (computed as " +
                       std::to_string(roundUp(hw, align)) + ")";
            f.evidence = {evidence("output H", double(layer.work.conv.outH)), evidence("output W", double(layer.work.conv.outW)),
                          evidence("H*W", double(hw)), evidence("H*W alignment", double(align))};
            for (auto& e : layerEvidence(row)) f.evidence.push_back(e);
            f.estimatedGainUs = gainFromScaling(row, c.chip.clockMHz, keep);
            f.severity = severityForGain(f.estimatedGainUs, totalUs(c));
            f.guideSection = "5.2.5.1";
            f.mitigation = "Pick an input resolution that keeps H*W a multiple of " + std::to_string(align) +
                           " at every stride (e.g. H and W multiples of 2^(number of stride-2 stages + 1)).";
            out.push_back(std::move(f));
        }
        return out;
    }
};

NPUWB_RULE(ChannelAlignmentRule);
NPUWB_RULE(HwAlignmentRule);

}  // namespace
}  // namespace npuwb::advisor
