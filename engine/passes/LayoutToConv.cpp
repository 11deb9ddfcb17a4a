// layout_to_conv (RKNN SDK user guide V2.5.0, 5.2.4.1): a chain of Reshape/Transpose nodes that starts and ends with
// the same 4-D shape [N,C,H,W] and only reorders channels (e.g. ShuffleNet's channel shuffle) becomes one 1x1 Conv with
// 0/1 weights, which runs on the NPU where Reshape/Transpose may not.
//   before: x[N,C,H,W] -> Reshape[N,g,C/g,H,W] -> Transpose(0,2,1,3,4) -> Reshape[N,C,H,W] -> y
//   after:  x -> Conv(W[o, perm(o)] = 1, kernel 1x1) -> y
// What the chain does is found by running it on a tensor of element indices, so any such rearrangement counts.
#include "passes/ConstEval.h"
#include "passes/PatternPass.h"
#include "npuwb/Error.h"

namespace npuwb::passes {
namespace {

bool isLayoutOp(const Node& n) { return n.domain.empty() && (n.opType == "Reshape" || n.opType == "Transpose"); }

class LayoutToConv final : public PatternPass {
public:
    std::string name() const override { return "layout_to_conv"; }
    std::string guideSection() const override { return "5.2.4.1"; }
    std::string description() const override {
        return "Replaces a Reshape/Transpose chain that only permutes channels (channel shuffle) with a 1x1 Conv "
               "with 0/1 weights";
    }
    void configure(const PassConfig& config) override { opset_ = config.opset; }

protected:
    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& first) const override {
        if (!isLayoutOp(first) || first.inputs.empty()) return std::nullopt;
        const Node* before = index.producer(first.inputs[0]);
        if (before && isLayoutOp(*before) && index.hasSingleUse(first.inputs[0])) return std::nullopt;  // not a chain start
        auto shape = staticShape(graph, first.inputs[0]);
        if (!shape || shape->size() != 4) return std::nullopt;
        if (!knownDType(graph, first.inputs[0]) || *knownDType(graph, first.inputs[0]) != DType::F32) return std::nullopt;
        const std::string what = "channel rearrangement starting at " + first.label() + " as a 1x1 Conv";
        if (shapeNumel(*shape) > (int64_t{1} << 24)) return nearMiss({first.name}, what, "too large to verify");

        std::vector<Node> chain{first};
        std::vector<std::string> names{first.name};
        std::string lastReason = "the chain never returns to the input shape " + shapeToString(*shape);
        while (true) {
            std::vector<int64_t> perm;
            std::string reason = channelPermutation(graph, chain, *shape, perm);
            if (reason.empty()) {
                bool identity = true;
                for (size_t c = 0; c < perm.size(); ++c) identity = identity && perm[c] == static_cast<int64_t>(c);
                if (identity) return std::nullopt;  // a no-op chain: remove_identity/merge_chains handle it
                return hit(names, what + " (" + std::to_string(chain.size()) + " nodes)");
            }
            if (reason != "shape") lastReason = reason;
            const std::string& out = chain.back().outputs[0];
            if (index.isGraphOutput(out) || index.consumers(out).size() != 1) {
                if (index.consumers(out).size() > 1 && chain.size() >= 1)
                    lastReason += "; the value after " + chain.back().label() + " is also read by other nodes";
                break;
            }
            const Node* next = index.consumers(out)[0];
            if (!isLayoutOp(*next) || next->inputs[0] != out) break;
            chain.push_back(*next);
            names.push_back(next->name);
        }
        if (chain.size() < 2) return std::nullopt;
        return nearMiss(names, what, lastReason);
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        std::vector<Node> chain;
        for (const auto& n : match.nodes) chain.push_back(*findNode(graph, n));
        Shape shape = *staticShape(graph, chain.front().inputs[0]);
        std::vector<int64_t> perm;
        if (!channelPermutation(graph, chain, shape, perm).empty()) return false;
        int64_t c = shape[1];
        Tensor w(DType::F32, {c, c, 1, 1});
        auto wv = w.values<float>();
        for (int64_t o = 0; o < c; ++o) wv[static_cast<size_t>(o * c + perm[static_cast<size_t>(o)])] = 1.0f;
        std::string wName = addConstant(graph, chain.front().name + "_as_conv_weight", w);
        Node conv = makeNode(graph, "Conv", {chain.front().inputs[0], wName}, {chain.back().outputs[0]},
                             chain.front().name + "_as_conv");
        conv.attributes["kernel_shape"] = Attribute::ofInts({1, 1});
        removeNodes(graph, {match.nodes.begin(), match.nodes.end()});
        graph.nodes.push_back(conv);
        return true;
    }

private:
    /// "" and perm filled when `chain` maps [N,C,H,W] to itself moving only channels: out[:, o] = in[:, perm[o]].
    /// "shape" when the chain ends in another shape; otherwise the reason it is no channel permutation.
    std::string channelPermutation(const Graph& graph, const std::vector<Node>& chain, const Shape& shape,
                                   std::vector<int64_t>& perm) const {
        Tensor result;
        try {
            std::vector<Node> nodes = chain;
            nodes.front().inputs[0] = "__index";
            result = evaluateNodes(graph, nodes, {{"__index", iotaTensor(shape)}}, {chain.back().outputs[0]}, opset_)[0];
        } catch (const Error&) {
            return "the chain cannot be evaluated (non-constant shape or permutation)";
        }
        if (result.shape() != shape) return "shape";
        const int64_t n = shape[0], c = shape[1], hw = shape[2] * shape[3];
        perm.assign(static_cast<size_t>(c), -1);
        auto v = result.values<float>();
        for (int64_t b = 0; b < n; ++b)
            for (int64_t o = 0; o < c; ++o)
                for (int64_t p = 0; p < hw; ++p) {
                    auto src = static_cast<int64_t>(v[static_cast<size_t>((b * c + o) * hw + p)]);
                    int64_t sb = src / (c * hw), sc = (src / hw) % c, sp = src % hw;
                    if (sb != b || sp != p) return "the chain moves elements across batch or spatial positions";
                    int64_t& slot = perm[static_cast<size_t>(o)];
                    if (slot >= 0 && slot != sc) return "the channel mapping differs between positions";
                    slot = sc;
                }
        return "";
    }

    int64_t opset_ = 13;
};

NPUWB_PASS(LayoutToConv);

}  // namespace
}  // namespace npuwb::passes
