#include "DifferentialHarness.h"

#include <cmath>

#include "npuwb/Session.h"
#include "npuwb/Error.h"

namespace npuwb::difftest {

std::string dimsLabel(const Shape& s) {
    std::string out;
    for (int64_t d : s) {
        if (!out.empty()) out += 'x';
        out += std::to_string(d);
    }
    return out;
}

Tensor randomTensor(const Shape& shape, std::mt19937& rng, float lo, float hi) {
    std::uniform_real_distribution<float> dist(lo, hi);
    Tensor t(DType::F32, shape);
    for (auto& v : t.values<float>()) v = dist(rng);
    return t;
}

Node makeNode(std::string op, std::vector<std::string> inputs, std::vector<std::string> outputs,
              std::map<std::string, Attribute> attributes) {
    Node n;
    n.name = op + "_" + outputs.at(0);
    n.opType = std::move(op);
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    n.attributes = std::move(attributes);
    return n;
}

Case makeCase(std::string label, std::vector<Node> nodes, const std::map<std::string, Shape>& graphInputs,
              const std::vector<std::string>& graphOutputs, std::map<std::string, Tensor> initializers,
              std::mt19937& rng, int64_t opset) {
    Case c;
    c.label = std::move(label);
    c.model = std::make_shared<Model>();
    c.model->opsetImports[""] = opset;
    Graph& g = c.model->graph;
    g.name = "difftest";
    g.nodes = std::move(nodes);
    g.initializers = std::move(initializers);
    for (const auto& [name, shape] : graphInputs) {
        ValueInfo vi{name, {}};
        vi.type.dtype = DType::F32;
        SymShape s;
        for (int64_t d : shape) s.push_back(Dim::of(d));
        vi.type.shape = s;
        g.inputs.push_back(vi);
        c.inputs[name] = randomTensor(shape, rng);
    }
    for (const auto& name : graphOutputs) {
        ValueInfo vi{name, {}};
        vi.type.dtype = DType::F32;
        g.outputs.push_back(vi);
    }
    return c;
}

Session referenceSession(std::shared_ptr<const Model> model) {
    SessionOptions asGiven;
    asGiven.executor.backend = kReferenceBackend;  // the oracle (the default is the fastest backend)
    asGiven.exactRewrites = false;
    return Session(std::move(model), asGiven);
}

Outcome runCase(const Case& c, const std::string& backend, double tolerance) {
    Outcome o;
    o.label = c.label;
    try {
        auto reference = referenceSession(c.model).runTensors(c.inputs);
        SessionOptions opts;
        opts.executor.backend = backend;
        opts.executor.threads = 2;
        Session fast(c.model, opts);
        fast.prepare(c.inputs);  // learning run + compile
        auto got = fast.runTensors(c.inputs);
        o.claimed = fast.fallbacks().empty();
        if (!o.claimed) o.message = "fallback: " + fast.fallbacks()[0].opType + ": " + fast.fallbacks()[0].reason;
        o.passed = true;
        for (const auto& [name, ref] : reference) {
            const Tensor& t = got.at(name);
            if (t.shape() != ref.shape()) {
                o.passed = false;
                o.message = name + ": shape " + shapeToString(t.shape()) + " vs reference " + shapeToString(ref.shape());
                return o;
            }
            auto a = ref.values<float>();
            auto b = t.values<float>();
            for (size_t i = 0; i < a.size(); ++i) {
                double err = std::abs(double(a[i]) - double(b[i])) / std::max(1.0, std::abs(double(a[i])));
                if (!(err <= o.worstRelative)) o.worstRelative = std::isnan(err) ? INFINITY : err;
            }
        }
        if (o.worstRelative > tolerance) {
            o.passed = false;
            o.message = "relative error " + std::to_string(o.worstRelative) + " above " + std::to_string(tolerance);
        }
    } catch (const std::exception& e) {
        o.passed = false;
        o.message = e.what();
    }
    return o;
}

std::unique_ptr<Session> preparedSession(std::shared_ptr<Model> model, const std::string& backend,
                                         const std::map<std::string, Tensor>& inputs, ExecutionObserver& watch) {
    RunControl control;
    control.observer = &watch;
    SessionOptions opts;
    opts.executor.backend = backend;
    auto session = std::make_unique<Session>(std::move(model), opts);
    session->prepare(inputs, control);
    return session;
}

}  // namespace npuwb::difftest
