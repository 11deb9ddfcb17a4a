#include "xnnpack_harness.h"

#include <cmath>

#include "backend/BackendLoader.h"
#include "npuwb/Session.h"

namespace npuwb::test {

Tensor randomTensor(std::mt19937& rng, const Shape& shape, float lo, float hi) {
    Tensor t(DType::F32, shape);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (float& v : t.values<float>()) v = dist(rng);
    return t;
}

GraphBuilder::GraphBuilder(int64_t opset) : model_(std::make_shared<Model>()) {
    model_->opsetImports[""] = opset;
    model_->graph.name = "differential";
}

std::string GraphBuilder::input(std::mt19937& rng, const Shape& shape, float lo, float hi) {
    const std::string name = "in" + std::to_string(counter_++);
    ValueInfo info;
    info.name = name;
    info.type.dtype = DType::F32;
    SymShape dims;
    for (int64_t d : shape) dims.push_back(Dim::of(d));
    info.type.shape = dims;
    model_->graph.inputs.push_back(info);
    inputs_[name] = randomTensor(rng, shape, lo, hi);
    return name;
}

std::string GraphBuilder::constant(Tensor value) {
    const std::string name = "w" + std::to_string(counter_++);
    model_->graph.initializers[name] = std::move(value);
    return name;
}

std::string GraphBuilder::node(const std::string& op, std::vector<std::string> inputs,
                               std::map<std::string, Attribute> attributes) {
    Node n;
    n.name = op + "_" + std::to_string(counter_++);
    n.opType = op;
    n.inputs = std::move(inputs);
    n.outputs = {"v" + std::to_string(counter_++)};
    n.attributes = std::move(attributes);
    model_->graph.nodes.push_back(n);
    return n.outputs[0];
}

void GraphBuilder::output(const std::string& name) {
    ValueInfo info;
    info.name = name;
    info.type.dtype = DType::F32;
    model_->graph.outputs.push_back(info);
}

std::string DiffResult::fallbackText() const {
    std::string s;
    for (const FallbackRow& f : fallbacks) s += f.node + " (" + f.opType + "): " + f.reason + "\n";
    return s;
}

std::shared_ptr<Backend> xnnpackBackend(int threads) {
    std::shared_ptr<Backend> backend = loadBackend("cpu-xnnpack");
    backend->setThreads(threads);
    return backend;
}

namespace {

/// Keeps every value the reference run produces: the backend's type/shape oracle and the fallback nodes' values.
class Recorder final : public ExecutionObserver {
public:
    std::map<std::string, Tensor> values;
    void nodeFinished(size_t, const Node& node, const std::vector<const Value*>&,
                      const std::vector<Value>& outputs) override {
        for (size_t i = 0; i < outputs.size() && i < node.outputs.size(); ++i)
            if (!node.outputs[i].empty() && outputs[i].isTensor()) values[node.outputs[i]] = outputs[i].tensor;
    }
};

}  // namespace

DiffResult runDifferential(const Model& model, const std::map<std::string, Tensor>& inputs, Backend& backend) {
    auto shared = std::make_shared<const Model>(model);
    Session session(shared);
    Recorder recorder;
    RunControl control;
    control.observer = &recorder;
    const std::map<std::string, Tensor> reference = session.runTensors(inputs, control);

    std::map<std::string, ValueDesc> descs;
    std::map<std::string, Tensor> env = recorder.values;
    for (const auto& [name, t] : inputs) env[name] = t;
    for (const auto& [name, t] : shared->graph.initializers) descs[name] = {t.dtype(), t.shape(), &t};
    for (const auto& [name, t] : env)
        if (!descs.count(name)) descs[name] = {t.dtype(), t.shape(), nullptr};

    const GraphQuery query{shared->graph, shared->opset(), session.executionOrder(),
                           [&](const std::string& name) -> const ValueDesc* {
                               const auto it = descs.find(name);
                               return it == descs.end() ? nullptr : &it->second;
                           }};
    CompileResult compiled = backend.compile(query);
    DiffResult result;
    result.segments = compiled.segments.size();
    result.fallbacks = compiled.fallbacks;
    // Segments run in order on the values so far; what they produce replaces the reference values.
    for (SegmentPlan& plan : compiled.segments) {
        result.segmentNodes += plan.nodes.size();
        std::vector<const Tensor*> ins;
        for (const std::string& name : plan.inputs) ins.push_back(&env.at(name));
        std::vector<Tensor> outs(plan.outputs.size());
        plan.prepared->run(ins, outs, {});
        for (size_t i = 0; i < outs.size(); ++i) env[plan.outputs[i]] = outs[i];
    }
    for (const auto& [name, ref] : reference) {
        const Tensor& got = env.at(name);
        if (got.shape() != ref.shape()) {
            result.worstError = INFINITY;
            result.worstWhere = name + ": shape " + shapeToString(got.shape()) + " vs " + shapeToString(ref.shape());
            continue;
        }
        const auto r = ref.values<float>();
        const auto g = got.values<float>();
        for (size_t i = 0; i < r.size(); ++i) {
            const double err = std::abs(static_cast<double>(g[i]) - r[i]) / std::max(1.0, std::abs(double(r[i])));
            if (!(err <= result.worstError)) {  // also catches NaN
                result.worstError = std::isnan(err) ? INFINITY : err;
                result.worstWhere = name + "[" + std::to_string(i) + "] got " + std::to_string(g[i]) + " want " +
                                    std::to_string(r[i]);
            }
        }
    }
    return result;
}

}  // namespace npuwb::test
