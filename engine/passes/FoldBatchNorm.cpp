// fold_batchnorm: an inference BatchNormalization after a Conv or Gemm with constant weights is folded into
// that node's weights and bias: s = gamma / sqrt(var + eps), W' = W * s (per output channel),
// B' = (B - mean) * s + beta.
//   before: x -> Conv(W, B) -> BatchNormalization(gamma, beta, mean, var) -> y
//   after:  x -> Conv(W', B') -> y
#include <cmath>

#include "passes/PatternPass.h"

namespace npuwb::passes {
namespace {

std::vector<float> floatsOf(const Graph& g, const std::string& v) {
    const Tensor* t = constantOf(g, v);
    return t && t->dtype() == DType::F32 ? t->toFloatVector() : std::vector<float>{};
}

class FoldBatchNorm final : public PatternPass {
public:
    std::string name() const override { return "fold_batchnorm"; }
    std::string description() const override {
        return "Folds an inference BatchNormalization into the weights and bias of the Conv or Gemm before it";
    }

protected:
    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& bn) const override {
        if (bn.opType != "BatchNormalization" || bn.inputs.size() < 5) return std::nullopt;
        std::string what = "BatchNormalization folded into the node before it";
        const Node* p = index.producer(bn.inputs[0]);
        if (!p || (p->opType != "Conv" && p->opType != "Gemm"))
            return nearMiss({bn.name}, what, "its input is not produced by a Conv or Gemm");
        what = "BatchNormalization folded into " + p->label();
        if (!index.hasSingleUse(bn.inputs[0]))
            return nearMiss({bn.name, p->name}, what, p->label() + "'s output is also read elsewhere");
        if (bn.attrInt("training_mode", 0) != 0) return nearMiss({bn.name, p->name}, what, "training_mode is set");
        for (size_t i = 1; i < bn.outputs.size(); ++i)
            if (!bn.outputs[i].empty() && !index.consumers(bn.outputs[i]).empty())
                return nearMiss({bn.name, p->name}, what, "its running statistics outputs are read");
        int64_t channels = static_cast<int64_t>(floatsOf(graph, bn.inputs[1]).size());
        for (size_t i = 1; i < 5; ++i)
            if (static_cast<int64_t>(floatsOf(graph, bn.inputs[i]).size()) != channels || channels == 0)
                return nearMiss({bn.name, p->name}, what, "its parameters are not float constants of one length");
        const Tensor* w = p->inputs.size() > 1 ? constantOf(graph, p->inputs[1]) : nullptr;
        if (!w || w->dtype() != DType::F32) return nearMiss({bn.name, p->name}, what, "the weights are not float constants");
        if (p->inputs.size() > 2 && !p->inputs[2].empty()) {
            const Tensor* b = constantOf(graph, p->inputs[2]);
            if (!b || b->dtype() != DType::F32) return nearMiss({bn.name, p->name}, what, "the bias is not a float constant");
            if (p->opType == "Gemm" && b->numel() != 1 && b->numel() != channels)
                return nearMiss({bn.name, p->name}, what, "the Gemm bias is not per output column");
        }
        int64_t outChannels = p->opType == "Conv" ? w->dim(0) : w->dim(p->attrInt("transB", 0) ? 0 : 1);
        if (w->rank() < 2 || outChannels != channels)
            return nearMiss({bn.name, p->name}, what, "the channel counts do not agree");
        if (!canBypass(graph, index, bn.inputs[0], bn.outputs[0]))
            return nearMiss({bn.name, p->name}, what, "the output names cannot be kept");
        return hit({bn.name, p->name}, what);
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        Node bn = *findNode(graph, match.nodes[0]);
        Node& p = *findNode(graph, match.nodes[1]);
        auto gamma = floatsOf(graph, bn.inputs[1]), beta = floatsOf(graph, bn.inputs[2]);
        auto mean = floatsOf(graph, bn.inputs[3]), var = floatsOf(graph, bn.inputs[4]);
        float eps = bn.attrFloat("epsilon", 1e-5f);
        size_t c = gamma.size();
        std::vector<double> scale(c);
        for (size_t i = 0; i < c; ++i) scale[i] = gamma[i] / std::sqrt(static_cast<double>(var[i]) + eps);

        Tensor w = constantOf(graph, p.inputs[1])->clone();
        auto wv = w.values<float>();
        bool gemm = p.opType == "Gemm";
        bool transB = gemm && p.attrInt("transB", 0) != 0;
        double alpha = gemm ? p.attrFloat("alpha", 1.0f) : 1.0;
        double betaAttr = gemm ? p.attrFloat("beta", 1.0f) : 1.0;
        int64_t rows = w.dim(0), perRow = w.numel() / rows;
        for (int64_t i = 0; i < w.numel(); ++i) {
            int64_t ch = (gemm && !transB) ? i % perRow : i / perRow;
            wv[i] = static_cast<float>(wv[i] * scale[ch] * alpha);
        }
        std::vector<float> oldBias(c, 0.0f);
        if (p.inputs.size() > 2 && !p.inputs[2].empty()) {
            auto b = constantOf(graph, p.inputs[2])->toFloatVector();
            for (size_t i = 0; i < c; ++i) oldBias[i] = static_cast<float>(b[b.size() == 1 ? 0 : i] * betaAttr);
        }
        std::vector<float> bias(c);
        for (size_t i = 0; i < c; ++i) bias[i] = static_cast<float>((oldBias[i] - mean[i]) * scale[i] + beta[i]);
        std::string wName = addConstant(graph, p.inputs[1] + "_bnfolded", w);
        std::string bName = addConstant(graph, p.name + "_bias_bnfolded",
                                        Tensor::fromVector<float>({static_cast<int64_t>(c)}, bias));
        Node& prod = *findNode(graph, match.nodes[1]);
        prod.inputs.resize(3);
        prod.inputs[1] = wName;
        prod.inputs[2] = bName;
        if (gemm) {
            prod.attributes["alpha"] = Attribute::ofFloat(1.0f);
            prod.attributes["beta"] = Attribute::ofFloat(1.0f);
        }
        return bypassValue(graph, bn.name, bn.inputs[0], bn.outputs[0]);
    }
};

NPUWB_PASS(FoldBatchNorm);

}  // namespace
}  // namespace npuwb::passes
