// tall-narrow (RKNN SDK user guide V2.5.0, 5.2.5.1): at equal work a wider, shorter feature map reads and writes DDR
// more efficiently than a tall, narrow one. The cost model has no term for it, so the finding carries no time gain; its
// severity follows the share of the model's time spent in the affected layers.
#include "advisor/RuleSupport.h"

namespace npuwb::advisor {
namespace {

constexpr int64_t kTallRatio = 4;     // H at least this many times W
constexpr int64_t kNarrowWidth = 16;  // and W below one zero-copy row of pixels on the larger chips

class TallNarrowRule final : public Rule {
public:
    std::string name() const override { return "tall-narrow"; }
    std::string description() const override {
        return "Conv feature maps much taller than wide (H >= 4*W, W < 16): swap H and W for better DDR access";
    }
    std::vector<Finding> check(const AdviceContext& c) const override {
        std::vector<Finding> out;
        for (size_t i = 0; i < c.layers.size(); ++i) {
            const PlannedLayer& layer = c.layers[i];
            if (!isConvLayer(layer) || layer.nodes.front()->node->opType != "Conv") continue;
            const NodeShapes& a = *layer.nodes.front();
            if (a.inputs.empty() || a.inputs[0].size() != 4) continue;
            const Shape& in = a.inputs[0];
            int64_t h = in[2], w = in[3];
            if (w >= kNarrowWidth || h < kTallRatio * w) continue;
            const LayerRow& row = c.estimate.layers[i];
            Finding f;
            f.nodes = layerNodeIds(layer);
            f.hazard = "'" + f.nodes[0] + "' (" + row.opType + ") reads a tall, narrow " + std::to_string(h) + "x" +
                       std::to_string(w) + " feature map";
            f.evidence = {evidence("input H", double(h)), evidence("input W", double(w)),
                          evidence("H/W", double(h) / double(w))};
            for (auto& e : layerEvidence(row)) f.evidence.push_back(e);
            f.severity = row.timePercent >= 5.0 ? "medium" : "low";
            f.guideSection = "5.2.5.1";
            f.mitigation = "Swap H and W (transpose the input once and the kernels' KH/KW) so the long axis is the "
                           "width; the work stays the same, DDR access gets more efficient (gain not modelled).";
            out.push_back(std::move(f));
        }
        return out;
    }
};

NPUWB_RULE(TallNarrowRule);

}  // namespace
}  // namespace npuwb::advisor
