// fuse_layernorm (seed 5.2.5.3): the decomposed layer normalization exporters emit becomes one ONNX
// LayerNormalization (opset 17+). Near misses name the connection or constant that breaks the pattern.
//   before: x -> ReduceMean -> Sub(x, mean) = d -> Pow(d, 2) -> ReduceMean -> Add(eps) -> Sqrt -> Div(d, .)
//             [-> Mul(gamma) -> Add(beta)] -> y
//   after:  x -> LayerNormalization(gamma, beta, axis, epsilon) -> y
#include <algorithm>
#include <functional>
#include <numeric>

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
    std::string seedReference() const override { return "5.2.5.3"; }
    std::string description() const override {
        return "Replaces ReduceMean+Sub+Pow+ReduceMean+Add+Sqrt+Div(+Mul+Add) with one LayerNormalization";
    }
    void configure(const PassConfig& config) override { opset_ = config.opset; }

protected:
    struct Found {
        std::vector<std::string> nodes;
        std::string x, gamma, beta, out;
        int64_t axis = -1;
        float eps = 0;
    };

    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& r1) const override {
        Found f;
        std::string why = find(graph, index, r1, f);
        if (why == "-") return std::nullopt;
        const std::string what = "LayerNorm subgraph of " + std::to_string(f.nodes.size()) + " nodes as LayerNormalization";
        if (!why.empty()) return nearMiss(f.nodes, what, why);
        if (opset_ < 17)
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
        std::vector<int64_t> axes = axesOf(graph, *findNode(graph, match.nodes[0]));
        Shape xs = *trailingShape(graph, f.x, axes);
        Shape normShape(xs.begin() + f.axis, xs.end());
        auto constantFor = [&](const std::string& v, float fill, const std::string& base) {
            Tensor t(DType::F32, normShape);
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
        ln.attributes["axis"] = intAttr(f.axis);
        ln.attributes["epsilon"] = floatAttr(f.eps);
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

    /// The input shape with the reduced axes normalized (sorted, non-negative) when they are the trailing ones and
    /// known; leading dims may be symbolic (-1).
    static std::optional<Shape> trailingShape(const Graph& graph, const std::string& x, std::vector<int64_t>& axes) {
        const ValueInfo* vi = graph.findValueInfo(x);
        if (!vi || !vi->type.shape) return std::nullopt;
        auto rank = static_cast<int64_t>(vi->type.shape->size());
        for (auto& a : axes) a = a < 0 ? a + rank : a;
        std::sort(axes.begin(), axes.end());
        for (size_t i = 0; i < axes.size(); ++i)
            if (axes[i] != rank - static_cast<int64_t>(axes.size() - i)) return std::nullopt;
        Shape shape;
        for (int64_t i = 0; i < rank; ++i) {
            const Dim& d = (*vi->type.shape)[static_cast<size_t>(i)];
            if (i >= axes.front() && !d.known()) return std::nullopt;
            shape.push_back(d.known() ? d.value : -1);
        }
        return shape;
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
        auto shape = trailingShape(graph, f.x, axes);
        if (!shape) return "the normalized (trailing) dimensions are not static";
        f.axis = axes.front();
        int64_t normCount = std::accumulate(shape->begin() + f.axis, shape->end(), int64_t{1}, std::multiplies<>());
        auto fitsNorm = [&](const std::string& v) {
            const Tensor* t = constantOf(graph, v);
            return t && t->dtype() == DType::F32 && (t->numel() == 1 || t->numel() == normCount) &&
                   (t->rank() <= 1 || t->shape().back() == shape->back() || t->numel() == 1);
        };
        // Optional affine part.
        const Node* mul = index.singleConsumer(f.out);
        if (mul && mul->opType == "Mul" && fitsNorm(otherOperand(*mul, f.out))) {
            f.gamma = otherOperand(*mul, f.out);
            f.nodes.push_back(mul->name);
            f.out = mul->outputs[0];
            const Node* badd = index.singleConsumer(f.out);
            if (badd && badd->opType == "Add" && fitsNorm(otherOperand(*badd, f.out))) {
                f.beta = otherOperand(*badd, f.out);
                f.nodes.push_back(badd->name);
                f.out = badd->outputs[0];
            }
        }
        return "";
    }

    int64_t opset_ = 13;
};

NPUWB_PASS(FuseLayerNorm);

}  // namespace
}  // namespace npuwb::passes
