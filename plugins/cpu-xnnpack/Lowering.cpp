#include "Lowering.h"

#include "Ops.h"

namespace npuwb::xnn {

const ValueDesc& LowerContext::desc(const std::string& name) const {
    const ValueDesc* d = query_.value(name);
    if (!d) failUnsupported("xnnpack: no type/shape known for value '" + name + "'");
    return *d;
}

const Tensor* LowerContext::constant(const std::string& name) const {
    if (name.empty()) return nullptr;
    const ValueDesc* d = query_.value(name);
    return d ? d->constant : nullptr;
}

const Dequantized* LowerContext::dequantized(const std::string& name) const {
    const auto it = dequantized_.find(name);
    return it == dequantized_.end() ? nullptr : &it->second;
}

int LowerContext::read(const std::string& name) {
    if (!ids_.count(name) && dequantized_.count(name)) ids_[name] = materializeDequantized(*this, name);
    const int id = ids_.at(name);
    segment_.touch(id, segment_.nextStep());
    return id;
}

int LowerContext::write(const std::string& name) {
    const ValueDesc& d = desc(name);
    const int id = segment_.addValue(name, d.dtype, d.shape);
    ids_[name] = id;
    segment_.touch(id, segment_.nextStep());
    return id;
}

int LowerContext::alias(const std::string& name, int source) {
    const int id = segment_.addAlias(name, desc(name).shape, source);
    ids_[name] = id;
    segment_.touch(id, segment_.nextStep());
    return id;
}

int LowerContext::import(const std::string& name) {
    const ValueDesc& d = desc(name);
    const int id = segment_.addValue(name, d.dtype, d.shape);
    ids_[name] = id;
    return id;
}

void LowerContext::addStep(const FusedGroup& group, xnn_operator_t op, std::function<xnn_status()> setup) {
    Step step;
    step.nodes = group.nodeNames;
    step.op = op;
    step.setup = std::move(setup);
    segment_.addStep(std::move(step));
}

void LowerContext::addCodeStep(const FusedGroup& group, std::function<void()> run) {
    Step step;
    step.nodes = group.nodeNames;
    step.run = std::move(run);
    segment_.addStep(std::move(step));
}

const std::map<std::string, OpEntry>& opTable() {
    static const std::map<std::string, OpEntry> table = {
        {"Conv", {supportsConv, lowerConv}},
        {"BatchNormalization", {supportsBatchNorm, lowerBatchNorm}},
        {"MaxPool", {supportsMaxPool, lowerMaxPool}},
        {"AveragePool", {supportsAveragePool, lowerAveragePool}},
        {"GlobalAveragePool", {supportsGlobalAveragePool, lowerGlobalAveragePool}},
        {"Gemm", {supportsGemm, lowerGemm}},
        {"MatMul", {supportsMatMul, lowerMatMul}},
        {"Add", {supportsBinary, lowerBinary}},
        {"Sub", {supportsBinary, lowerBinary}},
        {"Mul", {supportsBinary, lowerBinary}},
        {"Div", {supportsBinary, lowerBinary}},
        {"Relu", {supportsUnary, lowerUnary}},
        {"Clip", {supportsUnary, lowerUnary}},
        {"Sigmoid", {supportsUnary, lowerUnary}},
        {"HardSwish", {supportsUnary, lowerUnary}},
        {"LeakyRelu", {supportsUnary, lowerUnary}},
        {"Softmax", {supportsSoftmax, lowerSoftmax}},
        {"Concat", {supportsConcat, lowerConcat}},
        {"Reshape", {supportsReshape, lowerReshape}},
        {"Flatten", {supportsReshape, lowerReshape}},
        {"QuantizeLinear", {supportsQuantNode, lowerQuantize}},
        {"DequantizeLinear", {supportsQuantNode, lowerDequantize}},
        {"QLinearConv", {supportsQLinearNode, lowerQLinear}},
        {"QLinearMatMul", {supportsQLinearNode, lowerQLinear}},
    };
    return table;
}

void lowerGroup(LowerContext& ctx, const FusedGroup& g) {
    if (lowerInt8(ctx, g)) return;
    if (!g.quantize) return opTable().at(g.main->opType).lower(ctx, g);
    FusedGroup main = g, quantize;
    main.quantize = nullptr;
    main.output = g.floatOutput;
    main.nodeNames.pop_back();
    quantize.main = g.quantize;
    quantize.nodeNames = {g.nodeNames.back()};
    quantize.output = g.output;
    opTable().at(main.main->opType).lower(ctx, main);
    lowerQuantize(ctx, quantize);
}

bool isConst(const NodeQuery& q, size_t input) { return input < q.constants.size() && q.constants[input]; }
bool hasInput(const NodeQuery& q, size_t input) {
    return input < q.node.inputs.size() && !q.node.inputs[input].empty();
}

Capability requireF32(const NodeQuery& q, std::initializer_list<size_t> inputs) {
    for (size_t i : inputs)
        if (hasInput(q, i) && (i >= q.inputTypes.size() || q.inputTypes[i] != DType::F32))
            return Capability::no("only float32 is supported (input " + std::to_string(i) + ")");
    return Capability::yes();
}

bool activationBounds(const Node& node, const std::function<const Tensor*(const std::string&)>& constant,
                      int64_t opset, float& lo, float& hi) {
    lo = -std::numeric_limits<float>::infinity();
    hi = std::numeric_limits<float>::infinity();
    if (node.opType == "Relu") {
        lo = 0.0f;
        return true;
    }
    if (node.opType != "Clip") return false;
    if (opset < 11) {
        lo = node.attrFloat("min", lo);
        hi = node.attrFloat("max", hi);
    } else {
        for (size_t i = 1; i < 3 && i < node.inputs.size(); ++i) {
            if (node.inputs[i].empty()) continue;
            const Tensor* t = constant(node.inputs[i]);
            if (!t || t->numel() != 1 || t->dtype() != DType::F32) return false;
            (i == 1 ? lo : hi) = t->data<float>()[0];
        }
    }
    return lo < hi;  // XNNPACK needs a non-empty clamp range
}

}  // namespace npuwb::xnn
