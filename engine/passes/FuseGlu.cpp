// fuse_glu (RKNN SDK user guide V2.5.0, 5.2.5.3): the NPU fuses Split + Sigmoid + Mul into GLU. ONNX has no GLU op, so
// this pass brings equivalent variants into exactly that form (documented choice): two half-Slices of one tensor become
// one Split. Sites already in the fusible form are listed as near misses with the reason "already fusible", and sites
// that break it (gate on the first half, extra readers of the halves or of the gate) are listed with what breaks them.
//   before: x -> Slice[0:h] -> a ; x -> Slice[h:2h] -> Sigmoid -> g ; Mul(a, g) -> y
//   after:  x -> Split(2) -> a, b ; b -> Sigmoid -> g ; Mul(a, g) -> y
#include "passes/PatternPass.h"

namespace npuwb::passes {
namespace {

class FuseGlu final : public PatternPass {
public:
    std::string name() const override { return "fuse_glu"; }
    std::string guideSection() const override { return "5.2.5.3"; }
    std::string description() const override {
        return "Brings GLU variants (two half Slices + Sigmoid + Mul) into the Split+Sigmoid+Mul form the NPU fuses; "
               "reports GLU sites that do not fuse and why";
    }
    void configure(const PassConfig& config) override { opset_ = config.opset; }

protected:
    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& mul) const override {
        if (mul.opType != "Mul" || mul.inputs.size() != 2) return std::nullopt;
        for (int gi = 0; gi < 2; ++gi) {
            const Node* sig = index.producer(mul.inputs[static_cast<size_t>(gi)]);
            const Node* pa = index.producer(mul.inputs[static_cast<size_t>(1 - gi)]);
            if (!sig || sig->opType != "Sigmoid" || !pa) continue;
            const Node* pb = index.producer(sig->inputs[0]);
            if (!pb) continue;
            std::vector<std::string> names{mul.name, sig->name};
            const std::string what = "GLU (gate " + sig->label() + ")";
            if (pa == pb && pa->opType == "Split") {
                names.push_back(pa->name);
                if (pa->outputs.size() != 2) return nearMiss(names, what, "the Split has more than two outputs");
                if (!index.hasSingleUse(sig->outputs[0]))
                    return nearMiss(names, what, "the Sigmoid's output is also read elsewhere (deviating connection)");
                if (!index.hasSingleUse(pa->outputs[0]) || !index.hasSingleUse(pa->outputs[1]))
                    return nearMiss(names, what, "a Split half is also read elsewhere (deviating connection)");
                if (sig->inputs[0] != pa->outputs[1])
                    return nearMiss(names, what, "the Sigmoid gates the first half; the NPU's GLU gates the second");
                return nearMiss(names, what, "already in the Split+Sigmoid+Mul form the NPU fuses; nothing to rewrite");
            }
            if (pa->opType != "Slice" || pb->opType != "Slice" || pa->inputs[0] != pb->inputs[0]) continue;
            names.push_back(pa->name);
            names.push_back(pb->name);
            int64_t axis = 0;
            std::string why = halves(graph, *pa, *pb, axis);
            if (!why.empty()) return nearMiss(names, what, why);
            if (!index.hasSingleUse(pa->outputs[0]) || !index.hasSingleUse(pb->outputs[0]) ||
                !index.hasSingleUse(sig->outputs[0]))
                return nearMiss(names, what, "a half or the gate is also read elsewhere (deviating connection)");
            return hit(names, what + ": two half Slices become one Split");
        }
        return std::nullopt;
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        Node a = *findNode(graph, match.nodes[2]), b = *findNode(graph, match.nodes[3]);
        int64_t axis = 0;
        if (!halves(graph, a, b, axis).empty()) return false;
        Node split = makeNode(graph, "Split", {a.inputs[0]}, {a.outputs[0], b.outputs[0]}, a.name + "_glu_split");
        split.attributes["axis"] = Attribute::ofInt(axis);
        if (opset_ >= 18) split.attributes["num_outputs"] = Attribute::ofInt(2);
        removeNodes(graph, {a.name, b.name});
        graph.nodes.push_back(split);
        return true;
    }

private:
    /// "" when a = x[..0:h..] and b = x[..h:2h..] along one axis of size 2h.
    std::string halves(const Graph& graph, const Node& a, const Node& b, int64_t& axis) const {
        auto pa = sliceParameters(graph, a, opset_), pb = sliceParameters(graph, b, opset_);
        if (!pa || !pb) return "a Slice has non-constant parameters";
        if (pa->axes.size() != 1 || pb->axes.size() != 1) return "the Slices cut more than one axis";
        auto shape = staticShape(graph, a.inputs[0]);
        if (!shape) return "the sliced tensor has no static shape";
        auto rank = static_cast<int64_t>(shape->size());
        int64_t ax = pa->axes[0] < 0 ? pa->axes[0] + rank : pa->axes[0];
        int64_t bx = pb->axes[0] < 0 ? pb->axes[0] + rank : pb->axes[0];
        if (ax != bx || ax < 0 || ax >= rank) return "the Slices cut different axes";
        int64_t dim = (*shape)[static_cast<size_t>(ax)], h = dim / 2;
        auto clampEnd = [&](int64_t e) { return e < 0 ? e + dim : std::min(e, dim); };
        if (dim % 2 || pa->steps[0] != 1 || pb->steps[0] != 1) return "the Slices are not two equal halves";
        if (pa->starts[0] != 0 || clampEnd(pa->ends[0]) != h) return "the value half is not the first half";
        int64_t bs = pb->starts[0] < 0 ? pb->starts[0] + dim : pb->starts[0];
        if (bs != h || clampEnd(pb->ends[0]) != dim) return "the gate half is not the second half";
        axis = ax;
        return "";
    }

    int64_t opset_ = 13;
};

NPUWB_PASS(FuseGlu);

}  // namespace
}  // namespace npuwb::passes
