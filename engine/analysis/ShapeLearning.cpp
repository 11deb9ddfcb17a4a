#include "npuwb/ShapeLearning.h"

#include <memory>

#include "npuwb/ExecutionObserver.h"
#include "npuwb/Limits.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Profiler.h"
#include "npuwb/Session.h"
#include "passes/GraphEdit.h"

namespace npuwb {

namespace {

/// Records, by value name, the shapes the executor saw. Names, not nodes: the Session's graph is its own.
/// Shapes are all it reads, so the learning run may hand it placeholders and skip the heavy nodes.
class ValueShapeCollector : public ExecutionObserver {
public:
    explicit ValueShapeCollector(std::map<std::string, Shape>& values) : values_(values) {}
    bool acceptsPlaceholderOutputs() const override { return true; }
    void nodeFinished(size_t, const Node& node, const std::vector<const Value*>& inputs,
                      const std::vector<Value>& outputs) override {
        for (size_t i = 0; i < inputs.size() && i < node.inputs.size(); ++i)
            if (inputs[i] && inputs[i]->isTensor() && !node.inputs[i].empty())
                values_.emplace(node.inputs[i], inputs[i]->tensor.shape());
        for (size_t i = 0; i < outputs.size() && i < node.outputs.size(); ++i)
            if (outputs[i].isTensor() && !node.outputs[i].empty())
                values_[node.outputs[i]] = outputs[i].tensor.shape();
    }

private:
    std::map<std::string, Shape>& values_;
};

constexpr int64_t kMaxLearningLoopIterations = 100000;

std::vector<std::string> missingOutputs(const Graph& g, const std::map<std::string, Shape>& values) {
    std::vector<std::string> missing;
    for (const Node& n : g.nodes)
        for (const auto& o : n.outputs)
            if (!o.empty() && !values.count(o)) missing.push_back(o);
    for (const auto& out : g.outputs)
        if (!values.count(out.name)) missing.push_back(out.name);
    return missing;
}

/// The concrete input shapes: the user's, else the declared ones with symbolic dims set. Inputs whose rank is
/// unknown are left out (inference then cannot fix them; the run's generated inputs will fail naming them).
std::map<std::string, Shape> concreteInputShapes(const Graph& g, const ShapeLearningOptions& o) {
    std::map<std::string, Shape> shapes;
    for (const auto& in : g.inputs) {
        if (g.initializers.count(in.name)) continue;
        if (auto it = o.inputShapes.find(in.name); it != o.inputShapes.end()) {
            shapes[in.name] = it->second;
            continue;
        }
        if (in.type.kind != ValueType::Kind::Tensor || !in.type.shape) continue;
        Shape s;
        for (const Dim& d : *in.type.shape) s.push_back(d.known() ? d.value : o.symbolicDimValue);
        shapes[in.name] = s;
    }
    return shapes;
}

void runOnReferenceKernels(const Model& model, const ShapeLearningOptions& o, std::map<std::string, Shape>& values) {
    // The Session needs shared ownership; the caller's model outlives this call, so alias it without deleting.
    std::shared_ptr<const Model> alias(std::shared_ptr<const Model>(), &model);
    SessionOptions reference;
    reference.executor.backend = kReferenceBackend;  // every node's shapes, one kernel per node
    reference.exactRewrites = false;                 // every value of the caller's graph is produced
    Session session(alias, reference);
    std::map<std::string, Value> feeds;
    for (auto& [name, t] : makeInputs(session, 1, o.symbolicDimValue, o.inputShapes)) {
        values[name] = t.shape();
        feeds[name] = Value(std::move(t));
    }
    ValueShapeCollector collector(values);
    RunControl rc;
    rc.observer = &collector;
    // Learning must end on any model: a Loop without a trip count whose condition stays true would run forever.
    RunLimitsScope bounded(RunLimits{.maxLoopIterations = kMaxLearningLoopIterations,
                                     .loopCapReason = "shapes are learned with one reference run, which does not "
                                                      "execute unbounded loops (give the Loop a trip count)"});
    session.learn(feeds, rc);
}

}  // namespace

LearnedShapes learnShapes(const Model& model, const ShapeLearningOptions& options) {
    const Graph& g = model.graph;
    LearnedShapes learned;
    auto& values = learned.values;
    // What the model records: initializers, then every value whose recorded type is fully known.
    auto record = [&](const std::string& name) {
        if (name.empty() || values.count(name)) return;
        if (auto s = passes::staticShape(g, name)) values[name] = *s;
    };
    for (const auto& [name, t] : g.initializers) values[name] = t.shape();
    for (const auto& in : g.inputs) record(in.name);
    for (const Node& n : g.nodes) {
        for (const auto& in : n.inputs) record(in);
        for (const auto& out : n.outputs) record(out);
    }
    for (const auto& out : g.outputs) record(out.name);
    bool inputsOverridden = false;
    for (auto& [name, shape] : options.inputShapes)
        if (auto* s = learned.find(name); !s || *s != shape) inputsOverridden = true;
    if (!inputsOverridden && missingOutputs(g, values).empty()) return learned;

    // ONNX inference for the concrete input shapes (a forked child: milliseconds, and a crash in it is contained).
    std::map<std::string, Shape> inputs = concreteInputShapes(g, options);
    std::map<std::string, Shape> inferred;
    for (const auto& [name, type] : inferValueTypes(model, inputs)) {
        if (type.kind != ValueType::Kind::Tensor || !type.shape) continue;
        Shape s;
        bool known = true;
        for (const Dim& d : *type.shape) {
            known = known && d.known();
            s.push_back(d.value);
        }
        if (known) inferred[name] = s;
    }
    if (inputsOverridden) {  // the recorded shapes were for other input shapes: keep only the constants
        values.clear();
        for (const auto& [name, t] : g.initializers) values[name] = t.shape();
    }
    for (auto& [name, s] : inferred) values.emplace(name, s);
    for (auto& [name, s] : inputs) values[name] = s;
    learned.source = "inference";
    std::vector<std::string> missing = missingOutputs(g, values);
    if (missing.empty()) return learned;
    if (!options.allowReferenceRun) {
        learned.unresolved = std::move(missing);
        return learned;
    }
    // One learning run (the nodes inference cannot type run on the reference kernels, the rest only pass their
    // inferred shapes on); what it sees replaces inference's guesses, which can be wrong where data decides.
    std::map<std::string, Shape> seen;
    runOnReferenceKernels(model, options, seen);
    for (auto& [name, s] : seen) values[name] = std::move(s);
    learned.source = "reference run";
    learned.unresolved = missingOutputs(g, values);
    return learned;
}

}  // namespace npuwb
