#include "runtime/Session.h"

#include <set>
#include <unordered_map>

#include "ops/Kernel.h"

namespace npuwb {

namespace {

/// Value lookup through nested scopes: a subgraph sees its own values first, then its enclosing graphs'.
struct Scope {
    std::unordered_map<std::string, Value> values;
    const Scope* parent = nullptr;
    const Value* find(const std::string& name) const {
        for (const Scope* s = this; s; s = s->parent) {
            auto it = s->values.find(name);
            if (it != s->values.end()) return &it->second;
        }
        return nullptr;
    }
};

void checkOpsKnown(const Graph& g) {
    for (const auto& n : g.nodes) {
        if (!KernelRegistry::instance().find(n.domain, n.opType))
            failUnsupported("node " + n.label() + ": operator '" + (n.domain.empty() ? "" : n.domain + ".") + n.opType +
                            "' is not supported by the engine");
        for (const auto& [name, a] : n.attributes) {
            if (a.g) checkOpsKnown(*a.g);
            for (const auto& sub : a.graphs) checkOpsKnown(*sub);
        }
    }
}

struct GraphRunner {
    int64_t opset;
    const RunControl* control = nullptr;  // only for the top level

    std::vector<Value> runGraph(const Graph& g, const Scope& scope, bool topLevel) const {
        std::vector<std::string> outer;  // names visible from enclosing scopes
        for (const Scope* s = &scope; s; s = s->parent)
            for (const auto& [n, v] : s->values) outer.push_back(n);
        std::vector<size_t> order = g.topologicalOrder(outer);
        return runOrdered(g, order, scope, topLevel);
    }

    std::vector<Value> runOrdered(const Graph& g, const std::vector<size_t>& order, const Scope& scope,
                                  bool topLevel) const {
        Scope local;
        local.parent = &scope;
        // Initializers are shared, not copied: Tensor copies share storage.
        for (const auto& [name, t] : g.initializers)
            if (!scope.values.count(name)) local.values.emplace(name, Value(t));

        // Remaining uses of each value so it can be freed after the last consumer (graph outputs are kept).
        std::unordered_map<std::string, int> uses;
        for (size_t idx : order)
            for (const auto& in : g.nodes[idx].inputs)
                if (!in.empty()) ++uses[in];
        std::set<std::string> keep;
        for (const auto& o : g.outputs) keep.insert(o.name);

        ExecutionObserver* observer = topLevel && control ? control->observer : nullptr;
        if (observer) observer->runStarted(order.size());
        KernelContext::SubgraphRunner subRunner;
        for (size_t step = 0; step < order.size(); ++step) {
            if (topLevel && control && control->cancel && control->cancel->load())
                fail(ErrorKind::Cancelled, "run cancelled");
            const Node& node = g.nodes[order[step]];
            std::vector<const Value*> inputs;
            inputs.reserve(node.inputs.size());
            for (const auto& in : node.inputs) {
                if (in.empty()) { inputs.push_back(nullptr); continue; }
                const Value* v = local.find(in);
                if (!v) failInput("node " + node.label() + ": input '" + in + "' has no value");
                inputs.push_back(v);
            }
            KernelFn fn = KernelRegistry::instance().find(node.domain, node.opType);
            if (!fn) failUnsupported("node " + node.label() + ": operator '" + node.opType + "' is not supported");
            const Scope* nodeScope = &local;
            KernelContext ctx(node, opset, inputs, [this, nodeScope](const Graph& body, const std::vector<Value>& args) {
                return runBody(body, *nodeScope, args);
            });
            if (observer) observer->nodeStarted(step, node);
            try {
                fn(ctx);
            } catch (const Error& e) {
                const std::string msg = e.what();
                if (msg.rfind("node ", 0) == 0 || e.kind() == ErrorKind::Cancelled) throw;
                throw Error(e.kind(), "node " + node.label() + ": " + msg);
            } catch (const std::bad_alloc&) {
                failInput("node " + node.label() + ": out of memory");
            } catch (const std::exception& e) {
                fail(ErrorKind::Internal, "node " + node.label() + ": " + e.what());
            }
            auto& outs = ctx.outputs();
            for (size_t i = 0; i < node.outputs.size(); ++i) {
                if (node.outputs[i].empty()) continue;
                if (outs[i].isTensor() && !outs[i].tensor.defined())
                    fail(ErrorKind::Internal, "node " + node.label() + ": kernel did not produce output '" + node.outputs[i] + "'");
            }
            if (observer) observer->nodeFinished(step, node, inputs, outs);
            for (size_t i = 0; i < node.outputs.size(); ++i)
                if (!node.outputs[i].empty()) local.values[node.outputs[i]] = std::move(outs[i]);
            for (const auto& in : node.inputs) {
                if (in.empty()) continue;
                auto u = uses.find(in);
                if (u != uses.end() && --u->second == 0 && !keep.count(in)) {
                    auto it = local.values.find(in);
                    if (it != local.values.end() && !g.initializers.count(in)) local.values.erase(it);
                }
            }
            if (topLevel && control && control->progress) control->progress(step + 1, order.size());
        }
        if (observer) observer->runFinished();
        std::vector<Value> results;
        for (const auto& o : g.outputs) {
            const Value* v = local.find(o.name);
            if (!v) failInput("graph output '" + o.name + "' is never produced");
            results.push_back(*v);
        }
        return results;
    }

    std::vector<Value> runBody(const Graph& body, const Scope& outer, const std::vector<Value>& args) const {
        Scope bound;
        bound.parent = &outer;
        if (args.size() > body.inputs.size())
            failInput("subgraph '" + body.name + "' takes " + std::to_string(body.inputs.size()) + " inputs, got " +
                      std::to_string(args.size()));
        for (size_t i = 0; i < args.size(); ++i) bound.values[body.inputs[i].name] = args[i];
        return runGraph(body, bound, false);
    }
};

}  // namespace

void checkInputAgainstDeclared(const ValueInfo& declared, const Value& value) {
    const ValueType& t = declared.type;
    if (t.kind != ValueType::Kind::Tensor || !value.isTensor()) return;
    const Tensor& v = value.tensor;
    if (t.dtype != DType::Undefined && v.dtype() != t.dtype)
        failInput("input '" + declared.name + "' is " + std::string(dtypeName(v.dtype())) + " but the model expects " +
                  std::string(dtypeName(t.dtype)));
    if (!t.shape) return;
    const SymShape& s = *t.shape;
    bool ok = s.size() == v.rank();
    for (size_t i = 0; ok && i < s.size(); ++i)
        if (s[i].known() && s[i].value != v.shape()[i]) ok = false;
    if (!ok)
        failInput("input '" + declared.name + "' has shape " + shapeToString(v.shape()) + " but the model expects " +
                  symShapeToString(s));
}

Session::Session(std::shared_ptr<const Model> model) : model_(std::move(model)) {
    if (!model_) failInput("no model");
    checkOpsKnown(model_->graph);
    order_ = model_->graph.topologicalOrder();
    for (const auto& in : model_->graph.inputs)
        if (!model_->graph.initializers.count(in.name)) requiredInputs_.push_back(in);
}

std::map<std::string, Value> Session::run(const std::map<std::string, Value>& inputs, const RunControl& control) const {
    const Graph& g = model_->graph;
    Scope root;
    for (const auto& declared : g.inputs) {
        auto it = inputs.find(declared.name);
        if (it == inputs.end()) {
            if (g.initializers.count(declared.name)) continue;  // the initializer is the default value
            failInput("input '" + declared.name + "' is required but was not given");
        }
        checkInputAgainstDeclared(declared, it->second);
        root.values[declared.name] = it->second;
    }
    for (const auto& [name, v] : inputs) {
        bool known = false;
        for (const auto& d : g.inputs) known = known || d.name == name;
        if (!known) failInput("the model has no input named '" + name + "'");
    }
    GraphRunner runner{model_->opset(""), &control};
    std::vector<Value> results = runner.runOrdered(g, order_, root, true);
    std::map<std::string, Value> out;
    for (size_t i = 0; i < g.outputs.size(); ++i) out[g.outputs[i].name] = std::move(results[i]);
    return out;
}

std::map<std::string, Tensor> Session::runTensors(const std::map<std::string, Tensor>& inputs,
                                                  const RunControl& control) const {
    std::map<std::string, Value> in;
    for (const auto& [k, t] : inputs) in[k] = Value(t);
    std::map<std::string, Tensor> out;
    for (auto& [k, v] : run(in, control)) {
        if (!v.isTensor()) failUnsupported("output '" + k + "' is not a tensor");
        out[k] = std::move(v.tensor);
    }
    return out;
}

}  // namespace npuwb
