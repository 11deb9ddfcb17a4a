#include "perfmodel/LayerShapes.h"

#include <memory>
#include <optional>
#include <set>

#include "npuwb/ExecutionObserver.h"
#include "npuwb/Profiler.h"
#include "npuwb/Limits.h"
#include "npuwb/Session.h"
#include "passes/GraphEdit.h"

namespace npuwb {

namespace {

/// Values computable from initializers alone: the converter folds the nodes producing them.
std::set<std::string> constantValues(const Graph& g, const std::vector<size_t>& order) {
    std::set<std::string> constant;
    for (const auto& [name, t] : g.initializers) constant.insert(name);
    for (size_t idx : order) {
        const Node& n = g.nodes[idx];
        bool allConstant = true;
        for (const auto& in : n.inputs)
            if (!in.empty() && !constant.count(in)) allConstant = false;
        if (allConstant)
            for (const auto& out : n.outputs) constant.insert(out);
    }
    return constant;
}

std::optional<std::vector<NodeShapes>> fromInference(const Graph& g, const std::vector<size_t>& order) {
    std::vector<NodeShapes> out;
    for (size_t idx : order) {
        NodeShapes ns;
        ns.node = &g.nodes[idx];
        for (const auto& in : ns.node->inputs) {
            if (in.empty()) { ns.inputs.emplace_back(); continue; }
            auto s = passes::staticShape(g, in);
            if (!s) return std::nullopt;
            ns.inputs.push_back(*s);
        }
        for (const auto& o : ns.node->outputs) {
            if (o.empty()) { ns.outputs.emplace_back(); continue; }
            auto s = passes::staticShape(g, o);
            if (!s) return std::nullopt;
            ns.outputs.push_back(*s);
        }
        out.push_back(std::move(ns));
    }
    return out;
}

/// Records the shapes the executor actually saw.
class ShapeRecorder : public ExecutionObserver {
public:
    void nodeFinished(size_t, const Node& node, const std::vector<const Value*>& inputs,
                      const std::vector<Value>& outputs) override {
        NodeShapes ns;
        ns.node = &node;
        for (const Value* v : inputs) ns.inputs.push_back(v && v->isTensor() ? v->tensor.shape() : Shape{});
        for (const Value& v : outputs) ns.outputs.push_back(v.isTensor() ? v.tensor.shape() : Shape{});
        rows.push_back(std::move(ns));
    }
    std::vector<NodeShapes> rows;
};

constexpr int64_t kMaxEstimationLoopIterations = 100000;

std::vector<NodeShapes> fromReferenceRun(const Model& model, int64_t symbolicDimValue) {
    // The Session needs shared ownership; the caller's model outlives this call, so alias it without deleting.
    std::shared_ptr<const Model> alias(std::shared_ptr<const Model>(), &model);
    SessionOptions reference;
    reference.executor.backend = kReferenceBackend;  // every node's shapes, one kernel per node
    Session session(alias, reference);
    std::map<std::string, Value> feeds;
    for (auto& [name, t] : makeInputs(session, 1, symbolicDimValue)) feeds[name] = Value(t);
    ShapeRecorder recorder;
    RunControl rc;
    rc.observer = &recorder;
    // Estimation must end on any model: a Loop without a trip count whose condition stays true would run forever.
    RunLimitsScope bounded(RunLimits{.maxLoopIterations = kMaxEstimationLoopIterations,
                                     .loopCapReason = "estimation learns shapes with one reference run and does not "
                                                      "execute unbounded loops (give the Loop a trip count)"});
    session.run(feeds, rc);
    return std::move(recorder.rows);
}

}  // namespace

std::vector<NodeShapes> resolveLayerShapes(const Model& model, int64_t symbolicDimValue, bool* usedReferenceRun) {
    const Graph& g = model.graph;
    std::vector<size_t> order = g.topologicalOrder();
    auto rows = fromInference(g, order);
    if (usedReferenceRun) *usedReferenceRun = !rows;
    if (!rows) rows = fromReferenceRun(model, symbolicDimValue);
    std::set<std::string> constant = constantValues(g, order);
    for (auto& r : *rows)
        for (const auto& in : r.node->inputs) r.inputIsConstant.push_back(!in.empty() && constant.count(in));
    return std::move(*rows);
}

}  // namespace npuwb
