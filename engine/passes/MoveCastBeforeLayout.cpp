// move_cast_before_layout: a Cast behind layout ops (Reshape, Flatten, Squeeze, Unsqueeze, Transpose) is moved in
// front of them. A Cast converts each element on its own, so it commutes with any reordering of elements: the result
// is the same bits. An attention mask as exporters write it (int64 input -> Unsqueeze -> Unsqueeze -> Cast -> 1 - m)
// then reads the graph input directly and the layout ops work on float values, which every backend takes.
//   before: mask(int64) -> Unsqueeze -> Unsqueeze -> Cast(float) -> Sub
//   after:  mask(int64) -> Cast(float) -> Unsqueeze -> Unsqueeze -> Sub
#include <set>

#include "passes/PatternPass.h"

namespace npuwb::passes {
namespace {

bool isLayoutOp(const Node& n) {
    static const std::set<std::string> ops = {"Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze"};
    return n.domain.empty() && ops.count(n.opType) && !n.inputs.empty() && n.outputs.size() == 1;
}

class MoveCastBeforeLayout final : public PatternPass {
public:
    std::string name() const override { return "move_cast_before_layout"; }
    std::string description() const override {
        return "Moves a Cast in front of the Reshape/Unsqueeze/Transpose before it (the same values): integer masks "
               "become float before their layout ops";
    }

protected:
    std::optional<Match> matchAt(const Graph&, const GraphIndex& index, const Node& cast) const override {
        if (!cast.domain.empty() || cast.opType != "Cast" || cast.inputs.size() != 1 || cast.outputs.size() != 1)
            return std::nullopt;
        const Node* layout = index.producer(cast.inputs[0]);
        if (!layout || !isLayoutOp(*layout)) return std::nullopt;
        const std::string what = "Cast moved in front of " + layout->label();
        if (!index.hasSingleUse(cast.inputs[0]))
            return nearMiss({cast.name, layout->name}, what, layout->label() + "'s output is also read by other nodes");
        return hit({cast.name, layout->name}, what);
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        moveInFrontOfLayout(graph, *findNode(graph, match.nodes[0]), *findNode(graph, match.nodes[1]));
        return true;
    }
};

NPUWB_PASS(MoveCastBeforeLayout);

}  // namespace
}  // namespace npuwb::passes
