// focus_to_conv (RKNN SDK user guide V2.5.0, 5.2.4.3; ultralytics/yolov5#4825): YOLOv5's "Focus" space-to-depth
// (strided Slices of one input concatenated along channels) becomes one Conv with stride s, an s x s kernel and 0/1
// weights.
//   before: x[N,C,H,W] -> Slice(h 0::2, w 0::2) -+
//                      -> Slice(h 1::2, w 0::2) -+-> Concat(axis 1) -> y[N,4C,H/2,W/2]
//                      -> Slice(h 0::2, w 1::2) -+
//                      -> Slice(h 1::2, w 1::2) -+
//   after:  x -> Conv(kernel 2x2, stride 2, W[b*C+c, c, dy_b, dx_b] = 1) -> y
// Each branch may be one Slice over both axes or a chain of Slices (PyTorch exports x[..., ::2, ::2] as two).
#include <algorithm>

#include "passes/PatternPass.h"

namespace npuwb::passes {
namespace {

struct Branch {
    std::vector<std::string> nodes;
    std::string source;
    int64_t offset[2] = {0, 0};  // start along H and W
    int64_t step[2] = {1, 1};
};

class FocusToConv final : public PatternPass {
public:
    std::string name() const override { return "focus_to_conv"; }
    std::string guideSection() const override { return "5.2.4.3"; }
    std::string description() const override {
        return "Replaces a space-to-depth Focus block (strided Slices + Concat on channels) with one strided Conv";
    }
    void configure(const PassConfig& config) override { opset_ = config.opset; }

protected:
    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& concat) const override {
        if (concat.opType != "Concat" || concat.inputs.size() < 2) return std::nullopt;
        std::vector<Branch> branches;
        std::vector<std::string> names{concat.name};
        for (const auto& in : concat.inputs) {
            Branch b;
            if (!sliceBranch(graph, index, in, b)) return std::nullopt;  // not a Focus-like concat at all
            branches.push_back(b);
            for (const auto& n : b.nodes)
                if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
        }
        // Branches may share a first Slice (PyTorch reuses x[..., ::2, :]); nothing outside may read them.
        for (const auto& nm : names) {
            if (nm == concat.name) continue;
            const std::string& out = index.node(nm)->outputs[0];
            if (index.isGraphOutput(out)) return std::nullopt;
            for (const Node* c : index.consumers(out))
                if (std::find(names.begin(), names.end(), c->name) == names.end()) return std::nullopt;
        }
        const std::string what = "Focus block (" + std::to_string(branches.size()) + " strided Slices + Concat) as one Conv";
        auto rank = staticShape(graph, branches[0].source);
        int64_t axis = concat.attrInt("axis", 0);
        if (rank && axis < 0) axis += static_cast<int64_t>(rank->size());
        if (!rank || rank->size() != 4) return nearMiss(names, what, "the sliced input has no static 4-D shape");
        if (axis != 1) return nearMiss(names, what, "the Concat is not along channels");
        const int64_t s = branches[0].step[0];
        for (const auto& b : branches) {
            if (b.source != branches[0].source) return nearMiss(names, what, "the Slices read different inputs");
            if (b.step[0] != s || b.step[1] != s || s < 2)
                return nearMiss(names, what, "the Slices do not all use the same step >= 2 on H and W");
            if (b.offset[0] >= s || b.offset[1] >= s) return nearMiss(names, what, "a Slice starts beyond the first step");
        }
        if ((*rank)[2] % s || (*rank)[3] % s) return nearMiss(names, what, "H or W is not a multiple of the step");
        return hit(names, what);
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        GraphIndex index(graph);
        const Node concat = *index.node(match.nodes[0]);
        std::vector<Branch> branches;
        for (const auto& in : concat.inputs) {
            Branch b;
            if (!sliceBranch(graph, index, in, b)) return false;
            branches.push_back(b);
        }
        Shape shape = *staticShape(graph, branches[0].source);
        const int64_t c = shape[1], s = branches[0].step[0], k = static_cast<int64_t>(branches.size());
        Tensor w(DType::F32, {k * c, c, s, s});
        auto wv = w.values<float>();
        for (int64_t b = 0; b < k; ++b)
            for (int64_t ch = 0; ch < c; ++ch)
                wv[static_cast<size_t>((((b * c + ch) * c + ch) * s + branches[b].offset[0]) * s + branches[b].offset[1])] = 1;
        std::string wName = addConstant(graph, concat.name + "_focus_weight", w);
        Node conv = makeNode(graph, "Conv", {branches[0].source, wName}, {concat.outputs[0]}, concat.name + "_focus_conv");
        conv.attributes["kernel_shape"] = Attribute::ofInts({s, s});
        conv.attributes["strides"] = Attribute::ofInts({s, s});
        removeNodes(graph, {match.nodes.begin(), match.nodes.end()});
        graph.nodes.push_back(conv);
        return true;
    }

private:
    /// Follows `value` back through single-use Slices on axes 2/3 with constant parameters.
    bool sliceBranch(const Graph& graph, const GraphIndex& index, const std::string& value, Branch& b) const {
        std::string v = value;
        bool seenH = false, seenW = false;
        while (true) {
            const Node* n = index.producer(v);
            if (!n || n->opType != "Slice" || index.isGraphOutput(v)) break;
            auto params = sliceParameters(graph, *n, opset_);
            if (!params) return false;
            const auto& [starts, ends, axes, steps] = *params;
            auto rank = staticShape(graph, n->inputs[0]);
            if (!rank) return false;
            for (size_t i = 0; i < starts.size(); ++i) {
                int64_t a = axes[i] < 0 ? axes[i] + static_cast<int64_t>(rank->size()) : axes[i];
                int64_t dim = (*rank)[static_cast<size_t>(a)];
                if (a != 2 && a != 3) return false;
                if ((a == 2 && seenH) || (a == 3 && seenW)) return false;
                if (ends[i] < dim || starts[i] < 0) return false;  // must run to the end
                (a == 2 ? seenH : seenW) = true;
                b.offset[a - 2] = starts[i];
                b.step[a - 2] = steps[i];
            }
            b.nodes.push_back(n->name);
            v = n->inputs[0];
        }
        b.source = v;
        return seenH && seenW;
    }

    int64_t opset_ = 13;
};

NPUWB_PASS(FocusToConv);

}  // namespace
}  // namespace npuwb::passes
