#include "npuwb/sdk/QdqParams.h"

#include <cmath>

#include "npuwb/Error.h"

namespace npuwb {

namespace {
bool validScale(float s) { return s > 0.f && std::isfinite(s); }  // false for NaN too
bool isInt8Type(DType t) { return t == DType::U8 || t == DType::I8; }
}  // namespace

bool isQuantOp(const std::string& opType) { return opType == "QuantizeLinear" || opType == "DequantizeLinear"; }

const Tensor* constantInput(const GraphQuery& q, const Node& n, size_t i) {
    if (i >= n.inputs.size() || n.inputs[i].empty()) return nullptr;
    const ValueDesc* d = q.value(n.inputs[i]);
    return d ? d->constant : nullptr;
}

const Node* producerOf(const Graph& g, const std::string& value) {
    for (const Node& n : g.nodes)
        for (const std::string& o : n.outputs)
            if (o == value) return &n;
    return nullptr;
}

std::optional<QuantParams> quantParamsOf(const GraphQuery& q, const Node& node) {
    if (!isQuantOp(node.opType) || !node.domain.empty()) return std::nullopt;
    const Tensor* scale = constantInput(q, node, 1);
    if (!scale || scale->numel() != 1 || scale->dtype() != DType::F32) return std::nullopt;
    QuantParams p;
    p.scale = static_cast<float>(scale->elementAsDouble(0));
    if (const Tensor* zero = constantInput(q, node, 2)) {
        if (zero->numel() != 1) return std::nullopt;
        p.type = zero->dtype();
        p.zero = static_cast<int32_t>(zero->elementAsDouble(0));
    } else if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
        return std::nullopt;  // a computed zero point
    } else if (node.opType == "DequantizeLinear") {
        const ValueDesc* x = q.value(node.inputs[0]);
        if (!x) return std::nullopt;
        p.type = x->dtype;
    }
    if (!isInt8Type(p.type) || !validScale(p.scale)) return std::nullopt;
    return p;
}

std::optional<QuantParams> scalarQuantParams(const Tensor* scale, const Tensor* zero) {
    if (!scale || !zero || scale->numel() != 1 || zero->numel() != 1) return std::nullopt;
    if (scale->dtype() != DType::F32 || !isInt8Type(zero->dtype())) return std::nullopt;
    QuantParams p{static_cast<float>(scale->elementAsDouble(0)), static_cast<int32_t>(zero->elementAsDouble(0)),
                  zero->dtype()};
    if (!validScale(p.scale)) return std::nullopt;
    return p;
}

Capability supportsPerTensorQdq(const NodeQuery& q) {
    const bool quantize = q.node.opType == "QuantizeLinear";
    if (q.node.inputs.size() < 2 || !q.constants[1]) return Capability::no("scale is not a constant");
    if (q.constants[1]->numel() != 1) return Capability::no("per-axis quantization of activations not supported");
    if (q.inputTypes[1] != DType::F32) return Capability::no("only float32 scales supported");
    DType qType = quantize ? q.outputTypes[0] : q.inputTypes[0];
    if (q.node.inputs.size() > 2 && !q.node.inputs[2].empty()) {
        if (!q.constants[2] || q.constants[2]->numel() != 1)
            return Capability::no("zero point is not a constant scalar");
        qType = q.inputTypes[2];
    }
    if (!isInt8Type(qType)) return Capability::no("only uint8/int8 quantization supported");
    if (quantize && q.inputTypes[0] != DType::F32) return Capability::no("only float32 input supported");
    if (!quantize && (q.inputTypes[0] != qType || q.outputTypes[0] != DType::F32))
        return Capability::no("only uint8/int8 to float32 supported");
    if (q.node.attrInt("saturate", 1) != 1) return Capability::no("saturate=0 not supported");
    return Capability::yes();
}

std::optional<Int8Weights> int8WeightsOf(const GraphQuery& q, const std::string& weightValue, int64_t axis,
                                         int64_t channels) {
    const Node* dq = producerOf(q.graph, weightValue);
    if (!dq || dq->opType != "DequantizeLinear" || !dq->domain.empty()) return std::nullopt;
    const Tensor* w = constantInput(q, *dq, 0);
    const Tensor* scale = constantInput(q, *dq, 1);
    if (!w || !scale || w->dtype() != DType::I8 || scale->dtype() != DType::F32) return std::nullopt;
    if (const Tensor* zero = constantInput(q, *dq, 2)) {
        for (int64_t i = 0; i < zero->numel(); ++i)
            if (zero->elementAsDouble(i) != 0.0) return std::nullopt;  // symmetric weights only
    } else if (dq->inputs.size() > 2 && !dq->inputs[2].empty()) {
        return std::nullopt;
    }
    Int8Weights out;
    if (scale->numel() == 1) {
        out.scales.assign(static_cast<size_t>(channels), static_cast<float>(scale->elementAsDouble(0)));
    } else {
        int64_t dqAxis = dq->attrInt("axis", 1);
        if (dqAxis < 0) dqAxis += static_cast<int64_t>(w->rank());
        if (dqAxis != axis || scale->numel() != channels) return std::nullopt;
        out.scales = scale->toFloatVector();
    }
    for (float s : out.scales)
        if (!validScale(s)) return std::nullopt;
    out.values = w->values<int8_t>();
    return out;
}

std::optional<Int8Weights> qlinearWeights(const Tensor* w, const Tensor* scales, const Tensor* zeros, bool conv,
                                          std::string& why) {
    if (!w || !scales || !zeros || w->dtype() != DType::I8 || scales->dtype() != DType::F32) {
        why = "weights must be a constant int8 initializer with constant scales";
        return std::nullopt;
    }
    for (int64_t i = 0; i < zeros->numel(); ++i)
        if (zeros->elementAsDouble(i) != 0.0) {
            why = "weight zero points other than 0 not supported";
            return std::nullopt;
        }
    if (w->rank() != (conv ? 4u : 2u)) {
        why = conv ? "only 2-D convolutions supported" : "only 2-D B supported";
        return std::nullopt;
    }
    const int64_t channels = conv ? w->shape()[0] : w->shape()[1];
    if (scales->numel() != 1 && scales->numel() != channels) {
        why = "weight scales must be per tensor or per output channel";
        return std::nullopt;
    }
    Int8Weights out;
    out.scales = scales->toFloatVector();
    if (scales->numel() == 1) out.scales.assign(static_cast<size_t>(channels), out.scales[0]);
    out.values = w->values<int8_t>();
    return out;
}

std::optional<std::vector<int32_t>> exactInt32Bias(const GraphQuery& q, const std::string& biasValue, float xScale,
                                                   const std::vector<float>& wScales) {
    const Node* dq = producerOf(q.graph, biasValue);
    if (!dq || dq->opType != "DequantizeLinear" || !dq->domain.empty()) return std::nullopt;
    const size_t channels = wScales.size();
    const Tensor* b = constantInput(q, *dq, 0);
    const Tensor* scale = constantInput(q, *dq, 1);
    const Tensor* zero = constantInput(q, *dq, 2);
    if (!b || !scale || b->dtype() != DType::I32 || static_cast<size_t>(b->numel()) != channels) return std::nullopt;
    if (scale->numel() != 1 && static_cast<size_t>(scale->numel()) != channels) return std::nullopt;
    for (int64_t i = 0; zero && i < zero->numel(); ++i)
        if (zero->elementAsDouble(i) != 0.0) return std::nullopt;
    for (size_t c = 0; c < channels; ++c) {
        const float expected = xScale * wScales[c];
        const int64_t at = scale->numel() == 1 ? 0 : static_cast<int64_t>(c);
        const auto s = static_cast<float>(scale->elementAsDouble(at));
        if (!(std::abs(s - expected) <= 1e-6f * expected)) return std::nullopt;
    }
    return std::vector<int32_t>(b->data<int32_t>(), b->data<int32_t>() + channels);
}

std::vector<float> constantBias(const GraphQuery& q, const std::string& biasValue, size_t channels) {
    const ValueDesc* d = q.value(biasValue);
    if (!d || !d->constant || static_cast<size_t>(d->constant->numel()) != channels)
        failUnsupported("bias '" + biasValue + "' is not a constant of one value per output channel");
    return d->constant->toFloatVector();
}

}  // namespace npuwb
