#include "runtime/BackendPlan.h"
#include "npuwb/Limits.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "npuwb/Error.h"

namespace npuwb {

namespace {

/// Ops whose output shapes follow from their input shapes and attributes alone (never from input values).
const std::set<std::string> kShapeFromInputShapes = {
    "Abs", "Acos", "Acosh", "Add", "And", "ArgMax", "ArgMin", "Asin", "Asinh", "Atan", "Atanh", "AveragePool",
    "BatchNormalization", "BitShift", "Cast", "CastLike", "Ceil", "Celu", "Clip", "Concat", "Conv", "ConvInteger",
    "ConvTranspose", "Cos", "Cosh", "DepthToSpace", "DequantizeLinear", "Div", "Dropout", "Einsum", "Elu", "Equal",
    "Erf", "Exp", "Flatten", "Floor", "Gather", "GatherElements", "GatherND", "Gelu", "Gemm", "GlobalAveragePool",
    "GlobalLpPool", "GlobalMaxPool", "Greater", "GreaterOrEqual", "GroupNormalization", "HardSigmoid", "HardSwish",
    "Hardmax", "Identity", "InstanceNormalization", "IsInf", "IsNaN", "LRN", "LayerNormalization", "LeakyRelu", "Less",
    "LessOrEqual", "Log", "LogSoftmax", "LpNormalization", "LpPool", "MatMul", "MatMulInteger", "Max", "MaxPool",
    "Mean", "Min", "Mish", "Mod", "Mul", "Neg", "Not", "Or", "PRelu", "Pow", "QLinearConv", "QLinearMatMul",
    "QuantizeLinear", "Reciprocal", "Relu", "Round", "Selu", "Shape", "Shrink", "Sigmoid", "Sign", "Sin", "Sinh",
    "Size", "Softmax", "Softplus", "Softsign", "SpaceToDepth", "Sqrt", "Sub", "Sum", "Tan", "Tanh",
    "ThresholdedRelu", "Transpose", "Trilu", "Where", "Xor"};

/// Ops whose output shape also depends on the values of their inputs after the first `n` (a target shape, axes,
/// pads, repeats, k...): static when those inputs are constants.
const std::map<std::string, size_t> kShapeFromLeadingInputs = {
    {"Reshape", 1}, {"Expand", 1}, {"Tile", 1}, {"Slice", 1}, {"Pad", 1}, {"Resize", 1}, {"Upsample", 1},
    {"Squeeze", 1}, {"Unsqueeze", 1}, {"Split", 1}, {"TopK", 1}, {"OneHot", 1}, {"CenterCropPad", 1},
    {"ReduceSum", 1}, {"ReduceMean", 1}, {"ReduceMax", 1}, {"ReduceMin", 1}, {"ReduceProd", 1}, {"ReduceL1", 1},
    {"ReduceL2", 1}, {"ReduceLogSum", 1}, {"ReduceLogSumExp", 1}, {"ReduceSumSquare", 1}, {"ConstantOfShape", 0},
    {"Range", 0}};

}  // namespace

ValueShapeRecorder::ValueShapeRecorder(const Graph& graph, const std::vector<std::string>& fedInputs) {
    for (const auto& [name, t] : graph.initializers)
        if (std::find(fedInputs.begin(), fedInputs.end(), name) == fedInputs.end()) constants.insert(name);
    // The plan is compiled for the fed inputs' shapes (a new shape means a new plan).
    staticShapes.insert(fedInputs.begin(), fedInputs.end());
    staticShapes.insert(constants.begin(), constants.end());
}

bool ValueShapeRecorder::outputShapesStatic(const Node& node) const {
    if (!node.domain.empty()) return false;
    auto shapeStatic = [&](size_t i) { return node.inputs[i].empty() || staticShapes.count(node.inputs[i]); };
    auto constant = [&](size_t i) { return node.inputs[i].empty() || constants.count(node.inputs[i]); };
    size_t shapeOnly = 0;  // leading inputs whose shapes (not values) matter
    if (kShapeFromInputShapes.count(node.opType)) {
        shapeOnly = node.inputs.size();
    } else if (auto it = kShapeFromLeadingInputs.find(node.opType); it != kShapeFromLeadingInputs.end()) {
        shapeOnly = std::min(it->second, node.inputs.size());
    } else {
        return false;  // data-dependent (NonZero, Unique, NonMaxSuppression, control flow, ...)
    }
    for (size_t i = 0; i < node.inputs.size(); ++i)
        if (!(i < shapeOnly ? shapeStatic(i) : constant(i))) return false;
    return true;
}

namespace {
// Random generators differ per run; subgraph ops may read outer values: neither is folded.
const std::set<std::string> kNeverFold = {"RandomNormal", "RandomUniform", "RandomNormalLike",
                                          "RandomUniformLike", "Multinomial", "Bernoulli", "Dropout"};
}  // namespace

bool ValueShapeRecorder::willFold(const Node& node) const {
    bool foldable = node.domain.empty() && !kNeverFold.count(node.opType);
    for (const auto& [n, a] : node.attributes) foldable = foldable && !a.g && a.graphs.empty();
    if (!foldable) return false;
    // Shape folding: the shape (or size) of a value whose shape is fixed for this plan is a constant of the plan,
    // and so is everything computed from such constants (Gather/Unsqueeze/Concat feeding a Reshape).
    if ((node.opType == "Shape" || node.opType == "Size") && !node.inputs.empty() && staticShapes.count(node.inputs[0]))
        return true;
    for (const auto& in : node.inputs)
        if (!in.empty() && !constants.count(in)) return false;
    return true;
}

void ValueShapeRecorder::nodeFinished(size_t, const Node& node, const std::vector<const Value*>&,
                                      const std::vector<Value>& outputs) {
    const bool foldable = willFold(node);
    const bool shapesStatic = foldable || outputShapesStatic(node);
    for (size_t i = 0; i < outputs.size() && i < node.outputs.size(); ++i) {
        if (node.outputs[i].empty() || !outputs[i].isTensor()) continue;
        values[node.outputs[i]] = ValueDesc{outputs[i].tensor.dtype(), outputs[i].tensor.shape(), nullptr};
        if (shapesStatic) staticShapes.insert(node.outputs[i]);
        if (foldable) {
            folded[node.outputs[i]] = outputs[i].tensor;
            constants.insert(node.outputs[i]);
        }
    }
}

namespace {
/// The inferred tensor type of a value when it has a dtype and a fully known shape.
std::optional<std::pair<DType, Shape>> staticInferredType(const Graph& graph, const std::string& name,
                                                          const std::map<std::string, ValueType>* types) {
    const ValueType* type = nullptr;
    if (types) {
        if (auto it = types->find(name); it != types->end()) type = &it->second;
    } else if (const ValueInfo* info = graph.findValueInfo(name)) {
        type = &info->type;
    }
    if (!type || type->kind != ValueType::Kind::Tensor || type->dtype == DType::Undefined || !type->shape)
        return std::nullopt;
    Shape shape;
    for (const Dim& d : *type->shape) {
        if (!d.known()) return std::nullopt;
        shape.push_back(d.value);
    }
    return std::make_pair(type->dtype, shape);
}
}  // namespace

bool hasStaticInferredTypes(const Graph& graph, const Node& node, const std::map<std::string, ValueType>* types) {
    for (const auto& out : node.outputs)
        if (!out.empty() && !staticInferredType(graph, out, types)) return false;
    return true;
}

namespace {
/// ONNX 1.12's inference keeps a ceil-mode pooling window that starts in the end padding; the kernels (and ONNX
/// Runtime) drop it, so the inferred size (and every size after it) can be one too large. True when no window
/// of this node starts there (torchvision's unpadded ceil-mode MaxPools: SqueezeNet, GoogLeNet).
bool ceilModeInferenceRight(const Graph& graph, const Node& node, const std::map<std::string, ValueType>* types) {
    if (node.inputs.empty() || node.outputs.empty() || node.attrString("auto_pad", "NOTSET") != "NOTSET") return false;
    const auto x = staticInferredType(graph, node.inputs[0], types), y = staticInferredType(graph, node.outputs[0], types);
    if (!x || !y || x->second.size() != y->second.size() || x->second.size() < 3) return false;
    const size_t spatial = x->second.size() - 2;
    const std::vector<int64_t> strides = node.attrInts("strides"), pads = node.attrInts("pads");
    for (size_t i = 0; i < spatial; ++i) {
        const int64_t in = x->second[2 + i], out = y->second[2 + i];
        const int64_t stride = i < strides.size() ? strides[i] : 1, padBegin = i < pads.size() ? pads[i] : 0;
        if ((out - 1) * stride >= in + padBegin) return false;  // the last window starts in the end padding
    }
    return true;
}
}  // namespace

bool shapeOnlyLearningPossible(const Graph& graph, const std::vector<size_t>& order,
                               const std::vector<std::pair<std::string, Shape>>& fedShapes,
                               const std::map<std::string, ValueType>* types) {
    std::vector<std::string> fed;
    for (const auto& [name, shape] : fedShapes) {
        auto declared = staticInferredType(graph, name, types);
        if (!declared || declared->second != shape) return false;
        fed.push_back(name);
    }
    // The learning run's own bookkeeping, on names only.
    ValueShapeRecorder dryRun(graph, fed);
    for (size_t idx : order) {
        const Node& node = graph.nodes.at(idx);
        for (const auto& [n, a] : node.attributes)
            if (a.g || !a.graphs.empty()) return false;
        if (node.attrInt("ceil_mode", 0) != 0 && !ceilModeInferenceRight(graph, node, types)) return false;
        const bool fold = dryRun.willFold(node);
        const bool shapesStatic = fold || dryRun.outputShapesStatic(node);
        // Without inferred types the node runs for real, which gives the right shapes only when they are static.
        if (!fold && !shapesStatic && !hasStaticInferredTypes(graph, node, types)) return false;
        for (const auto& out : node.outputs) {
            if (out.empty()) continue;
            if (shapesStatic) dryRun.staticShapes.insert(out);
            if (fold) dryRun.constants.insert(out);
        }
    }
    return true;
}

std::vector<Value> shapeOnlyOutputs(const Graph& graph, const Node& node,
                                    const std::map<std::string, ValueType>* types) {
    std::vector<Value> outputs(node.outputs.size());
    for (size_t i = 0; i < node.outputs.size(); ++i) {
        if (node.outputs[i].empty()) continue;
        auto type = staticInferredType(graph, node.outputs[i], types);
        if (!type) fail(ErrorKind::Internal, "node " + node.label() + ": no inferred type for '" + node.outputs[i] + "'");
        // Nothing is allocated while learning, but a backend will allocate this output: a Resize to 2^20 x 2^20
        // must be refused here, with the node named, not crash a backend's allocator later.
        uint64_t bytes = 0;
        try {
            bytes = tensorByteSize(type->first, type->second);
        } catch (const Error& e) {  // an inferred shape too large to count: name the node, as a reference run does
            throw Error(e.kind(), "node " + node.label() + ": " + e.what());
        }
        if (!withinMemoryBudget(bytes))
            checkMemoryBudget(bytes, "node " + node.label() + ": output '" + node.outputs[i] + "' (" + std::string(dtypeName(type->first)) +
                                         " " + shapeToString(type->second) + ")");
        outputs[i] = Value(Tensor::view(type->first, type->second, nullptr));
    }
    return outputs;
}

std::unique_ptr<BackendPlan> compileBackendPlan(Backend& backend, const Graph& graph, int64_t opset,
                                                const std::vector<size_t>& fullOrder, ValueShapeRecorder&& learned,
                                                const std::set<std::string>* watched) {
    auto plan = std::make_unique<BackendPlan>();
    plan->folded = std::move(learned.folded);
    std::map<std::string, ValueDesc>& values = learned.values;
    for (const auto& name : learned.constants) {
        auto init = graph.initializers.find(name);
        const Tensor& t = init != graph.initializers.end() ? init->second : plan->folded.at(name);
        values[name] = ValueDesc{t.dtype(), t.shape(), &t};
    }
    // Folded nodes are done: the backend and later runs see only the rest.
    auto isFolded = [&](size_t idx) {
        const auto& outs = graph.nodes[idx].outputs;
        return !outs.empty() && std::all_of(outs.begin(), outs.end(), [&](const std::string& o) {
            return o.empty() || plan->folded.count(o);
        });
    };
    std::vector<size_t> order;
    for (size_t idx : fullOrder)
        if (!isFolded(idx)) order.push_back(idx);
    GraphQuery query{graph, opset, order, [&values](const std::string& name) -> const ValueDesc* {
                         auto it = values.find(name);
                         return it == values.end() ? nullptr : &it->second;
                     },
                     watched && !watched->empty() ? watched : nullptr};
    CompileResult result = backend.compile(query);

    std::vector<size_t> positionOfIndex(graph.nodes.size(), SIZE_MAX), fullPosition(graph.nodes.size(), SIZE_MAX);
    for (size_t pos = 0; pos < fullOrder.size(); ++pos) {
        fullPosition[fullOrder[pos]] = pos;
        plan->positionOfNode.emplace(graph.nodes[fullOrder[pos]].layerName(), pos);
    }
    for (size_t pos = 0; pos < order.size(); ++pos) positionOfIndex[order[pos]] = pos;
    std::vector<int> segmentAt(order.size(), -1);
    for (size_t s = 0; s < result.segments.size(); ++s) {
        const SegmentPlan& seg = result.segments[s];
        const std::string who = "backend '" + backend.name() + "' segment " + std::to_string(s);
        if (seg.nodes.empty() || !seg.prepared) fail(ErrorKind::Internal, who + " is empty or not prepared");
        size_t first = SIZE_MAX;
        for (size_t k = 0; k < seg.nodes.size(); ++k) {
            if (seg.nodes[k] >= graph.nodes.size() || positionOfIndex[seg.nodes[k]] == SIZE_MAX)
                fail(ErrorKind::Internal, who + " names an unknown node");
            size_t pos = positionOfIndex[seg.nodes[k]];
            if (k == 0) first = pos;
            if (pos != first + k || segmentAt[pos] != -1)
                fail(ErrorKind::Internal, who + " does not cover consecutive nodes of the execution order");
            segmentAt[pos] = static_cast<int>(s);
        }
    }
    for (size_t pos = 0; pos < order.size();) {
        int s = segmentAt[pos];
        size_t len = s < 0 ? 1 : result.segments[static_cast<size_t>(s)].nodes.size();
        plan->steps.push_back({fullPosition[order[pos]], fullPosition[order[pos + len - 1]], s});
        pos += len;
    }
    plan->segments = std::move(result.segments);
    plan->fallbacks = std::move(result.fallbacks);
    // Backends copy (pack) the constants they take at compile time. Keep only the folded values a run still
    // reads: inputs of reference steps and segments, graph outputs and watched values (a QDQ model's dequantized
    // float weights, 100 MB for resnet50, are otherwise held for nothing).
    std::set<std::string> read;
    for (const auto& o : graph.outputs) read.insert(o.name);
    if (watched) read.insert(watched->begin(), watched->end());  // each run shows them to its ValueObserver
    for (const PlanStep& step : plan->steps) {
        if (step.segment >= 0) {
            const auto& inputs = plan->segments[static_cast<size_t>(step.segment)].inputs;
            read.insert(inputs.begin(), inputs.end());
        } else {
            const Node& n = graph.nodes[fullOrder[step.firstPos]];
            read.insert(n.inputs.begin(), n.inputs.end());
            for (const auto& [name, a] : n.attributes)
                if (a.g || !a.graphs.empty()) return plan;  // a subgraph may read any outer value: keep all
        }
    }
    std::erase_if(plan->folded, [&read](const auto& entry) { return !read.count(entry.first); });
    return plan;
}

}  // namespace npuwb

namespace npuwb {

NodeQuery makeNodeQuery(const GraphQuery& query, size_t nodeIndex) {
    const Node& node = query.graph.nodes.at(nodeIndex);
    NodeQuery q{node, query.opset, {}, {}, {}, {}, {}};
    for (const auto& in : node.inputs) {
        const ValueDesc* d = in.empty() ? nullptr : query.value(in);
        q.inputTypes.push_back(d ? d->dtype : DType::Undefined);
        q.inputShapes.push_back(d ? d->shape : Shape{});
        q.constants.push_back(d ? d->constant : nullptr);
    }
    for (const auto& out : node.outputs) {
        const ValueDesc* d = out.empty() ? nullptr : query.value(out);
        q.outputTypes.push_back(d ? d->dtype : DType::Undefined);
        q.outputShapes.push_back(d ? d->shape : Shape{});
    }
    return q;
}

}  // namespace npuwb
