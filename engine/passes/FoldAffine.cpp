// fold_affine: a constant scale or shift right after a Conv (Paddle's learnable affine blocks, BatchNorm exported
// as Mul + Add, normalisation constants) is folded into the Conv's weights and bias: one node less on the NPU, and
// one rounding less once quantized. The constant is a scalar or one value per output channel.
//   before: x -> Conv(W, B) -> Mul(s) -> y        x -> Conv(W, B) -> Add(t) -> y
//   after:  x -> Conv(W * s, B * s) -> y         x -> Conv(W, B + t) -> y
#include "passes/PatternPass.h"

namespace npuwb::passes {
namespace {

/// The constant operand of a Mul/Add read per output channel of a [N, C, ...] Conv output: its values expanded to
/// C entries, or empty when it is not a float scalar or per-channel constant.
std::vector<float> perChannel(const Graph& graph, const std::string& value, int64_t channels, size_t outputRank) {
    const Tensor* t = constantOf(graph, value);
    if (!t || t->dtype() != DType::F32 || t->rank() > outputRank) return {};
    std::vector<float> v = t->toFloatVector();
    if (v.size() == 1) return std::vector<float>(static_cast<size_t>(channels), v[0]);
    // Per channel: [C, 1, ..., 1] aligned to the output's dim 1 (rank counts from the back).
    const Shape& s = t->shape();
    if (static_cast<int64_t>(v.size()) != channels || s.size() + 1 < outputRank) return {};
    const size_t channelAxis = s.size() - (outputRank - 1);
    for (size_t i = 0; i < s.size(); ++i)
        if (i != channelAxis && s[i] != 1) return {};
    return v;
}

class FoldAffine final : public PatternPass {
public:
    std::string name() const override { return "fold_affine"; }
    std::string description() const override {
        return "Folds a constant scalar or per-channel Mul or Add after a Conv into the Conv's weights and bias";
    }

protected:
    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& op) const override {
        if ((op.opType != "Mul" && op.opType != "Add") || op.inputs.size() != 2) return std::nullopt;
        for (int i = 0; i < 2; ++i) {
            const Node* conv = index.producer(op.inputs[static_cast<size_t>(i)]);
            if (!conv || conv->opType != "Conv" || conv->inputs.size() < 2) continue;
            const std::string what = op.opType + " by a constant folded into " + conv->label();
            std::vector<std::string> nodes{op.name, conv->name};
            const Tensor* w = constantOf(graph, conv->inputs[1]);
            auto y = staticShape(graph, conv->outputs[0]);
            if (!w || w->dtype() != DType::F32 || !y || y->size() < 3) continue;
            if (perChannel(graph, op.inputs[static_cast<size_t>(1 - i)], w->dim(0), y->size()).empty()) continue;
            if (conv->inputs.size() > 2 && !conv->inputs[2].empty()) {
                const Tensor* b = constantOf(graph, conv->inputs[2]);
                if (!b || b->dtype() != DType::F32) return nearMiss(nodes, what, "the bias is not a float constant");
            }
            if (auto out = staticShape(graph, op.outputs[0]); !out || *out != *y)
                return nearMiss(nodes, what, "the constant broadcasts the Conv output to another shape");
            if (!index.hasSingleUse(conv->outputs[0]))
                return nearMiss(nodes, what, conv->label() + "'s output is also read elsewhere");
            if (!canBypass(graph, index, conv->outputs[0], op.outputs[0]))
                return nearMiss(nodes, what, "the output names cannot be kept");
            return hit(nodes, what);
        }
        return std::nullopt;
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        const Node op = *findNode(graph, match.nodes[0]);
        const Node conv = *findNode(graph, match.nodes[1]);
        const std::string& constant = op.inputs[0] == conv.outputs[0] ? op.inputs[1] : op.inputs[0];
        Tensor w = constantOf(graph, conv.inputs[1])->clone();
        const int64_t oc = w.dim(0), perRow = w.numel() / oc;
        auto y = staticShape(graph, conv.outputs[0]);
        if (!y) return false;
        std::vector<float> c = perChannel(graph, constant, oc, y->size());
        if (c.empty()) return false;
        std::vector<float> bias(static_cast<size_t>(oc), 0.0f);
        if (conv.inputs.size() > 2 && !conv.inputs[2].empty()) bias = constantOf(graph, conv.inputs[2])->toFloatVector();
        Node& prod = *findNode(graph, match.nodes[1]);
        if (op.opType == "Mul") {
            auto wv = w.values<float>();
            for (int64_t i = 0; i < w.numel(); ++i) wv[i] *= c[static_cast<size_t>(i / perRow)];
            for (int64_t o = 0; o < oc; ++o) bias[static_cast<size_t>(o)] *= c[static_cast<size_t>(o)];
            prod.inputs[1] = addConstant(graph, conv.inputs[1] + "_scaled", w);
        } else {
            for (int64_t o = 0; o < oc; ++o) bias[static_cast<size_t>(o)] += c[static_cast<size_t>(o)];
        }
        prod.inputs.resize(3);
        prod.inputs[2] = addConstant(graph, conv.name + "_bias_folded", Tensor::fromVector<float>({oc}, bias));
        return bypassValue(graph, op.name, conv.outputs[0], op.outputs[0]);
    }
};

NPUWB_PASS(FoldAffine);

}  // namespace
}  // namespace npuwb::passes
