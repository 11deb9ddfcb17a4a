// remove_identity: nodes that pass their input through unchanged are bypassed: Identity, Dropout (inference),
// Cast to the same type, identity Transpose, and Reshape/Flatten/Squeeze/Unsqueeze/Expand/Slice/Pad whose output
// has the input's static shape (Slice only with unit steps, Pad only with all-zero pads).
//   before: x -> Identity -> Reshape([1,8]) -> Relu      (x is [1,8])
//   after:  x -> Relu
#include <algorithm>
#include <numeric>
#include <set>

#include "passes/PatternPass.h"

namespace npuwb::passes {
namespace {

class RemoveIdentity final : public PatternPass {
public:
    std::string name() const override { return "remove_identity"; }
    std::string description() const override {
        return "Bypasses Identity, Dropout and no-op Reshape/Transpose/Pad/Slice/Cast/Expand/Squeeze/Unsqueeze nodes";
    }
    void configure(const PassConfig& config) override { opset_ = config.opset; }

protected:
    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& n) const override {
        if (!n.domain.empty() || n.inputs.empty() || n.outputs.empty() || n.inputs[0].empty()) return std::nullopt;
        std::string why = noOpReason(graph, n);
        if (why.empty()) return std::nullopt;
        if (n.opType == "Dropout")
            for (size_t i = 1; i < n.outputs.size(); ++i)
                if (!n.outputs[i].empty() && !index.consumers(n.outputs[i]).empty() )
                    return nearMiss({n.name}, why, "its mask output is read");
        if (!canBypass(graph, index, n.inputs[0], n.outputs[0]))
            return nearMiss({n.name}, why, "its output is a graph output and its input cannot take that name");
        return hit({n.name}, why);
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        const Node* n = findNode(graph, match.nodes.front());
        std::string in = n->inputs[0], out = n->outputs[0];
        return bypassValue(graph, match.nodes.front(), in, out);
    }

private:
    std::string noOpReason(const Graph& graph, const Node& n) const {
        const std::string& op = n.opType;
        if (op == "Identity") return "Identity";
        if (op == "Dropout") {
            // Dropout passes data through in inference unless training_mode is a constant true.
            if (n.inputs.size() > 2 && !n.inputs[2].empty() && !constantAllEqual(graph, n.inputs[2], 0)) return "";
            return "Dropout in inference";
        }
        if (op == "Cast") {
            auto from = knownDType(graph, n.inputs[0]);
            if (from && static_cast<int64_t>(*from) == n.attrInt("to", -1)) return "Cast to the type it already has";
            return "";
        }
        if (op == "Transpose") {
            std::vector<int64_t> perm = n.attrInts("perm");
            if (perm.empty()) return "";
            std::vector<int64_t> iota(perm.size());
            std::iota(iota.begin(), iota.end(), 0);
            return perm == iota ? "Transpose with the identity permutation" : "";
        }
        static const std::set<std::string> shapeOps = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Expand",
                                                       "Slice", "Pad"};
        if (!shapeOps.count(op)) return "";
        auto inShape = staticShape(graph, n.inputs[0]);
        auto outShape = staticShape(graph, n.outputs[0]);
        if (!inShape || !outShape || *inShape != *outShape) return "";
        if (op == "Slice" && !unitSteps(graph, n)) return "";
        if (op == "Pad" && !zeroPads(graph, n)) return "";
        return op + " whose output has its input's shape " + shapeToString(*inShape);
    }

    bool unitSteps(const Graph& graph, const Node& n) const {
        if (opset_ < 10) return true;  // attribute form has no steps
        if (n.inputs.size() < 5 || n.inputs[4].empty()) return true;
        auto steps = constantInts(graph, n.inputs[4]);
        return steps && std::all_of(steps->begin(), steps->end(), [](int64_t s) { return s == 1; });
    }

    bool zeroPads(const Graph& graph, const Node& n) const {
        std::vector<int64_t> pads;
        if (opset_ < 11) {
            pads = n.attrInts("pads");
        } else {
            if (n.inputs.size() < 2) return false;
            auto p = constantInts(graph, n.inputs[1]);
            if (!p) return false;
            pads = *p;
        }
        return std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; });
    }

    int64_t opset_ = 13;
};

NPUWB_PASS(RemoveIdentity);

}  // namespace
}  // namespace npuwb::passes
