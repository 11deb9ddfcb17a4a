#include "ops/Kernel.h"

#include "npuwb/sdk/ReferenceKernels.h"

#include <algorithm>

namespace npuwb {

KernelContext::KernelContext(const Node& node, int64_t opset, std::vector<const Value*> inputs, SubgraphRunner runner)
    : node_(node), opset_(opset), inputs_(std::move(inputs)), outputs_(node.outputs.size()), runner_(std::move(runner)) {}

const Value& KernelContext::inputValue(size_t i) const {
    if (!hasInput(i)) fail("input " + std::to_string(i) + " is required but missing");
    return *inputs_[i];
}

const Tensor& KernelContext::input(size_t i) const {
    const Value& v = inputValue(i);
    if (!v.isTensor()) fail("input " + std::to_string(i) + " ('" + node_.inputs[i] + "') must be a tensor");
    return v.tensor;
}

void KernelContext::setOutput(size_t i, Tensor t) { setOutputValue(i, Value(std::move(t))); }

void KernelContext::setOutputShape(size_t i, DType dtype, Shape shape) {
    setOutput(i, Tensor::view(dtype, std::move(shape), nullptr));
}

void KernelContext::setOutputValue(size_t i, Value v) {
    if (i >= outputs_.size()) return;  // the graph does not name this optional output
    outputs_[i] = std::move(v);
}

std::vector<Value> KernelContext::runSubgraph(const Graph& body, const std::vector<Value>& inputs) const {
    if (!runner_) fail("subgraphs cannot run in this context");
    return runner_(body, inputs);
}

void KernelContext::fail(const std::string& message) const { failInput("node " + node_.label() + ": " + message); }
void KernelContext::failUnsupported(const std::string& message) const {
    npuwb::failUnsupported("node " + node_.label() + ": " + message);
}

KernelRegistry& KernelRegistry::instance() {
    static KernelRegistry registry;
    return registry;
}

static std::string key(const std::string& domain, const std::string& opType) {
    return (domain.empty() || domain == "ai.onnx") ? opType : domain + "." + opType;
}

bool KernelRegistry::add(const std::string& domain, const std::string& opType, KernelFn fn, bool shapesOnly) {
    entries_.push_back({key(domain, opType), fn, shapesOnly});
    return true;
}

KernelFn KernelRegistry::find(const std::string& domain, const std::string& opType) const {
    std::string k = key(domain, opType);
    for (const auto& e : entries_)
        if (e.key == k) return e.fn;
    return nullptr;
}

bool KernelRegistry::handlesShapesOnly(const std::string& domain, const std::string& opType) const {
    std::string k = key(domain, opType);
    for (const auto& e : entries_)
        if (e.key == k) return e.shapesOnly;
    return false;
}

std::vector<std::string> KernelRegistry::opTypes() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.push_back(e.key);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<Value> runReferenceNode(const Node& node, int64_t opset, const std::vector<const Value*>& inputs) {
    KernelFn kernel = KernelRegistry::instance().find(node.domain, node.opType);
    if (!kernel) failUnsupported("no reference kernel for " + node.label());
    KernelContext ctx(node, opset, inputs, nullptr);
    kernel(ctx);
    return std::move(ctx.outputs());
}

}  // namespace npuwb
