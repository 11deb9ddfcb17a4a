#pragma once
// A graph optimization pass: name + metadata + match predicate + rewrite. Passes register themselves by name from
// their own .cpp file (like kernels) and are run to a fixed point by the Optimizer, which proves every rewrite
// numerically and rolls back the ones that change the model's results:
//
//   class MyPass final : public Pass { ... };
//   NPUWB_PASS(MyPass);
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "npuwb/Optimizer.h"
#include "npuwb/ir/Graph.h"
#include "npuwb/Session.h"

namespace npuwb::passes {

class GraphIndex;

class Pass {
public:
    virtual ~Pass() = default;
    virtual std::string name() const = 0;         // "fold_batchnorm": the id used by --passes
    virtual std::string description() const = 0;  // one sentence for --list-passes and the advisor
    /// Section of the RKNN SDK user guide V2.5.0 the rewrite follows, e.g. "5.2.4.1"; "" = a canonical cleanup.
    virtual std::string guideSection() const { return ""; }
    /// Optional passes (e.g. channel padding) only run when asked for by name.
    virtual bool runsByDefault() const { return true; }
    virtual void configure(const PassConfig& /*config*/) {}
    /// Every match and near miss in the graph. Near misses carry the reason they do not match.
    virtual std::vector<Match> findMatches(const Graph& graph) const = 0;
    /// The same, given `graph`'s index: the optimizer shares one index between the passes of a round while the
    /// graph does not change (an index per pass was most of a 100,000-node optimize). Passes that build an index
    /// override it.
    virtual std::vector<Match> findMatchesIndexed(const Graph& graph, const GraphIndex& /*index*/) const {
        return findMatches(graph);
    }
    /// Rewrites one match. Returns false (graph untouched) when the match no longer holds, e.g. because an
    /// earlier rewrite in the same round changed its nodes.
    virtual bool apply(Graph& graph, const Match& match) const = 0;
    /// Rewrites one match on the whole model. Passes that change more than the graph (its opset) override it.
    virtual bool applyToModel(Model& model, const Match& match) const { return apply(model.graph, match); }
    /// Rewrites `matches` in order and returns those applied. The default applies them one by one; passes that
    /// can have a match at every node (clean-ups) override it to rewrite all of them in one sweep, so a batch
    /// costs one walk over the graph instead of one per match (a 100,000-node chain was hours, not seconds).
    virtual std::vector<Match> applyAll(Model& model, const std::vector<Match>& matches) const {
        std::vector<Match> done;
        for (const auto& m : matches)
            if (applyToModel(model, m)) done.push_back(m);
        return done;
    }
    /// The ai.onnx opset the rewrite emits ops of (0 = any). When the model's is older and the pass would match
    /// at this opset, the optimizer first runs upgrade_opset to it (see UpgradeOpset.cpp).
    virtual int64_t requiredOpset() const { return 0; }
};

class PassRegistry {
public:
    using Factory = std::unique_ptr<Pass> (*)();
    static PassRegistry& instance();
    bool add(Factory factory);
    std::vector<std::string> names() const;  // sorted
    /// Throws InvalidInput listing the known names when `name` is unknown.
    std::unique_ptr<Pass> create(const std::string& name) const;
    std::vector<std::unique_ptr<Pass>> createAll() const;

private:
    std::vector<Factory> factories_;
};

#define NPUWB_PASS(CLASS)                                                                         \
    [[maybe_unused]] static const bool npuwbPassRegistered_##CLASS =                              \
        ::npuwb::passes::PassRegistry::instance().add([]() -> std::unique_ptr<::npuwb::passes::Pass> { \
            return std::make_unique<CLASS>();                                                     \
        })

}  // namespace npuwb::passes
