// fuse_hardswish: exporters (Paddle2ONNX, old PyTorch opsets) spell HardSwish as x * Clip(x + 3, 0, 6) / 6. Four
// element-wise nodes cost four NPU passes over the tensor and, once quantized, four roundings; one activation
// node fuses with the Conv before it. Opset >= 14 gets HardSwish, older models HardSigmoid(1/6, 0.5) * x.
//   before: x -> Add(3) -> Clip(0, 6) -> c ; Mul(x, c) -> Div(6) -> y      (or Mul(x, Div(c, 6)), or * 1/6)
//   after:  x -> HardSwish -> y                                            (opset < 14: HardSigmoid, Mul(x, .))
#include <cmath>

#include "passes/PatternPass.h"

namespace npuwb::passes {
namespace {

/// True when `value` is a float constant whose every element is `v` (to float precision).
bool isScalarConstant(const Graph& graph, const std::string& value, double v) {
    const Tensor* t = constantOf(graph, value);
    if (!t || t->dtype() != DType::F32 || t->numel() == 0) return false;
    for (float f : t->toFloatVector())
        if (std::abs(f - v) > 1e-6 * std::max(1.0, std::abs(v))) return false;
    return true;
}

/// The other input of a binary node whose one input is the constant `v`, else "".
std::string otherThanConstant(const Graph& graph, const Node& n, double v) {
    if (n.inputs.size() != 2) return "";
    if (isScalarConstant(graph, n.inputs[1], v)) return n.inputs[0];
    if (n.opType != "Div" && isScalarConstant(graph, n.inputs[0], v)) return n.inputs[1];
    return "";
}

class FuseHardSwish final : public PatternPass {
public:
    std::string name() const override { return "fuse_hardswish"; }
    std::string description() const override {
        return "Replaces x * Clip(x + 3, 0, 6) / 6 (HardSwish spelled out by exporters) with one HardSwish "
               "(HardSigmoid + Mul before opset 14)";
    }
    void configure(const PassConfig& config) override { opset_ = config.opset; }

protected:
    // Anchor: the node that produces y (the final Div/Mul by 6 or 1/6, or the Mul by x of c/6).
    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& last) const override {
        if (last.opType != "Div" && last.opType != "Mul") return std::nullopt;
        std::vector<std::string> nodes{last.name};
        std::string x, clipOut;
        // Form 1: (x * c) / 6 or (x * c) * (1/6).
        const std::string product = last.opType == "Div" ? otherThanConstant(graph, last, 6.0)
                                                         : otherThanConstant(graph, last, 1.0 / 6.0);
        if (!product.empty()) {
            const Node* mul = index.producer(product);
            if (!mul || mul->opType != "Mul" || mul->inputs.size() != 2 || !index.hasSingleUse(product))
                return std::nullopt;
            nodes.push_back(mul->name);
            for (int i = 0; i < 2 && x.empty(); ++i)
                if (clipOf(graph, index, mul->inputs[static_cast<size_t>(i)], mul->inputs[static_cast<size_t>(1 - i)]))
                    x = mul->inputs[static_cast<size_t>(1 - i)], clipOut = mul->inputs[static_cast<size_t>(i)];
        } else if (last.opType == "Mul" && last.inputs.size() == 2) {
            // Form 2: x * (c / 6) or x * (c * 1/6).
            for (int i = 0; i < 2 && x.empty(); ++i) {
                const Node* scale = index.producer(last.inputs[static_cast<size_t>(i)]);
                if (!scale || !index.hasSingleUse(scale->outputs[0])) continue;
                const std::string c = scale->opType == "Div"   ? otherThanConstant(graph, *scale, 6.0)
                                      : scale->opType == "Mul" ? otherThanConstant(graph, *scale, 1.0 / 6.0)
                                                               : "";
                if (c.empty() || !clipOf(graph, index, c, last.inputs[static_cast<size_t>(1 - i)])) continue;
                nodes.push_back(scale->name);
                x = last.inputs[static_cast<size_t>(1 - i)], clipOut = c;
            }
        }
        if (x.empty()) return std::nullopt;
        const Node* clip = index.producer(clipOut);
        const Node* add = index.producer(clip->inputs[0]);
        nodes.push_back(clip->name);
        nodes.push_back(add->name);
        const std::string what = "HardSwish of '" + x + "' spelled out in " + std::to_string(nodes.size()) + " nodes";
        if (!index.hasSingleUse(clipOut) || !index.hasSingleUse(add->outputs[0]))
            return nearMiss(nodes, what, "an intermediate value is also read elsewhere");
        return hit(nodes, what);
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        GraphIndex index(graph);
        const Node* last = index.node(match.nodes[0]);
        const Node* add = index.node(match.nodes.back());
        if (!last || !add) return false;
        const std::string y = last->outputs[0];
        std::string x;
        for (const auto& in : add->inputs)
            if (!isScalarConstant(graph, in, 3.0)) x = in;
        if (x.empty()) return false;
        std::vector<Node> added;
        if (opset_ >= 14) {
            added.push_back(makeNode(graph, "HardSwish", {x}, {y}, x + "_hardswish"));
        } else {
            const std::string gate = freshName(graph, x + "_hardsigmoid");
            Node hs = makeNode(graph, "HardSigmoid", {x}, {gate}, x + "_hardsigmoid");
            hs.attributes["alpha"] = Attribute::ofFloat(1.0f / 6.0f);
            hs.attributes["beta"] = Attribute::ofFloat(0.5f);
            added.push_back(hs);
            added.push_back(makeNode(graph, "Mul", {x, gate}, {y}, x + "_hardswish"));
        }
        removeNodes(graph, std::set<std::string>(match.nodes.begin(), match.nodes.end()));
        for (auto& n : added) graph.nodes.push_back(std::move(n));
        sortTopologically(graph);
        pruneUnused(graph);
        return true;
    }

private:
    /// True when `c` = Clip(Add(x, 3), 0, 6) (bounds as attributes or constant inputs).
    bool clipOf(const Graph& graph, const GraphIndex& index, const std::string& c, const std::string& x) const {
        const Node* clip = index.producer(c);
        if (!clip || clip->opType != "Clip" || clip->inputs.empty()) return false;
        double lo = clip->attrFloat("min", -INFINITY), hi = clip->attrFloat("max", INFINITY);
        if (clip->inputs.size() > 1 && !clip->inputs[1].empty()) {
            if (!isScalarConstant(graph, clip->inputs[1], 0.0)) return false;
            lo = 0.0;
        }
        if (clip->inputs.size() > 2 && !clip->inputs[2].empty()) {
            if (!isScalarConstant(graph, clip->inputs[2], 6.0)) return false;
            hi = 6.0;
        }
        if (lo != 0.0 || std::abs(hi - 6.0) > 1e-6) return false;
        const Node* add = index.producer(clip->inputs[0]);
        return add && add->opType == "Add" && otherThanConstant(graph, *add, 3.0) == x;
    }

    int64_t opset_ = 13;
};

NPUWB_PASS(FuseHardSwish);

}  // namespace
}  // namespace npuwb::passes
