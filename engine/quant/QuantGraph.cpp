#include "quant/QuantGraph.h"

#include <algorithm>
#include <unordered_map>
#include <exception>
#include <mutex>
#include <set>
#include <thread>

#include "npuwb/Session.h"
#include "npuwb/Error.h"
#include "runtime/BackendPlan.h"

namespace npuwb::quant::detail {

namespace {

bool isConstant(const Graph& g, const std::string& name) { return !name.empty() && g.initializers.count(name); }

const Tensor* constant(const Graph& g, const Node& n, size_t input) {
    if (input >= n.inputs.size() || !isConstant(g, n.inputs[input])) return nullptr;
    const Tensor& t = g.initializers.at(n.inputs[input]);
    return t.dtype() == DType::F32 ? &t : nullptr;
}

// Ops whose float activation inputs get QDQ: what an NPU runs in int8 and ONNX Runtime's QDQ tooling quantizes.
// Relu/Clip are left out on purpose: they fuse into the producing Conv, whose output is quantized after them.
const std::set<std::string> kActivationOps = {"Add",       "Sub",         "Mul",       "Concat",
                                              "MaxPool",   "AveragePool", "GlobalAveragePool",
                                              "Resize",    "Sigmoid",     "HardSigmoid", "HardSwish",
                                              "LeakyRelu", "MatMul"};

const Node* producerOf(const Graph& g, const std::string& value) {
    // Asked once per activation input: a walk each time made quantizing a 20,000-node chain quadratic. The index
    // is a hint: a hit is verified, a miss (graph inputs, constants, an edited graph) takes the exact walk.
    // Positions, not pointers: appended nodes (QDQ insertion) only extend it.
    thread_local struct {
        const Graph* graph = nullptr;
        size_t size = 0;
        std::unordered_map<std::string, size_t> at;
    } index;
    if (index.graph != &g || index.size > g.nodes.size()) {
        index.graph = &g;
        index.size = 0;
        index.at.clear();
    }
    for (; index.size < g.nodes.size(); ++index.size)
        for (const auto& o : g.nodes[index.size].outputs) index.at.emplace(o, index.size);
    auto has = [&](const Node& n) { return std::find(n.outputs.begin(), n.outputs.end(), value) != n.outputs.end(); };
    if (auto it = index.at.find(value); it != index.at.end() && it->second < g.nodes.size() && has(g.nodes[it->second]))
        return &g.nodes[it->second];
    if (g.initializers.count(value)) return nullptr;  // a constant has no producer (the common miss)
    for (const auto& n : g.nodes)
        if (has(n)) return &n;
    return nullptr;
}

/// Mul by a constant scalar 1 (paddle2onnx's Swish writes x * Sigmoid(x * 1.0)): a no-op the NPU's converter
/// drops, so it is not quantized and the fusion rules below look through it.
bool isIdentityMul(const Node& n, const Graph& g) {
    if (n.opType != "Mul" || n.inputs.size() != 2 || !n.domain.empty()) return false;
    for (size_t i = 0; i < 2; ++i) {
        const Tensor* c = constant(g, n, i);
        if (c && c->numel() == 1 && c->values<float>()[0] == 1.0f && !isConstant(g, n.inputs[1 - i])) return true;
    }
    return false;
}

/// The value `value` is a copy of, through identity Muls.
std::string sourceOf(const Graph& g, std::string value) {
    for (int hops = 0; hops < 8; ++hops) {
        const Node* p = producerOf(g, value);
        if (!p || !isIdentityMul(*p, g)) break;
        value = isConstant(g, p->inputs[0]) ? p->inputs[1] : p->inputs[0];
    }
    return value;
}

bool isConvOutput(const Graph& g, const std::string& value) {
    const Node* p = producerOf(g, sourceOf(g, value));
    return p && (p->opType == "Conv" || p->opType == "ConvTranspose") && p->domain.empty();
}

// Activations the NPU fuses into the Conv that produces their input (ConvSigmoid, ConvHardSigmoid, ConvHardSwish,
// ConvLeakyRelu, ConvSwish; RKNN SDK user guide V2.5.0, 5.2.4.2): the Conv's int32 result goes through the activation
// in higher precision and is requantized once, after it. So, as for Relu and Clip, the value between the Conv and the
// activation is never an int8 tensor on the NPU and gets no QDQ here; quantizing it anyway added a rounding step the
// deployed model does not have (PP-OCRv4 rec: 28 HardSwish and 5 Swish after Convs).
const std::set<std::string> kConvFusedActivations = {"Sigmoid", "HardSigmoid", "HardSwish", "LeakyRelu"};

/// Whether input `in` of `n` stays inside a fused Conv + activation: the activation's input, or both inputs of a
/// Swish's Mul (x * Sigmoid(x), x from a Conv).
bool insideFusedConvActivation(const Node& n, const Graph& g, const std::string& in) {
    if (n.inputs.size() == 1 && kConvFusedActivations.count(n.opType)) return isConvOutput(g, in);
    if (n.opType != "Mul" || n.inputs.size() != 2) return false;
    for (size_t i = 0; i < 2; ++i) {
        const std::string x = sourceOf(g, n.inputs[i]);
        const Node* gate = producerOf(g, n.inputs[1 - i]);
        if (gate && gate->opType == "Sigmoid" && gate->inputs.size() == 1 && sourceOf(g, gate->inputs[0]) == x &&
            isConvOutput(g, x))
            return true;
    }
    return false;
}

/// Input `in` of Add `n` is a MatMul's result and the other input its bias (a constant of the MatMul's output
/// channels): the NPU adds the bias inside the matmul, as a Conv does, so the result before it is never int8.
bool isMatMulBiasInput(const Node& n, const Graph& g, const std::string& in) {
    if (n.opType != "Add" || n.inputs.size() != 2) return false;
    const Node* p = producerOf(g, in);
    if (!p || p->opType != "MatMul" || !p->domain.empty()) return false;
    const WeightInfo w = weightInfo(*p, g);
    const Tensor* bias = constant(g, n, n.inputs[0] == in ? 1 : 0);
    if (w.weightInput < 0 || w.channelAxis < 0 || !bias || bias->rank() == 0) return false;
    const Tensor& weight = g.initializers.at(p->inputs[static_cast<size_t>(w.weightInput)]);
    return bias->numel() == weight.dim(static_cast<size_t>(w.channelAxis)) &&
           bias->dim(bias->rank() - 1) == bias->numel();
}

}  // namespace

bool isFloatValue(const Graph& g, const std::string& value) {
    if (value.empty()) return false;
    if (auto it = g.initializers.find(value); it != g.initializers.end()) return it->second.dtype() == DType::F32;
    const ValueInfo* vi = g.findValueInfo(value);
    return !vi || vi->type.dtype == DType::Undefined || vi->type.dtype == DType::F32;
}

WeightInfo weightInfo(const Node& n, const Graph& g) {
    WeightInfo w;
    if (!n.domain.empty() || n.inputs.size() < 2 || isConstant(g, n.inputs[0])) return w;
    const Tensor* weight = constant(g, n, 1);
    if (!weight) return w;
    const Tensor* bias = constant(g, n, 2);
    if (n.opType == "Conv" && weight->rank() >= 3) {
        w = {1, -1, 0, false};
        if (bias && bias->rank() == 1 && bias->numel() == weight->dim(0)) w.biasInput = 2;
    } else if (n.opType == "ConvTranspose" && weight->rank() >= 3) {
        // Per channel needs group 1 (weight [Cin, Cout, ...], axis 1); grouped ones stay per tensor.
        w = {1, -1, n.attrInt("group", 1) == 1 ? 1 : -1, false};
        if (bias && bias->rank() == 1 && w.channelAxis == 1 && bias->numel() == weight->dim(1)) w.biasInput = 2;
    } else if (n.opType == "Gemm" && weight->rank() == 2) {
        const bool transB = n.attrInt("transB", 0) != 0;
        w = {1, -1, transB ? 0 : 1, !transB};
        const int64_t outputs = weight->dim(transB ? 0 : 1);
        // An int32 bias is exact only when Gemm adds it unscaled.
        if (bias && bias->rank() == 1 && bias->numel() == outputs && n.attrFloat("alpha", 1.0f) == 1.0f &&
            n.attrFloat("beta", 1.0f) == 1.0f)
            w.biasInput = 2;
    } else if (n.opType == "MatMul" && n.inputs.size() == 2) {
        w = {1, -1, weight->rank() == 2 ? 1 : -1, weight->rank() == 2};
    }
    return w;
}

OpRole opRole(const Node& n, const Graph& g) {
    if (!n.domain.empty()) return OpRole::None;
    if (weightInfo(n, g).weightInput >= 0) return OpRole::Weighted;
    if (isIdentityMul(n, g)) return OpRole::None;
    if (kActivationOps.count(n.opType) && !activationInputs(n, g).empty()) return OpRole::Activation;
    return OpRole::None;
}

std::vector<std::string> activationInputs(const Node& n, const Graph& g) {
    std::vector<std::string> out;
    size_t count = n.inputs.size();
    // Only the data inputs: Resize's roi/scales/sizes, Clip bounds etc. stay as they are.
    if (n.opType == "Resize" || n.opType == "Conv" || n.opType == "ConvTranspose" || n.opType == "Gemm" ||
        n.opType == "MaxPool" || n.opType == "AveragePool")
        count = std::min<size_t>(count, 1);
    for (size_t i = 0; i < count; ++i) {
        const std::string& in = n.inputs[i];
        if (in.empty() || isConstant(g, in) || !isFloatValue(g, in)) continue;
        if (insideFusedConvActivation(n, g, in) || isMatMulBiasInput(n, g, in)) continue;
        if (std::find(out.begin(), out.end(), in) == out.end()) out.push_back(in);
    }
    return out;
}

QuantRoles::QuantRoles(const Graph& graph) : graph_(graph), kept_(findKeptOps(graph)) {
    for (const auto& n : graph.nodes)
        if (kept_.count(n.layerName()))
            for (const auto& o : n.outputs) keptOutputs_.insert(o);
}

OpRole QuantRoles::role(const Node& n) const {
    if (n.domain.empty() && kept_.count(n.layerName())) return OpRole::Kept;
    return opRole(n, graph_);
}

std::vector<std::string> QuantRoles::activationInputs(const Node& n) const {
    if (role(n) != OpRole::Kept) return detail::activationInputs(n, graph_);
    std::vector<std::string> out;
    for (size_t i = n.opType == "Where" ? 1 : 0; i < n.inputs.size(); ++i) {  // Where's condition is no number
        const std::string& in = n.inputs[i];
        if (!in.empty() && !isConstant(graph_, in) && isFloatValue(graph_, in) && !keptOutputs_.count(in) &&
            std::find(out.begin(), out.end(), in) == out.end())
            out.push_back(in);
    }
    return out;
}

Model withExtraOutputs(const Model& model, const std::vector<std::string>& values) {
    Model m = model;
    std::set<std::string> have;
    for (const auto& o : m.graph.outputs) have.insert(o.name);
    for (const auto& i : m.graph.inputs) have.insert(i.name);
    for (const auto& v : values) {
        if (have.count(v) || m.graph.initializers.count(v)) continue;
        have.insert(v);
        const ValueInfo* vi = model.graph.findValueInfo(v);
        m.graph.outputs.push_back(vi ? *vi : ValueInfo{v, {}});
    }
    return m;
}

size_t workerCount(const SampleRunOptions& options, size_t samples) {
    const int requested = options.executor.threads;
    const size_t threads = static_cast<size_t>(requested > 0 ? requested : physicalCoreCount());
    return std::max<size_t>(1, std::min(threads, samples));
}

void forEachSample(const Model& model, const SampleSource& source, size_t count, const SampleRunOptions& options,
                   const std::function<void(size_t, size_t, std::map<std::string, Tensor>&)>& visit) {
    if (count == 0) return;
    const size_t workers = workerCount(options, count);
    const int total = options.executor.threads > 0 ? options.executor.threads : physicalCoreCount();
    SessionOptions so;
    so.executor.backend = options.executor.backend;
    so.executor.threads = std::max(1, total / static_cast<int>(workers));
    so.watched = options.watched;
    auto shared = std::make_shared<const Model>(model);

    std::atomic<size_t> next{0}, done{0};
    std::atomic<bool> stop{false};
    std::mutex mutex;  // guards firstError and progress calls
    std::exception_ptr firstError;
    auto work = [&](size_t worker) {
        try {
            Session session(shared, so);
            RunControl control;
            if (options.observerOf) control.values = options.observerOf(worker);
            for (size_t i = next++; i < count && !stop; i = next++) {
                if (options.cancel && options.cancel->load()) fail(ErrorKind::Cancelled, "cancelled");
                Sample sample = source.load(i);
                std::map<std::string, Tensor> outputs;
                try {
                    outputs = session.runTensors(sample.inputs, control);
                } catch (const Error& e) {
                    if (e.kind() == ErrorKind::Cancelled) throw;
                    throw Error(e.kind(), sample.origin + ": " + e.what());
                }
                // Graph inputs are observed values too (the first Conv's input is quantized).
                for (auto& [name, t] : sample.inputs) outputs.emplace(name, std::move(t));
                sample.inputs.clear();
                visit(worker, i, outputs);
                const size_t d = ++done;
                if (options.progress) {
                    std::lock_guard lock(mutex);
                    options.progress(d, count);
                }
            }
        } catch (...) {
            std::lock_guard lock(mutex);
            if (!firstError) firstError = std::current_exception();
            stop = true;
        }
    };
    std::vector<std::thread> pool;
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
    work(0);
    for (auto& t : pool) t.join();
    if (firstError) std::rethrow_exception(firstError);
}

}  // namespace npuwb::quant::detail
