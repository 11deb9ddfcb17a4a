// pad_channels (optional; RKNN SDK user guide V2.5.0, 5.2.5.1/5.2.5.2): a Conv whose output channel count is not a
// multiple of the chip's alignment gets zero filters up to the next multiple; the next Conv gets matching zero input
// weights, so the results are unchanged. Runs only when asked for with an alignment (--align N, e.g. 16 or 32).
//   before: x -> Conv(W1[24,..]) -> Relu -> Conv(W2[64,24,..]) -> y
//   after:  x -> Conv(W1'[32,..]) -> Relu -> Conv(W2'[64,32,..]) -> y      (align 16 or 32)
#include <set>

#include "passes/PatternPass.h"

namespace npuwb::passes {
namespace {

bool passesZerosThrough(const Graph& graph, const Node& n) {
    // The padded channels may hold any finite value: the next Conv's zero weights ignore them.
    static const std::set<std::string> ops = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Clip"};
    if (!n.domain.empty() || !ops.count(n.opType)) return false;
    for (size_t i = 1; i < n.inputs.size(); ++i)
        if (!n.inputs[i].empty() && (!constantOf(graph, n.inputs[i]) || constantOf(graph, n.inputs[i])->numel() != 1))
            return false;
    return true;
}

const Tensor* floatWeights(const Graph& graph, const Node& conv) {
    const Tensor* w = conv.inputs.size() > 1 ? constantOf(graph, conv.inputs[1]) : nullptr;
    return w && w->dtype() == DType::F32 && w->rank() >= 3 ? w : nullptr;
}

/// `t` with dimension `axis` grown to `size` by zeros.
Tensor padAxis(const Tensor& t, size_t axis, int64_t size) {
    Shape shape = t.shape();
    int64_t outer = 1, inner = 1;
    for (size_t i = 0; i < axis; ++i) outer *= shape[i];
    for (size_t i = axis + 1; i < shape.size(); ++i) inner *= shape[i];
    int64_t old = shape[axis];
    shape[axis] = size;
    Tensor out(DType::F32, shape);
    const float* src = t.data<float>();
    float* dst = out.data<float>();
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < old * inner; ++i) dst[o * size * inner + i] = src[o * old * inner + i];
    return out;
}

class PadChannels final : public PatternPass {
public:
    std::string name() const override { return "pad_channels"; }
    std::string guideSection() const override { return "5.2.5.1"; }
    std::string description() const override {
        return "Pads Conv output channels with zero filters up to the chip's channel alignment (optional; --align N)";
    }
    bool runsByDefault() const override { return false; }
    void configure(const PassConfig& config) override { align_ = config.channelAlign; }

protected:
    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& conv) const override {
        if (align_ <= 1 || conv.opType != "Conv" || conv.attrInt("group", 1) != 1) return std::nullopt;
        const Tensor* w = floatWeights(graph, conv);
        if (!w || w->dim(0) % align_ == 0) return std::nullopt;
        std::vector<std::string> names{conv.name};
        const std::string what = conv.label() + " output channels " + std::to_string(w->dim(0)) + " padded to " +
                                 std::to_string(padded(w->dim(0)));
        std::string v = conv.outputs[0];
        const Node* next = index.singleConsumer(v);
        while (next && passesZerosThrough(graph, *next)) {
            names.push_back(next->name);
            v = next->outputs[0];
            next = index.singleConsumer(v);
        }
        if (!next || next->opType != "Conv" || next->inputs[0] != v)
            return nearMiss(names, what, "the channels are read by something other than exactly one Conv");
        names.push_back(next->name);
        if (next->attrInt("group", 1) != 1 || !floatWeights(graph, *next))
            return nearMiss(names, what, next->label() + " is grouped or has non-constant weights");
        return hit(names, what);
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        Node& first = *findNode(graph, match.nodes.front());
        const Tensor w1 = *floatWeights(graph, first);
        int64_t c = padded(w1.dim(0));
        first.inputs[1] = addConstant(graph, first.inputs[1] + "_padded", padAxis(w1, 0, c));
        if (first.inputs.size() > 2 && !first.inputs[2].empty()) {
            Node& again = *findNode(graph, match.nodes.front());
            again.inputs[2] = addConstant(graph, again.inputs[2] + "_padded", padAxis(*constantOf(graph, again.inputs[2]), 0, c));
        }
        Node& last = *findNode(graph, match.nodes.back());
        const Tensor w2 = *floatWeights(graph, last);
        last.inputs[1] = addConstant(graph, last.inputs[1] + "_padded", padAxis(w2, 1, c));
        return true;
    }

private:
    int64_t padded(int64_t c) const { return (c + align_ - 1) / align_ * align_; }
    int64_t align_ = 0;
};

NPUWB_PASS(PadChannels);

}  // namespace
}  // namespace npuwb::passes
