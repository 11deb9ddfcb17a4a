// dead_code_elimination: nodes whose outputs nobody reads (and that are not graph outputs) are removed.
//   before: x -> Conv -> y        after: x -> Conv -> y
//           x -> Relu -> (unused)
#include <set>

#include "passes/GraphEdit.h"
#include "passes/Pass.h"

namespace npuwb::passes {
namespace {

class DeadCodeElimination final : public Pass {
public:
    std::string name() const override { return "dead_code_elimination"; }
    std::string description() const override {
        return "Removes nodes whose outputs are neither read by another node nor graph outputs";
    }

    std::vector<Match> findMatches(const Graph& graph) const override {
        return findMatchesIndexed(graph, GraphIndex(graph));
    }
    std::vector<Match> findMatchesIndexed(const Graph& graph, const GraphIndex& index) const override {
        // Walk backwards and count reads from nodes already known dead as absent, so a dead chain goes at once.
        std::set<std::string> dead;
        std::vector<Match> out;
        for (auto it = graph.nodes.rbegin(); it != graph.nodes.rend(); ++it)
            if (isDead(index, *it, dead)) {
                dead.insert(it->name);
                out.push_back(Match{{it->name}, it->opType + " computes values nobody reads", ""});
            }
        return out;
    }

    bool apply(Graph& graph, const Match& match) const override {
        GraphIndex index(graph);
        const Node* n = index.node(match.nodes.front());
        if (!n || !isDead(index, *n, {})) return false;
        removeNodes(graph, {n->name});
        return true;
    }

    /// A batch in one walk: re-checked against one index, with the batch's own nodes counted as gone.
    std::vector<Match> applyAll(Model& model, const std::vector<Match>& matches) const override {
        std::set<std::string> dead;
        std::vector<Match> done;
        {
            GraphIndex index(model.graph);
            for (const auto& m : matches) {
                const Node* n = index.node(m.nodes.front());
                if (!n || !isDead(index, *n, dead)) continue;
                dead.insert(n->name);
                done.push_back(m);
            }
        }
        removeNodes(model.graph, dead);
        return done;
    }

private:
    static bool isDead(const GraphIndex& index, const Node& n, const std::set<std::string>& deadNodes) {
        if (n.name.empty()) return false;
        for (const auto& o : n.outputs) {
            if (o.empty()) continue;
            if (index.isGraphOutput(o)) return false;
            for (const Node* c : index.consumers(o))
                if (!deadNodes.count(c->name)) return false;
        }
        return true;
    }
};

NPUWB_PASS(DeadCodeElimination);

}  // namespace
}  // namespace npuwb::passes
