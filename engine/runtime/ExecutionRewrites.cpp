#include "runtime/ExecutionRewrites.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "npuwb/Error.h"

#include "passes/GraphEdit.h"
#include "passes/Pass.h"

namespace npuwb {

namespace {

/// The exact passes, and which of their matches are exact (merge_chains also merges constant arithmetic, which
/// rounds differently: only its layout merges are taken). The index is built once per pass and round: one per match
/// made a 10,000-node chain take a minute.
struct ExactPass {
    const char* name;
    bool (*exact)(const Graph&, const passes::GraphIndex&, const passes::Match&);
};

bool anyMatch(const Graph&, const passes::GraphIndex&, const passes::Match&) { return true; }

bool layoutMerge(const Graph&, const passes::GraphIndex& index, const passes::Match& match) {
    return std::all_of(match.nodes.begin(), match.nodes.end(), [&](const std::string& name) {
        const Node* n = index.node(name);
        return n && (n->opType == "Reshape" || n->opType == "Transpose" || n->opType == "Slice");
    });
}

/// Constants computed by the same reference kernels the run would use (so the same bits), when they are small: the
/// pads, shapes and axes exporters compute with ConstantOfShape/Concat/Slice chains (torch's F.pad), which the passes
/// below need as constants. Never Quantize/DequantizeLinear (the int8 plan reads the int8 weights behind them), and
/// never large inputs (weights: the backend plan folds those lazily).
bool smallConstant(const Graph& graph, const passes::GraphIndex& index, const passes::Match& match) {
    constexpr int64_t kMaxElements = 1 << 16;
    const Node* n = index.node(match.nodes.front());
    if (!n || n->opType == "QuantizeLinear" || n->opType == "DequantizeLinear") return false;
    for (const auto& in : n->inputs) {
        if (in.empty()) continue;
        const Tensor* t = passes::constantOf(graph, in);
        if (!t || t->numel() > kMaxElements) return false;  // a chain's next node waits for the next round
    }
    return true;
}

constexpr ExactPass kExactPasses[] = {
    {"constant_folding", smallConstant},
    {"remove_identity", anyMatch},  // Identity, Dropout, same-type Cast, no-op layout ops
    {"move_cast_before_layout", anyMatch},  // integer masks cast to float before their Unsqueezes
    {"merge_chains", layoutMerge},  // Transpose pairs (cancelled by remove_identity after), Reshape chains, Slices
    {"fold_pad", anyMatch},         // explicit constant Pad into the Conv/pool padding
};

constexpr const char* kTemporaryName = "\x01npuwb.exec.";

}  // namespace

std::shared_ptr<const Model> rewriteForExecution(std::shared_ptr<const Model> model, const std::set<std::string>& keep,
                                                 std::vector<ExecutionRewrite>* applied) {
    std::vector<std::unique_ptr<passes::Pass>> pipeline;
    passes::PassConfig config;
    config.opset = model->opset("");
    for (const auto& p : kExactPasses) {
        pipeline.push_back(passes::PassRegistry::instance().create(p.name));
        pipeline.back()->configure(config);
    }
    std::optional<Model> work;
    // Matches name nodes: unnamed ones get a temporary name, taken off again at the end.
    auto graphNow = [&]() -> Graph& {
        if (!work) {
            work.emplace(*model);
            for (auto& n : work->graph.nodes)
                if (n.name.empty() && !n.outputs.empty()) n.name = kTemporaryName + n.outputs[0];
        }
        return work->graph;
    };
    graphNow();
    bool changed = false;
    auto record = [&](size_t pass, const passes::Match& m) {
        changed = true;
        if (!applied) return;
        ExecutionRewrite r{kExactPasses[pass].name, {}};
        for (const auto& name : m.nodes)
            r.nodes.push_back(name.rfind(kTemporaryName, 0) == 0 ? name.substr(std::string(kTemporaryName).size()) : name);
        applied->push_back(std::move(r));
    };
    // One rewrite at a time: a constant that cannot be computed (too large, bad input) throws before the graph
    // changes, and the node stays for the run to report by name as it would without the rewrites.
    auto applyOne = [&](size_t pass, Graph& g, const passes::Match& m) {
        try {
            return pipeline[pass]->apply(g, m);
        } catch (const Error&) {
            if (std::string_view(kExactPasses[pass].name) != "constant_folding") throw;
            return false;
        }
    };
    // The graph's index, shared by the passes until a rewrite changes the graph (it points into its nodes).
    std::optional<passes::GraphIndex> index;
    auto indexNow = [&]() -> const passes::GraphIndex& {
        if (!index) index.emplace(graphNow());
        return *index;
    };
    for (int round = 0, progress = 1; progress && round < 32; ++round) {
        progress = 0;
        for (size_t p = 0; p < pipeline.size(); ++p) {
            Graph& g = graphNow();
            // Matches that would rewrite a kept value's producer go one by one, undone if the value is lost; the
            // rest go as one batch (applyAll: one walk over the graph for the clean-ups).
            std::vector<passes::Match> batch, guarded;
            for (auto& m : pipeline[p]->findMatchesIndexed(g, indexNow())) {
                if (!m.applicable() || !kExactPasses[p].exact(g, indexNow(), m)) continue;
                bool producesKept = false;
                for (const auto& name : m.nodes)
                    if (const Node* n = indexNow().node(name))
                        for (const auto& o : n->outputs) producesKept = producesKept || keep.count(o) > 0;
                (producesKept ? guarded : batch).push_back(std::move(m));
            }
            if (!batch.empty()) {
                index.reset();
                std::optional<Graph> before;
                if (std::string_view(kExactPasses[p].name) == "constant_folding") before = g;
                std::vector<passes::Match> done;
                try {
                    done = pipeline[p]->applyAll(*work, batch);
                } catch (const Error&) {
                    if (!before) throw;
                    g = std::move(*before);  // the batch stopped half-way: redo it one by one, skipping what throws
                    done.clear();
                    for (const auto& m : batch)
                        if (applyOne(p, g, m)) done.push_back(m);
                }
                for (const auto& m : done) record(p, m);
                progress += static_cast<int>(done.size());
            }
            for (const auto& m : guarded) {
                std::vector<std::string> kept;
                for (const auto& name : m.nodes)
                    if (const Node* n = indexNow().node(name))
                        for (const auto& o : n->outputs)
                            if (keep.count(o)) kept.push_back(o);
                Graph before = g;
                if (!applyOne(p, g, m)) continue;
                index.reset();
                if (!std::all_of(kept.begin(), kept.end(), [&](const std::string& v) { return indexNow().producer(v); })) {
                    index.reset();
                    g = std::move(before);
                    continue;
                }
                record(p, m);
                ++progress;
            }
        }
    }
    if (!changed) return model;
    for (auto& n : work->graph.nodes)
        if (n.name.rfind(kTemporaryName, 0) == 0) n.name.clear();
    passes::pruneUnused(work->graph);
    passes::sortTopologically(work->graph);
    return std::make_shared<const Model>(std::move(*work));
}

}  // namespace npuwb
