#pragma once
// How one (possibly fused) group of ONNX nodes becomes XNNPACK steps in a segment, and the per-op table that
// pairs each op's capability check with its lowering.
#include <limits>
#include <map>
#include <string>

#include "QuantParams.h"
#include "XnnSegment.h"

namespace npuwb::xnn {

/// A node plus the nodes folded into it at compile time: a BatchNormalization into the Conv before it, and a
/// trailing Relu/Clip into the operator's output clamp.
struct FusedGroup {
    const Node* main = nullptr;
    const Node* batchNorm = nullptr;
    float outputMin = -std::numeric_limits<float>::infinity();
    float outputMax = std::numeric_limits<float>::infinity();
    std::vector<std::string> nodeNames;  // every covered node, for timing
    std::string output;                  // the value the group finally produces
    const Node* quantize = nullptr;      // a trailing QuantizeLinear (int8 chains, Int8Ops.cpp)
    std::string floatOutput;             // with `quantize`: the float value it reads
};

/// A float value that is DequantizeLinear(int8 value `source`): no step until a float consumer reads it.
struct Dequantized {
    int source = -1;
    QuantInfo info;
    std::string node;
};

class LowerContext {
public:
    LowerContext(XnnSegment& segment, const GraphQuery& query) : segment_(segment), query_(query) {}

    XnnSegment& segment() { return segment_; }
    pthreadpool_t pool() const { return segment_.pool(); }
    int64_t opset() const { return query_.opset; }
    const GraphQuery& query() const { return query_; }
    const ValueDesc& desc(const std::string& name) const;
    /// The initializer behind `name`, or nullptr (also for "" and computed values).
    const Tensor* constant(const std::string& name) const;
    /// A value the current step reads (produced earlier in the segment or imported at its start). A lazily
    /// dequantized value gets its convert step here, on first float use.
    int read(const std::string& name);
    /// Defines the value the current step writes (shape and dtype from the graph's value descriptions).
    int write(const std::string& name);
    int alias(const std::string& name, int source);
    /// Registers a value imported from outside the segment.
    int import(const std::string& name);
    bool has(const std::string& name) const { return ids_.count(name) != 0 || dequantized_.count(name) != 0; }
    void defineDequantized(const std::string& name, Dequantized d) { dequantized_[name] = std::move(d); }
    /// The int8 value behind `name` when it is a (not yet materialised or materialised) dequantized value.
    const Dequantized* dequantized(const std::string& name) const;
    int id(const std::string& name) const { return ids_.at(name); }
    void addStep(const FusedGroup& group, xnn_operator_t op, std::function<xnn_status()> setup);
    void addCodeStep(const FusedGroup& group, std::function<void()> run);

private:
    XnnSegment& segment_;
    const GraphQuery& query_;
    std::map<std::string, int> ids_;
    std::map<std::string, Dequantized> dequantized_;
};

using SupportsFn = Capability (*)(const NodeQuery&);
using LowerFn = void (*)(LowerContext&, const FusedGroup&);
struct OpEntry {
    SupportsFn supports;
    LowerFn lower;
};
/// Ops this backend claims, by ONNX op type (default domain only).
const std::map<std::string, OpEntry>& opTable();
/// Lowers a group: as one int8 kernel when its pattern allows, else its main node in float (and a trailing
/// QuantizeLinear on its own).
void lowerGroup(LowerContext& ctx, const FusedGroup& g);

// Helpers shared by the op files.
bool isConst(const NodeQuery& q, size_t input);
bool hasInput(const NodeQuery& q, size_t input);
Capability requireF32(const NodeQuery& q, std::initializer_list<size_t> inputs);
/// Relu / Clip-with-constant-bounds as an output clamp; false when the node is not such an activation.
bool activationBounds(const Node& node, const std::function<const Tensor*(const std::string&)>& constant,
                      int64_t opset, float& lo, float& hi);

}  // namespace npuwb::xnn
