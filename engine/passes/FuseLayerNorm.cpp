// fuse_layernorm (RKNN SDK user guide V2.5.0, 5.2.5.3): the decomposed layer normalization exporters emit becomes one
// ONNX LayerNormalization (opset 17+; the Optimizer runs upgrade_opset first for older models). Near misses name the
// connection or constant that breaks the pattern. Over the last axis only the axis must be known, not the sizes:
// LayerNormalization(axis=-1) takes its size from gamma/beta when the (dynamic) input's is unknown.
//   before: x -> ReduceMean -> Sub(x, mean) = d -> Pow(d, 2) -> ReduceMean -> Add(eps) -> Sqrt -> Div(d, .)
//             [-> Mul(gamma) -> Add(beta)] -> y
//   after:  x -> LayerNormalization(gamma, beta, axis, epsilon) -> y
#include <algorithm>

#include "passes/PatternPass.h"

namespace npuwb::passes {
namespace {

/// The other operand of binary `n` when one operand is `v`, else "".
std::string otherOperand(const Node& n, const std::string& v) {
    if (n.inputs.size() != 2) return "";
    if (n.inputs[0] == v) return n.inputs[1];
    if (n.inputs[1] == v) return n.inputs[0];
    return "";
}

class FuseLayerNorm final : public PatternPass {
public:
    std::string name() const override { return "fuse_layernorm"; }
    std::string guideSection() const override { return "5.2.5.3"; }
    std::string description() const override {
        return "Replaces ReduceMean+Sub+Pow+ReduceMean+Add+Sqrt+Div(+Mul+Add) with one LayerNormalization";
    }
    void configure(const PassConfig& config) override { opset_ = config.opset; }
    int64_t requiredOpset() const override { return kLayerNormOpset; }

protected:
    struct Found {
        std::vector<std::string> nodes;
        std::string x, gamma, beta, out;
        int64_t axis = -1;  // negative when the input's rank is unknown
        Shape normShape;    // the normalized (trailing) dims: the shape of scale and bias
        float eps = 0;
    };

    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& r1) const override {
        Found f;
        std::string why = find(graph, index, r1, f);
        if (why == "-") return std::nullopt;
        const std::string what = "LayerNorm subgraph of " + std::to_string(f.nodes.size()) + " nodes as LayerNormalization";
        if (!why.empty()) return nearMiss(f.nodes, what, why);
        if (opset_ < kLayerNormOpset)
            return nearMiss(f.nodes, what, "LayerNormalization needs opset 17; the model imports opset " +
                                               std::to_string(opset_));
        return hit(f.nodes, what);
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        Found f;
        {
            GraphIndex index(graph);
            if (!find(graph, index, *index.node(match.nodes[0]), f).empty()) return false;
        }
        auto constantFor = [&](const std::string& v, float fill, const std::string& base) {
            Tensor t(DType::F32, f.normShape);
            if (v.empty()) {
                for (auto& e : t.values<float>()) e = fill;
            } else {
                auto src = constantOf(graph, v)->toFloatVector();
                auto dst = t.values<float>();
                for (size_t i = 0; i < dst.size(); ++i) dst[i] = src[src.size() == 1 ? 0 : i];
            }
            return addConstant(graph, base, t);
        };
        std::string g = constantFor(f.gamma, 1.0f, match.nodes[0] + "_ln_scale");
        std::string b = constantFor(f.beta, 0.0f, match.nodes[0] + "_ln_bias");
        Node ln = makeNode(graph, "LayerNormalization", {f.x, g, b}, {f.out}, match.nodes[0] + "_layernorm");
        ln.attributes["axis"] = Attribute::ofInt(f.axis);
        ln.attributes["epsilon"] = Attribute::ofFloat(f.eps);
        removeNodes(graph, {match.nodes.begin(), match.nodes.end()});
        graph.nodes.push_back(ln);
        return true;
    }

private:
    std::vector<int64_t> axesOf(const Graph& graph, const Node& n) const {
        if (n.hasAttribute("axes")) return n.attrInts("axes");
        if (n.inputs.size() > 1 && !n.inputs[1].empty())
            if (auto v = constantInts(graph, n.inputs[1])) return *v;
        return {};
    }

    /// LayerNormalization's `axis` when the reduced axes are the trailing ones: non-negative when x's rank is
    /// known, else (all axes negative, ending at -1) the most negative one.
    static std::optional<int64_t> trailingAxis(const Graph& graph, const std::string& x, std::vector<int64_t> axes) {
        const ValueInfo* vi = graph.findValueInfo(x);
        bool rankKnown = vi && vi->type.shape;
        auto rank = rankKnown ? static_cast<int64_t>(vi->type.shape->size()) : 0;
        for (auto& a : axes) {
            if (a >= 0 && !rankKnown) return std::nullopt;
            a = a < 0 && rankKnown ? a + rank : a;
        }
        std::sort(axes.begin(), axes.end());
        int64_t end = rankKnown ? rank : 0;  // one past the last axis
        for (size_t i = 0; i < axes.size(); ++i)
            if (axes[i] != end - static_cast<int64_t>(axes.size() - i) || (rankKnown && axes[i] < 0))
                return std::nullopt;
        return axes.front();
    }

    /// x's dims from `axis` on when all are known.
    static std::optional<Shape> knownTrailingDims(const Graph& graph, const std::string& x, int64_t axis) {
        const ValueInfo* vi = graph.findValueInfo(x);
        if (!vi || !vi->type.shape || axis < 0) return std::nullopt;
        Shape dims;
        for (size_t i = static_cast<size_t>(axis); i < vi->type.shape->size(); ++i) {
            const Dim& d = (*vi->type.shape)[i];
            if (!d.known()) return std::nullopt;
            dims.push_back(d.value);
        }
        return dims;
    }

    static Shape withoutLeadingOnes(const Shape& s) {
        auto first = std::find_if(s.begin(), s.end(), [](int64_t d) { return d != 1; });
        return Shape(first, s.end());
    }

    /// "" when `r1` starts a full match; "-" when it is no LayerNorm at all; otherwise the reason it breaks.
    std::string find(const Graph& graph, const GraphIndex& index, const Node& r1, Found& f) const {
        if (r1.opType != "ReduceMean" || r1.inputs.empty()) return "-";
        f.x = r1.inputs[0];
        const Node* sub = index.singleConsumer(r1.outputs[0]);
        if (!sub || sub->opType != "Sub" || sub->inputs.size() != 2 || sub->inputs[0] != f.x ||
            sub->inputs[1] != r1.outputs[0])
            return "-";
        f.nodes = {r1.name, sub->name};
        const std::string d = sub->outputs[0];
        const Node *pow = nullptr, *div = nullptr;
        for (const Node* c : index.consumers(d)) {
            if (c->opType == "Pow" && c->inputs[0] == d) pow = c;
            else if (c->opType == "Div" && c->inputs[0] == d) div = c;
        }
        if (!pow) return "the centred value x - mean is not squared by a Pow";
        f.nodes.push_back(pow->name);
        if (!constantAllEqual(graph, pow->inputs[1], 2.0)) return "the Pow exponent is not the constant 2";
        if (!div) return "the centred value is not divided by the standard deviation";
        if (index.consumers(d).size() != 2 || index.isGraphOutput(d))
            return "x - mean is also read by other nodes (deviating connection)";
        const Node* r2 = index.singleConsumer(pow->outputs[0]);
        if (!r2 || r2->opType != "ReduceMean") return "the squared value is not averaged by one ReduceMean";
        f.nodes.push_back(r2->name);
        auto axes = axesOf(graph, r1);
        if (axes.empty() || axes != axesOf(graph, *r2)) return "the two ReduceMeans do not use the same explicit axes";
        if (r1.attrInt("keepdims", 1) != 1 || r2->attrInt("keepdims", 1) != 1) return "a ReduceMean drops its axes";
        const Node* add = index.singleConsumer(r2->outputs[0]);
        if (!add || add->opType != "Add") return "the variance is not followed by Add(epsilon)";
        f.nodes.push_back(add->name);
        const Tensor* eps = constantOf(graph, otherOperand(*add, r2->outputs[0]));
        if (!eps || eps->numel() != 1) return "epsilon is not a scalar constant";
        f.eps = static_cast<float>(eps->elementAsDouble(0));
        const Node* sqrt = index.singleConsumer(add->outputs[0]);
        if (!sqrt || sqrt->opType != "Sqrt") return "variance + epsilon is not followed by Sqrt";
        f.nodes.push_back(sqrt->name);
        if (!index.hasSingleUse(sqrt->outputs[0]) || div->inputs[1] != sqrt->outputs[0])
            return "the Div does not divide by the Sqrt alone (deviating connection)";
        f.nodes.push_back(div->name);
        f.out = div->outputs[0];
        // Axes must be the trailing dimensions, which LayerNormalization's single `axis` expresses.
        auto axis = trailingAxis(graph, f.x, axes);
        if (!axis)
            return "the reduced axes are not the trailing dimensions (or are positive on an input of unknown rank)";
        f.axis = *axis;
        const ValueInfo* xvi = graph.findValueInfo(f.x);
        const int64_t xRank = xvi && xvi->type.shape ? static_cast<int64_t>(xvi->type.shape->size()) : -1;
        // gamma/beta must broadcast over the normalized dims only, never widen the result.
        auto affineConstant = [&](const std::string& v) -> const Tensor* {
            const Tensor* t = constantOf(graph, v);
            bool fits = t && t->dtype() == DType::F32 && static_cast<int64_t>(t->rank()) <= (xRank >= 0 ? xRank : 1);
            return fits ? t : nullptr;
        };
        const Node* mul = index.singleConsumer(f.out);
        const Tensor* gammaT = mul && mul->opType == "Mul" ? affineConstant(otherOperand(*mul, f.out)) : nullptr;
        const Node* badd = gammaT ? index.singleConsumer(mul->outputs[0]) : nullptr;
        const Tensor* betaT =
            badd && badd->opType == "Add" ? affineConstant(otherOperand(*badd, mul->outputs[0])) : nullptr;
        // The normalized shape: from x when known, else (one axis) the size gamma or beta carries.
        if (auto known = knownTrailingDims(graph, f.x, f.axis)) {
            f.normShape = *known;
        } else if (axes.size() == 1) {
            // Only a constant that will be fused may size it: gamma, or beta behind a scalar gamma.
            const Tensor* sizer = gammaT && gammaT->numel() > 1 ? gammaT : (gammaT ? betaT : nullptr);
            if (sizer && sizer->numel() > 1 && withoutLeadingOnes(sizer->shape()).size() == 1)
                f.normShape = {sizer->numel()};
            if (f.normShape.empty())
                return "the normalized dimension's size is unknown and no per-channel gamma/beta gives it";
        } else {
            return "the normalized (trailing) dimensions are not static";
        }
        auto fitsNorm = [&](const Tensor* t) {
            return t && (t->numel() == 1 || withoutLeadingOnes(t->shape()) == withoutLeadingOnes(f.normShape));
        };
        // Optional affine part.
        if (fitsNorm(gammaT)) {
            f.gamma = otherOperand(*mul, f.out);
            f.nodes.push_back(mul->name);
            f.out = mul->outputs[0];
            if (fitsNorm(betaT)) {
                f.beta = otherOperand(*badd, f.out);
                f.nodes.push_back(badd->name);
                f.out = badd->outputs[0];
            }
        }
        return "";
    }

    static constexpr int64_t kLayerNormOpset = 17;
    int64_t opset_ = 13;
};

NPUWB_PASS(FuseLayerNorm);

}  // namespace
}  // namespace npuwb::passes
