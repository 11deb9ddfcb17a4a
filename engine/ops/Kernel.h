#pragma once
// The reference kernel interface. A kernel is a plain function that reads its inputs and attributes from a
// KernelContext and sets its outputs; it registers itself by op name from its own .cpp file:
//
//   static void relu(KernelContext& ctx) { ... }
//   NPUWB_KERNEL("Relu", relu);
//
// Kernels throw npuwb::Error (ctx.fail(...) adds the node label) on bad input; they never abort.
#include <functional>
#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"
#include "npuwb/ir/Value.h"

namespace npuwb {

class KernelContext {
public:
    using SubgraphRunner = std::function<std::vector<Value>(const Graph& body, const std::vector<Value>& inputs)>;

    KernelContext(const Node& node, int64_t opset, std::vector<const Value*> inputs, SubgraphRunner runner);

    const Node& node() const { return node_; }
    int64_t opset() const { return opset_; }

    size_t inputCount() const { return inputs_.size(); }
    /// True when input i exists and is not an absent optional ("" name).
    bool hasInput(size_t i) const { return i < inputs_.size() && inputs_[i] != nullptr; }
    /// Input i as a tensor; fails naming the node when it is missing or not a tensor.
    const Tensor& input(size_t i) const;
    const Value& inputValue(size_t i) const;

    size_t outputCount() const { return node_.outputs.size(); }
    /// False for outputs the graph leaves unnamed (optional outputs nobody reads).
    bool wantsOutput(size_t i) const { return i < node_.outputs.size() && !node_.outputs[i].empty(); }
    void setOutput(size_t i, Tensor t);
    void setOutputValue(size_t i, Value v);
    std::vector<Value>& outputs() { return outputs_; }

    /// True when only this node's output shapes are wanted (a learning run past where ONNX's inference stopped):
    /// inputs that matter by shape alone may then be placeholders without data. A kernel registered with
    /// NPUWB_KERNEL_SHAPES checks it once its output shapes are known and sets placeholders (setOutputShape).
    bool shapesOnly() const { return shapesOnly_; }
    void setShapesOnly(bool on) { shapesOnly_ = on; }
    void setOutputShape(size_t i, DType dtype, Shape shape);

    // Attribute shortcuts (see Node).
    int64_t attrInt(const std::string& n, int64_t fallback) const { return node_.attrInt(n, fallback); }
    float attrFloat(const std::string& n, float fallback) const { return node_.attrFloat(n, fallback); }
    std::string attrString(const std::string& n, const std::string& fallback) const { return node_.attrString(n, fallback); }
    std::vector<int64_t> attrInts(const std::string& n, std::vector<int64_t> fallback = {}) const {
        return node_.attrInts(n, std::move(fallback));
    }
    std::vector<float> attrFloats(const std::string& n, std::vector<float> fallback = {}) const {
        return node_.attrFloats(n, std::move(fallback));
    }
    bool hasAttr(const std::string& n) const { return node_.hasAttribute(n); }

    /// Runs a subgraph (If/Loop/Scan body) with the given inputs; it sees this node's scope.
    std::vector<Value> runSubgraph(const Graph& body, const std::vector<Value>& inputs) const;

    /// Throws InvalidInput with "node 'x' (Op): message".
    [[noreturn]] void fail(const std::string& message) const;
    [[noreturn]] void failUnsupported(const std::string& message) const;

private:
    const Node& node_;
    int64_t opset_;
    std::vector<const Value*> inputs_;
    std::vector<Value> outputs_;
    SubgraphRunner runner_;
    bool shapesOnly_ = false;
};

using KernelFn = void (*)(KernelContext&);

/// Registry of reference kernels by (domain, op type).
class KernelRegistry {
public:
    static KernelRegistry& instance();
    /// `shapesOnly`: the kernel honours KernelContext::shapesOnly().
    bool add(const std::string& domain, const std::string& opType, KernelFn fn, bool shapesOnly = false);
    KernelFn find(const std::string& domain, const std::string& opType) const;  // nullptr when unknown
    bool handlesShapesOnly(const std::string& domain, const std::string& opType) const;
    std::vector<std::string> opTypes() const;  // "Conv", "com.microsoft.X"...

private:
    struct Entry {
        std::string key;
        KernelFn fn;
        bool shapesOnly;
    };
    std::vector<Entry> entries_;
};

#define NPUWB_KERNEL_CONCAT2(a, b) a##b
#define NPUWB_KERNEL_CONCAT(a, b) NPUWB_KERNEL_CONCAT2(a, b)
#define NPUWB_KERNEL(OP, FN)                                                                   \
    [[maybe_unused]] static const bool NPUWB_KERNEL_CONCAT(npuwbKernelRegistered_, __LINE__) = \
        ::npuwb::KernelRegistry::instance().add("", OP, FN)
#define NPUWB_KERNEL_SHAPES(OP, FN)                                                            \
    [[maybe_unused]] static const bool NPUWB_KERNEL_CONCAT(npuwbKernelRegistered_, __LINE__) = \
        ::npuwb::KernelRegistry::instance().add("", OP, FN, true)
#define NPUWB_KERNEL_DOMAIN(DOMAIN, OP, FN)                                                    \
    [[maybe_unused]] static const bool NPUWB_KERNEL_CONCAT(npuwbKernelRegistered_, __LINE__) = \
        ::npuwb::KernelRegistry::instance().add(DOMAIN, OP, FN)

}  // namespace npuwb
