#include "backend/BackendLoader.h"
#include "npuwb/Session.h"
#include "npuwb/Limits.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <set>
#include <thread>
#include <unordered_map>

#include "npuwb/ModelIO.h"
#include "ops/Kernel.h"
#include "ops/Parallel.h"
#include "runtime/BackendPlan.h"
#include "runtime/ExecutionRewrites.h"
#include "npuwb/ProcessMemory.h"

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

// Names a node reads: its inputs plus whatever its subgraph bodies (at any depth) read from enclosing scopes.
std::vector<std::string> valuesRead(const Node& node) {
    std::vector<std::string> names(node.inputs.begin(), node.inputs.end());
    for (const auto& [an, attr] : node.attributes) {
        std::vector<const Graph*> bodies;
        if (attr.g) bodies.push_back(attr.g.get());
        for (const auto& g : attr.graphs) bodies.push_back(g.get());
        for (const Graph* body : bodies)
            for (const auto& bn : body->nodes) {
                auto inner = valuesRead(bn);
                names.insert(names.end(), inner.begin(), inner.end());
            }
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

struct GraphRunner {
    int64_t opset;
    const RunControl* control = nullptr;  // only for the top level
    const Model* model = nullptr;
    bool profileKernels = false;
    /// Learning without running heavy nodes: nodes this recorder will not fold get placeholder outputs.
    const ValueShapeRecorder* shapeOnly = nullptr;
    const std::map<std::string, ValueType>* inferredTypes = nullptr;  // for shapeOnly; null: the graph's own
    const std::set<std::string>* watched = nullptr;  // top level: values control->values sees

    std::vector<Value> runGraph(const Graph& g, const Scope& scope, bool topLevel) const {
        std::vector<std::string> outer;  // names visible from enclosing scopes
        for (const Scope* s = &scope; s; s = s->parent)
            for (const auto& [n, v] : s->values) outer.push_back(n);
        std::vector<size_t> order = g.topologicalOrder(outer);
        return runOrdered(g, order, scope, topLevel);
    }

    std::vector<Value> runOrdered(const Graph& g, const std::vector<size_t>& order, const Scope& scope,
                                  bool topLevel, const BackendPlan* plan = nullptr) const {
        Scope local;
        local.parent = &scope;

        // Without a backend every node is its own step; with one, a segment is one step.
        std::vector<PlanStep> ownSteps;
        if (!plan) {
            ownSteps.reserve(order.size());
            for (size_t pos = 0; pos < order.size(); ++pos) ownSteps.push_back({pos, pos, -1});
        }
        const std::vector<PlanStep>& steps = plan ? plan->steps : ownSteps;
        // What each step reads, including values its subgraph bodies read implicitly from this scope.
        std::vector<std::vector<std::string>> readsOfStep;
        readsOfStep.reserve(steps.size());
        for (const auto& st : steps)
            readsOfStep.push_back(st.segment < 0 ? valuesRead(g.nodes[order[st.firstPos]])
                                                 : plan->segments[static_cast<size_t>(st.segment)].inputs);
        auto stepInputs = [&](const PlanStep& st) -> const std::vector<std::string>& {
            return readsOfStep[static_cast<size_t>(&st - steps.data())];
        };

        // Initializers are shared, not copied: Tensor copies share storage. With a plan only those a step or the
        // outputs read enter the scope: a QDQ model has hundreds (scales, zero points, weights a segment packed),
        // and adding them all to the map was a tenth of mobilenet_v2 w8a8's run.
        std::set<std::string> read;
        if (plan) {
            for (const auto& r : readsOfStep) read.insert(r.begin(), r.end());
            for (const auto& o : g.outputs) read.insert(o.name);
            if (watched)  // folded values the observer watches are shown from the scope too
                for (const auto& [name, t] : plan->folded)
                    if (watched->count(name)) read.insert(name);
        }
        auto wanted = [&](const std::string& name) { return !plan || read.count(name); };
        for (const auto& [name, t] : g.initializers)
            if (wanted(name) && !scope.values.count(name)) local.values.emplace(name, Value(t));
        if (plan)
            for (const auto& [name, t] : plan->folded)
                if (wanted(name)) local.values.emplace(name, Value(t));

        // Remaining uses of each value so it can be freed after the last consumer (graph outputs are kept).
        std::unordered_map<std::string, int> uses;
        for (const auto& st : steps)
            for (const auto& in : stepInputs(st))
                if (!in.empty()) ++uses[in];
        std::set<std::string> keep;
        for (const auto& o : g.outputs) keep.insert(o.name);

        ExecutionObserver* observer = topLevel && control ? control->observer : nullptr;
        ValueObserver* values = topLevel && control && watched && !shapeOnly ? control->values : nullptr;
        if (values && plan) {  // values the plan folded to constants (computed from constants only) are made now
            std::vector<std::string> folded;
            for (const auto& [name, t] : plan->folded) folded.push_back(name);
            observeWatched(folded, local, *values);
        }
        if (observer) observer->runStarted(order.size());
        KernelContext::SubgraphRunner subRunner;
        for (const PlanStep& st : steps) {
            checkRunLimits();  // at every level: a Loop body's nodes too
            if (st.segment >= 0) {
                const SegmentPlan& seg = plan->segments[static_cast<size_t>(st.segment)];
                runSegment(seg, *plan, local, order, st, observer, values);
                if (values) observeWatched(seg.outputs, local, *values);
            } else {
                runNode(g, order[st.firstPos], st.firstPos, local, observer);
                if (values) observeWatched(g.nodes[order[st.firstPos]].outputs, local, *values);
            }
            for (const auto& in : stepInputs(st)) {
                if (in.empty()) continue;
                auto u = uses.find(in);
                if (u != uses.end() && --u->second == 0 && !keep.count(in)) {
                    auto it = local.values.find(in);
                    if (it != local.values.end() && !g.initializers.count(in)) local.values.erase(it);
                }
            }
            if (topLevel && control && control->progress) control->progress(st.lastPos + 1, order.size());
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

    /// The watched ones among `names` (just produced at the top level) to `values`.
    void observeWatched(const std::vector<std::string>& names, const Scope& local, ValueObserver& values) const {
        for (const auto& name : names) {
            if (name.empty() || !watched->count(name)) continue;
            const Value* v = local.find(name);
            if (v && v->isTensor() && v->tensor.dtype() == DType::F32 && (v->tensor.numel() == 0 || v->tensor.raw()))
                values.observe(name, v->tensor.values<float>());
        }
    }

    /// A shape-only learning run folds DequantizeLinear of constant weights into a deferred tensor, made only if
    /// a run reads it: the int8 backends take the int8 source, and a QDQ model's float weights (resnet50: 100 MB)
    /// would otherwise sit beside the packed int8 ones at compile time.
    bool deferFold(const Node& node, const std::vector<const Value*>& inputs, Scope& local, ExecutionObserver* observer,
                   size_t step) const {
        if (node.opType != "DequantizeLinear" || !node.domain.empty() || node.outputs.size() != 1 ||
            inputs.size() < 2 || !shapeOnly->willFold(node))
            return false;
        for (const Value* v : inputs)
            if (v && (!v->isTensor() || v->tensor.isDeferred() || (v->tensor.numel() > 0 && !v->tensor.raw())))
                return false;
        const Tensor& x = inputs[0]->tensor;
        if (x.numel() < 4096) return false;  // small ones are cheaper to make now
        std::vector<Value> args;
        for (const Value* v : inputs) args.push_back(v ? *v : Value::none());
        KernelFn fn = KernelRegistry::instance().find("", "DequantizeLinear");
        if (!fn) return false;
        auto make = [fn, node, args = std::move(args), opset = opset]() {
            std::vector<const Value*> in;
            for (const auto& a : args) in.push_back(a.isNone() ? nullptr : &a);
            KernelContext ctx(node, opset, in, nullptr);
            fn(ctx);
            return ctx.outputs()[0].tensor;
        };
        std::vector<Value> outs{Value(Tensor::deferred(inputs[1]->tensor.dtype(), x.shape(), std::move(make)))};
        if (observer) observer->nodeStarted(step, node);
        if (observer) observer->nodeFinished(step, node, inputs, outs);
        local.values[node.outputs[0]] = std::move(outs[0]);
        return true;
    }

    void runNode(const Graph& g, size_t nodeIndex, size_t step, Scope& local, ExecutionObserver* observer) const {
        const Node& node = g.nodes[nodeIndex];
        std::vector<const Value*> inputs;
        inputs.reserve(node.inputs.size());
        for (const auto& in : node.inputs) {
            if (in.empty()) { inputs.push_back(nullptr); continue; }
            const Value* v = local.find(in);
            if (!v) failInput("node " + node.label() + ": input '" + in + "' has no value");
            inputs.push_back(v);
        }
        if (shapeOnly && deferFold(node, inputs, local, observer, step)) return;
        std::vector<Value> zeros;  // stand-ins for placeholder inputs (stable addresses: reserved)
        bool learnShapesOnly = false;
        if (shapeOnly && !shapeOnly->willFold(node)) {
            if (hasStaticInferredTypes(g, node, inferredTypes)) {
                std::vector<Value> outs = shapeOnlyOutputs(g, node, inferredTypes);
                if (observer) observer->nodeStarted(step, node);
                if (observer) observer->nodeFinished(step, node, inputs, outs);
                for (size_t i = 0; i < node.outputs.size(); ++i)
                    if (!node.outputs[i].empty()) local.values[node.outputs[i]] = std::move(outs[i]);
                return;
            }
            // ONNX's inference stopped before this node; its output shapes follow from its input shapes and
            // constant inputs (shapeOnlyLearningPossible checked). A kernel that can stop at its output shapes
            // does; any other runs for real, on zeros for placeholders.
            learnShapesOnly = KernelRegistry::instance().handlesShapesOnly(node.domain, node.opType);
            zeros.reserve(inputs.size());
            for (auto& in : inputs)
                if (!learnShapesOnly && in && in->isTensor() && in->tensor.numel() > 0 && in->tensor.raw() == nullptr) {
                    zeros.emplace_back(Tensor(in->tensor.dtype(), in->tensor.shape()));
                    in = &zeros.back();
                }
        }
        KernelFn fn = KernelRegistry::instance().find(node.domain, node.opType);
        if (!fn) failUnsupported("node " + node.label() + ": operator '" + node.opType + "' is not supported");
        const Scope* nodeScope = &local;
        KernelContext ctx(node, opset, inputs, [this, nodeScope](const Graph& body, const std::vector<Value>& args) {
            return runBody(body, *nodeScope, args);
        });
        ctx.setShapesOnly(learnShapesOnly);
        if (observer) observer->nodeStarted(step, node);
        try {
            fn(ctx);
        } catch (const Error& e) {
            const std::string msg = e.what();
            if (msg.rfind("node ", 0) == 0 || e.kind() == ErrorKind::Cancelled) throw;
            throw Error(e.kind(), "node " + node.label() + ": " + msg);
        } catch (const std::bad_alloc&) {
            failInput("node " + node.label() + ": out of memory");
        } catch (const std::length_error&) {  // a container asked for more elements than it can hold
            failInput("node " + node.label() + ": its inputs ask for a size too large to hold");
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
    }

    /// Forwards a segment's kernel times to the observer as positions in the execution order.
    struct StepTimingSink : KernelTimingSink {
        const BackendPlan& plan;
        ExecutionObserver& observer;
        StepTimingSink(const BackendPlan& p, ExecutionObserver& o) : plan(p), observer(o) {}
        void kernelTimed(const std::vector<std::string>& nodeNames, double microseconds) override {
            std::vector<size_t> steps;
            for (const auto& n : nodeNames) {
                auto it = plan.positionOfNode.find(n);
                if (it != plan.positionOfNode.end()) steps.push_back(it->second);
            }
            if (!steps.empty()) observer.kernelTimed(steps, microseconds);
        }
    };

    void runSegment(const SegmentPlan& seg, const BackendPlan& plan, Scope& local, const std::vector<size_t>& order,
                    const PlanStep& st, ExecutionObserver* observer, ValueObserver* values) const {
        std::vector<const Tensor*> inputs;
        inputs.reserve(seg.inputs.size());
        auto where = [&] {  // built on failure only: a string per run showed in small models' profiles
            return "backend segment at node " + model->graph.nodes[order[st.firstPos]].layerName();
        };
        for (const auto& in : seg.inputs) {
            const Value* v = local.find(in);
            if (!v || !v->isTensor()) failInput(where() + ": input '" + in + "' has no tensor value");
            inputs.push_back(&v->tensor);
        }
        std::vector<Tensor> outputs(seg.outputs.size());
        std::optional<StepTimingSink> sink;
        if (observer && profileKernels && observer->wantsKernelTimes()) sink.emplace(plan, *observer);
        try {
            seg.prepared->run(inputs, outputs, RunHooks{.timing = sink ? &*sink : nullptr, .values = values});
        } catch (const Error& e) {
            if (e.kind() == ErrorKind::Cancelled) throw;
            throw Error(e.kind(), where() + ": " + e.what());
        } catch (const std::bad_alloc&) {
            failInput(where() + ": out of memory");
        } catch (const std::exception& e) {
            fail(ErrorKind::Internal, where() + ": " + e.what());
        }
        for (size_t i = 0; i < seg.outputs.size(); ++i) {
            if (!outputs[i].defined()) fail(ErrorKind::Internal, where() + ": did not produce '" + seg.outputs[i] + "'");
            local.values[seg.outputs[i]] = Value(std::move(outputs[i]));
        }
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

/// Sends every event to the shape recorder and, when set, to the caller's observer.
struct ForwardingObserver : ExecutionObserver {
    ExecutionObserver& first;
    ExecutionObserver* second;
    ForwardingObserver(ExecutionObserver& a, ExecutionObserver* b) : first(a), second(b) {}
    void runStarted(size_t n) override { first.runStarted(n); if (second) second->runStarted(n); }
    void nodeStarted(size_t step, const Node& node) override {
        first.nodeStarted(step, node);
        if (second) second->nodeStarted(step, node);
    }
    void nodeFinished(size_t step, const Node& node, const std::vector<const Value*>& in,
                      const std::vector<Value>& out) override {
        first.nodeFinished(step, node, in, out);
        if (second) second->nodeFinished(step, node, in, out);
    }
    void runFinished() override { first.runFinished(); if (second) second->runFinished(); }
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

int physicalCoreCount() {
    // Distinct (physical id, core id) pairs; SMT siblings share a core and gain little on conv/GEMM work.
    std::ifstream in("/proc/cpuinfo");
    std::set<std::pair<std::string, std::string>> cores;
    std::string physical, line;
    while (std::getline(in, line)) {
        auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
        std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
        if (key == "physical id") physical = value;
        if (key == "core id") cores.insert({physical, value});
    }
    if (!cores.empty()) return static_cast<int>(cores.size());
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

std::string resolveBackendName(const std::string& requested) {
    if (requested != kAutoBackend) return requested;
#if defined(__x86_64__) || defined(__i386__)
    const std::vector<std::string> preferred = {"cpu-onednn", "cpu-xnnpack"};
#else
    const std::vector<std::string> preferred = {"cpu-xnnpack", "cpu-onednn"};
#endif
    std::vector<std::string> found = availableBackends();
    for (const auto& p : preferred)
        if (std::find(found.begin(), found.end(), p) != found.end()) return p;
    return kReferenceBackend;
}

Session::Session(std::shared_ptr<const Model> model)
    : Session(std::move(model), SessionOptions{.executor = {.backend = kReferenceBackend}}) {}

Session::Session(std::shared_ptr<const Model> model, const SessionOptions& options) : model_(std::move(model)) {
    if (!model_) failInput("no model");
    if (options.executor.threads < 0) failInput("threads cannot be negative");
    checkOpsKnown(model_->graph);
    if (options.exactRewrites) model_ = rewriteForExecution(model_, options.watched, &rewrites_);
    order_ = model_->graph.topologicalOrder();
    for (const auto& in : model_->graph.inputs)
        if (!model_->graph.initializers.count(in.name)) requiredInputs_.push_back(in);
    if (!options.watched.empty()) watched_ = std::make_shared<const std::set<std::string>>(options.watched);
    const std::string name = resolveBackendName(options.executor.backend);
    // The reference executor stays single-threaded (the oracle, and what the GUI and reports say); with a backend,
    // the fallbacks' fast paths (data movement, float elementwise) use the backend's threads too.
    if (name == kReferenceBackend) return;
    threads_ = options.executor.threads > 0 ? options.executor.threads : physicalCoreCount();
    backend_ = std::make_shared<BackendState>();
    backend_->backend = loadBackend(name);
    backend_->backend->setThreads(threads_);
    backend_->profileKernels = options.profileKernels;
}

Session::~Session() = default;

std::string Session::backendName() const { return backend_ ? backend_->backend->name() : kReferenceBackend; }

Session Session::newContext(int threads) const {
    if (threads < 0) failInput("threads cannot be negative");
    Session context(*this);
    if (!backend_) return context;  // the reference kernels keep no state between runs
    auto state = std::make_shared<BackendState>();
    state->backend = backend_->backend;  // the same instance: what it packed for this model is reused
    state->profileKernels = backend_->profileKernels;
    state->compileMutex = backend_->compileMutex;
    context.backend_ = std::move(state);
    if (threads > 0) context.threads_ = threads;
    return context;
}

SessionMemory Session::memory() const {
    SessionMemory m;
    if (!backend_) {
        for (const auto& [name, t] : model_->graph.initializers) m.weightBytes += static_cast<int64_t>(t.byteSize());
        m.weightsShared = true;  // the reference kernels read the model's tensors in place
        return m;
    }
    std::lock_guard lock(backend_->mutex);
    m.weightBytes = backend_->backend->packedWeightBytes();
    m.weightsShared = backend_->backend->sharesPackedWeights();
    if (backend_->plan)
        for (const SegmentPlan& s : backend_->plan->segments) m.scratchBytes += s.prepared->scratchBytes();
    return m;
}

std::vector<FallbackRow> Session::fallbacks() const {
    if (!backend_) return {};
    std::lock_guard lock(backend_->mutex);
    return backend_->plan ? backend_->plan->fallbacks : std::vector<FallbackRow>{};
}

std::map<std::string, Value> Session::run(const std::map<std::string, Value>& inputs, const RunControl& control) const {
    return runOrCompile(inputs, control, RunMode::Run);
}

void Session::learn(const std::map<std::string, Value>& inputs, const RunControl& control) const {
    runOrCompile(inputs, control, RunMode::LearnOnly);
}

std::map<std::string, Value> Session::runOrCompile(const std::map<std::string, Value>& inputs, const RunControl& control,
                                                   RunMode mode) const {
    const Graph& g = model_->graph;
    KernelThreadsScope kernelThreads(threads_);
    Scope root;
    for (const auto& [name, v] : inputs) {
        bool known = false;
        for (const auto& d : g.inputs) known = known || d.name == name;
        if (!known) failInput("the model has no input named '" + name + "'");
    }
    for (const auto& declared : g.inputs) {
        auto it = inputs.find(declared.name);
        if (it == inputs.end()) {
            if (g.initializers.count(declared.name)) continue;  // the initializer is the default value
            failInput("input '" + declared.name + "' is required but was not given");
        }
        checkInputAgainstDeclared(declared, it->second);
        root.values[declared.name] = it->second;
    }
    // The cancel flag is checked between nodes at every level, in Loop/Scan bodies and long kernels; a time limit
    // comes from an enclosing RunLimitsScope or the process deadline (npuwb/Limits.h).
    RunLimitsScope limitsScope(RunLimits{.cancel = control.cancel});
    GraphRunner runner{model_->opset(""), &control, model_.get(), false};
    runner.watched = watched_.get();
    std::vector<Value> results;
    if (!backend_ && mode != RunMode::LearnOnly) {
        results = runner.runOrdered(g, order_, root, true);
    } else {
        std::optional<std::lock_guard<std::mutex>> lock;
        if (backend_) lock.emplace(backend_->mutex);
        std::vector<std::pair<std::string, Shape>> shapes;
        for (const auto& [name, v] : root.values)
            shapes.emplace_back(name, v.isTensor() ? v.tensor.shape() : Shape{-1});
        std::sort(shapes.begin(), shapes.end());
        if (mode == RunMode::LearnOnly || !backend_->plan || shapes != backend_->compiledFor) {
            // Learning run: every value's type and shape, and the plan's constants. When ONNX's inferred types
            // cover the graph for these shapes, only constant nodes run and the plan then runs this input;
            // otherwise the reference kernels run everything and give this run's results.
            if (backend_) backend_->plan.reset();
            const bool placeholdersOk = !control.observer || control.observer->acceptsPlaceholderOutputs();
            bool shapeOnly = placeholdersOk && shapeOnlyLearningPossible(g, order_, shapes);
            // Symbolic input dims: ONNX inference again with the fed shapes (a forked child, milliseconds) usually
            // still beats a full reference run.
            std::map<std::string, ValueType> concrete;
            bool allTensors = true;
            for (const auto& [name, v] : root.values) allTensors = allTensors && v.isTensor();
            if (placeholdersOk && !shapeOnly && allTensors) {
                std::map<std::string, Shape> fedShapes;
                for (const auto& [name, shape] : shapes) fedShapes[name] = shape;
                concrete = inferValueTypes(*model_, fedShapes);
                shapeOnly = !concrete.empty() && shapeOnlyLearningPossible(g, order_, shapes, &concrete);
            }
            std::vector<std::string> fed;
            for (const auto& [name, v] : inputs) fed.push_back(name);
            ValueShapeRecorder recorder(g, fed);
            RunControl learning = control;
            ForwardingObserver both(recorder, control.observer);
            learning.observer = &both;
            if (shapeOnly) learning.progress = nullptr;
            // A full reference run frees and allocates many large tensors: keep freed blocks for reuse instead
            // of unmapping and zero-faulting them again (PP-OCRv4 rec: most of session creation).
            std::optional<ReuseFreedBlocks> reuse;
            if (!shapeOnly) reuse.emplace();
            GraphRunner reference{model_->opset(""), &learning, model_.get(), false};
            reference.watched = watched_.get();
            reference.shapeOnly = shapeOnly ? &recorder : nullptr;
            reference.inferredTypes = concrete.empty() ? nullptr : &concrete;
            results = reference.runOrdered(g, order_, root, true);
            if (mode == RunMode::LearnOnly) return {};
            for (const auto& [name, v] : root.values)
                if (v.isTensor()) recorder.values[name] = ValueDesc{v.tensor.dtype(), v.tensor.shape(), nullptr};
            {
                std::lock_guard compiling(*backend_->compileMutex);
                backend_->backend->setThreads(threads_);  // this context's (the instance may serve several)
                backend_->plan = compileBackendPlan(*backend_->backend, g, model_->opset(""), order_,
                                                    std::move(recorder), watched_.get());
            }
            backend_->compiledFor = std::move(shapes);
            if (shapeOnly) {
                if (mode == RunMode::CompileOnly) return {};
                runner.profileKernels = backend_->profileKernels;
                results = runner.runOrdered(g, order_, root, true, backend_->plan.get());
            }
        } else {
            runner.profileKernels = backend_->profileKernels;
            results = runner.runOrdered(g, order_, root, true, backend_->plan.get());
        }
    }
    std::map<std::string, Value> out;
    for (size_t i = 0; i < g.outputs.size(); ++i) out[g.outputs[i].name] = std::move(results[i]);
    return out;
}

void Session::prepare(const std::map<std::string, Tensor>& inputs, const RunControl& control) const {
    if (!backend_) return;
    {
        std::lock_guard lock(backend_->mutex);
        std::vector<std::pair<std::string, Shape>> shapes;
        for (const auto& [name, t] : inputs) shapes.emplace_back(name, t.shape());
        if (backend_->plan && shapes == backend_->compiledFor) return;
    }
    std::map<std::string, Value> in;
    for (const auto& [k, t] : inputs) in[k] = Value(t);
    runOrCompile(in, control, RunMode::CompileOnly);
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
