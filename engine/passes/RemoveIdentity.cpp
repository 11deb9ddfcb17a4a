// remove_identity: nodes that pass their input through unchanged are bypassed: Identity, Dropout (inference),
// Cast to the same type, identity Transpose, and Reshape/Flatten/Squeeze/Unsqueeze/Expand/Slice/Pad whose output
// has the input's static shape (Slice only with unit steps, Pad only with all-zero pads).
//   before: x -> Identity -> Reshape([1,8]) -> Relu      (x is [1,8])
//   after:  x -> Relu
#include <algorithm>
#include <numeric>
#include <set>
#include <unordered_map>

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

    /// All bypasses of a batch in one walk: each bypassed output is renamed to its input (through earlier bypasses
    /// of the same batch), the nodes go in one erase. Nodes whose output is a graph output keep the per-match path,
    /// which renames their producer's output instead.
    std::vector<Match> applyAll(Model& model, const std::vector<Match>& matches) const override {
        Graph& graph = model.graph;
        std::vector<Match> done, atOutputs;
        std::unordered_map<std::string, std::string> renames;
        std::set<std::string> removed;
        {
            GraphIndex index(graph);  // stays valid: nothing is erased or added until the end
            auto resolve = [&](std::string v) {
                for (auto it = renames.find(v); it != renames.end(); it = renames.find(v)) v = it->second;
                return v;
            };
            for (const auto& m : matches) {
                const Node* n = m.nodes.size() == 1 ? index.node(m.nodes.front()) : nullptr;
                if (!n || removed.count(n->name)) continue;
                if (index.isGraphOutput(n->outputs[0])) {
                    atOutputs.push_back(m);
                    continue;
                }
                auto now = matchAt(graph, index, *n);
                if (!now || !now->applicable() || now->nodes != m.nodes) continue;
                std::string source = resolve(n->inputs[0]);
                if (source == n->outputs[0]) continue;  // a node reading its own output (a cycle): left for the run to name
                renames[n->outputs[0]] = std::move(source);
                removed.insert(n->name);
                done.push_back(m);
            }
        }
        for (auto& [from, to] : renames)  // chains of bypasses end at their first input
            for (auto it = renames.find(to); it != renames.end(); it = renames.find(to)) to = it->second;
        removeNodes(graph, removed);
        replaceUses(graph, renames);
        for (const auto& m : atOutputs)
            if (applyToModel(model, m)) done.push_back(m);
        return done;
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
            // Dropout passes data through in inference unless training_mode is a constant true; in training mode a
            // ratio of 0 keeps every element and scales by 1/(1-0) (exporters write it for attention dropout p=0).
            if (n.inputs.size() > 2 && !n.inputs[2].empty() && !constantAllEqual(graph, n.inputs[2], 0)) {
                if (n.inputs.size() > 1 && !n.inputs[1].empty() && constantAllEqual(graph, n.inputs[1], 0))
                    return "Dropout with ratio 0";
                return "";
            }
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
