// constant_folding: a node whose inputs are all constants becomes an initializer; so does Shape/Size of a value
// whose shape is statically known.
//   before: [w] -> Transpose -> Mul([s]) -> Conv      x:[1,3,8,8] -> Shape -> Gather -> Reshape(shape)
//   after:  [w'] -> Conv                               [1,3,8,8] (constant) -> ... folded ... -> Reshape([...])
#include <algorithm>
#include <set>

#include "passes/ConstEval.h"
#include "passes/GraphEdit.h"
#include "passes/Pass.h"
#include "npuwb/Error.h"

namespace npuwb::passes {
namespace {

constexpr int64_t kMaxFoldedElements = int64_t{1} << 22;  // do not blow the file up with Expand/Tile results

bool nondeterministicOrStateful(const Node& n) {
    static const std::set<std::string> ops = {"RandomNormal", "RandomUniform", "RandomNormalLike",
                                              "RandomUniformLike", "Multinomial", "Bernoulli", "Dropout"};
    if (ops.count(n.opType) || !n.domain.empty()) return true;
    for (const auto& [k, a] : n.attributes)
        if (a.g || !a.graphs.empty()) return true;
    return false;
}

class ConstantFolding final : public Pass {
public:
    std::string name() const override { return "constant_folding"; }
    std::string description() const override {
        return "Computes nodes whose inputs are all constants (and Shape/Size of statically shaped values) once, "
               "storing the result as an initializer";
    }

    std::vector<Match> findMatches(const Graph& graph) const override {
        return findMatchesIndexed(graph, GraphIndex(graph));
    }
    std::vector<Match> findMatchesIndexed(const Graph& graph, const GraphIndex& index) const override {
        // Walk in order and treat outputs of foldable nodes as constants, so a whole chain folds in one round.
        std::set<std::string> willBeConstant;
        std::vector<Match> out;
        for (const auto& n : graph.nodes) {
            if (!foldable(graph, index, n, willBeConstant)) continue;
            for (const auto& o : n.outputs) willBeConstant.insert(o);
            out.push_back(Match{{n.name}, n.opType + " computed at optimization time", ""});
        }
        return out;
    }

    bool apply(Graph& graph, const Match& match) const override {
        std::string nodeName;
        {
            GraphIndex index(graph);
            const Node* n = index.node(match.nodes.front());
            if (!n || !fold(graph, index, *n)) return false;
            nodeName = n->name;
        }
        removeNodes(graph, {nodeName});
        return true;
    }

    /// A batch in one walk: each node folds against one index (its inputs folded earlier in the batch are
    /// initializers by then), and the folded nodes go in one erase at the end.
    std::vector<Match> applyAll(Model& model, const std::vector<Match>& matches) const override {
        std::set<std::string> folded;
        std::vector<Match> done;
        {
            GraphIndex index(model.graph);  // valid throughout: nodes are erased only after
            for (const auto& m : matches) {
                const Node* n = index.node(m.nodes.front());
                if (!n || folded.count(n->name) || !fold(model.graph, index, *n)) continue;
                folded.insert(n->name);
                done.push_back(m);
            }
        }
        removeNodes(model.graph, folded);
        return done;
    }

    void configure(const PassConfig& config) override { opset_ = config.opset; }

private:
    /// Computes `n` and stores its outputs as initializers (the node itself stays for the caller to remove).
    bool fold(Graph& graph, const GraphIndex& index, const Node& node) const {
        const Node* n = &node;
        if (!foldable(graph, index, *n, {})) return false;
        std::vector<Tensor> values;
        std::vector<std::string> outputs;
        for (const auto& o : n->outputs)
            if (!o.empty()) outputs.push_back(o);
        if (n->opType == "Shape" || n->opType == "Size") {
            values.push_back(shapeResult(graph, *n));
        } else {
            values = evaluateNodes(graph, {*n}, {}, outputs, opset_);
        }
        for (const auto& v : values)
            if (v.numel() > kMaxFoldedElements) return false;
        for (size_t i = 0; i < outputs.size(); ++i) {
            graph.initializers[outputs[i]] = values[i];
            graph.valueInfo.erase(outputs[i]);
        }
        return true;
    }

    static bool foldable(const Graph& graph, const GraphIndex& index, const Node& n,
                         const std::set<std::string>& willBeConstant) {
        if (n.name.empty() || nondeterministicOrStateful(n) || n.outputs.empty()) return false;
        for (const auto& o : n.outputs)
            if (index.isGraphOutput(o)) return false;  // keep graph outputs produced by nodes
        if ((n.opType == "Shape" || n.opType == "Size") && n.inputs.size() == 1)
            return staticShape(graph, n.inputs[0]).has_value();
        if (n.opType == "Constant") return true;
        bool any = false;
        for (const auto& in : n.inputs) {
            if (in.empty()) continue;
            if (!constantOf(graph, in) && !willBeConstant.count(in)) return false;
            any = true;
        }
        return any;
    }

    static Tensor shapeResult(const Graph& graph, const Node& n) {
        Shape s = *staticShape(graph, n.inputs[0]);
        if (n.opType == "Size") return Tensor::scalar<int64_t>(shapeNumel(s));
        auto rank = static_cast<int64_t>(s.size());
        int64_t start = n.attrInt("start", 0), end = n.attrInt("end", rank);
        if (start < 0) start += rank;
        if (end < 0) end += rank;
        start = std::clamp<int64_t>(start, 0, rank);
        end = std::clamp<int64_t>(end, start, rank);
        std::vector<int64_t> dims(s.begin() + start, s.begin() + end);
        return Tensor::fromVector<int64_t>({static_cast<int64_t>(dims.size())}, dims);
    }

    int64_t opset_ = 13;
};

NPUWB_PASS(ConstantFolding);

}  // namespace
}  // namespace npuwb::passes
