#pragma once
// Base for passes that look at one anchor node at a time: findMatches tries every node, apply re-checks the
// match on the current graph (earlier rewrites may have changed it) before rewriting.
#include <optional>

#include "passes/GraphEdit.h"
#include "passes/Pass.h"

namespace npuwb::passes {

class PatternPass : public Pass {
public:
    std::vector<Match> findMatches(const Graph& graph) const override {
        return findMatchesIndexed(graph, GraphIndex(graph));
    }
    std::vector<Match> findMatchesIndexed(const Graph& graph, const GraphIndex& index) const override {
        std::vector<Match> out;
        for (const auto& n : graph.nodes)
            if (auto m = matchAt(graph, index, n)) out.push_back(std::move(*m));
        return out;
    }
    bool apply(Graph& graph, const Match& match) const override {
        if (match.nodes.empty()) return false;
        std::optional<Match> now;
        {
            GraphIndex index(graph);
            const Node* anchor = index.node(match.nodes.front());
            if (!anchor) return false;
            now = matchAt(graph, index, *anchor);
        }
        if (!now || !now->applicable() || now->nodes != match.nodes) return false;
        return rewrite(graph, *now);
    }

protected:
    /// A match or near miss anchored at `anchor`, or nullopt when the pattern does not start here at all.
    virtual std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& anchor) const = 0;
    /// Rewrites a freshly checked match; returns false (graph untouched) to decline.
    virtual bool rewrite(Graph& graph, const Match& match) const = 0;

    static Match nearMiss(std::vector<std::string> nodes, std::string explanation, std::string reason) {
        return Match{std::move(nodes), std::move(explanation), std::move(reason)};
    }
    static Match hit(std::vector<std::string> nodes, std::string explanation) {
        return Match{std::move(nodes), std::move(explanation), ""};
    }
};

}  // namespace npuwb::passes
