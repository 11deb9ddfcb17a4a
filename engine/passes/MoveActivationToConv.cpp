// move_activation_to_conv (RKNN SDK user guide V2.5.0, 5.2.4.2): an element-wise activation behind a layout op
// (Transpose, Reshape, Flatten, Squeeze, Unsqueeze) is moved in front of it, so it sits right after the Conv and the
// NPU fuses Conv+activation. Element-wise functions commute with any reordering of elements, so the result is
// unchanged.
//   before: Conv -> Transpose -> Clip -> y
//   after:  Conv -> Clip -> Transpose -> y
#include <set>

#include "passes/PatternPass.h"

namespace npuwb::passes {
namespace {

bool isLayoutOp(const Node& n) {
    static const std::set<std::string> ops = {"Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze"};
    return n.domain.empty() && ops.count(n.opType);
}

bool isFusableActivation(const Graph& graph, const Node& n) {
    static const std::set<std::string> unary = {"Relu", "LeakyRelu", "PRelu", "Sigmoid", "Tanh", "HardSigmoid",
                                                "HardSwish", "Elu", "Softplus", "Mish", "Clip"};
    if (!n.domain.empty() || !unary.count(n.opType) || n.inputs.empty() || n.outputs.size() != 1) return false;
    if (n.opType == "PRelu") {  // only a single shared slope commutes with a reordering
        const Tensor* slope = n.inputs.size() > 1 ? constantOf(graph, n.inputs[1]) : nullptr;
        return slope && slope->numel() == 1;
    }
    for (size_t i = 1; i < n.inputs.size(); ++i)  // Clip's min/max must be scalar constants
        if (!n.inputs[i].empty() && (!constantOf(graph, n.inputs[i]) || constantOf(graph, n.inputs[i])->numel() != 1))
            return false;
    return true;
}

class MoveActivationToConv final : public PatternPass {
public:
    std::string name() const override { return "move_activation_to_conv"; }
    std::string guideSection() const override { return "5.2.4.2"; }
    std::string description() const override {
        return "Moves Relu/Clip/other element-wise activations in front of Transpose/Reshape so they follow the "
               "Conv directly and fuse with it";
    }

protected:
    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& act) const override {
        if (!isFusableActivation(graph, act)) return std::nullopt;
        const Node* layout = index.producer(act.inputs[0]);
        if (!layout || !isLayoutOp(*layout)) return std::nullopt;
        std::string what = act.opType + " moved in front of " + layout->label();
        // Walk back through layout ops to the node the activation would end up behind.
        const Node* source = layout;
        while (source && isLayoutOp(*source)) source = index.producer(source->inputs[0]);
        if (!source || (source->opType != "Conv" && source->opType != "ConvTranspose"))
            return nearMiss({act.name, layout->name}, what, "no Conv before the layout ops, so nothing would fuse");
        if (!index.hasSingleUse(act.inputs[0]))
            return nearMiss({act.name, layout->name}, what,
                            layout->label() + "'s output is also read by other nodes (deviating connection)");
        return hit({act.name, layout->name}, what + " towards " + source->label());
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        moveInFrontOfLayout(graph, *findNode(graph, match.nodes[0]), *findNode(graph, match.nodes[1]));
        return true;
    }
};

NPUWB_PASS(MoveActivationToConv);

}  // namespace
}  // namespace npuwb::passes
