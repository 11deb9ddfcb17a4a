#include "QuantParams.h"

#include <algorithm>
#include <cmath>

namespace npuwb::xnn {
namespace {

const Tensor* constantInput(const GraphQuery& q, const Node& n, size_t i) {
    if (i >= n.inputs.size() || n.inputs[i].empty()) return nullptr;
    const ValueDesc* d = q.value(n.inputs[i]);
    return d ? d->constant : nullptr;
}

/// The reference's QuantizeLinear of one float (divide, round half to even, add the zero point, saturate), stored.
inline int8_t quantizeOne(float x, float scale, float zero, float lo, float hi, int32_t shift) {
    const float scaled = x / scale;
    const float r = static_cast<float>(std::nearbyint(static_cast<double>(scaled)) + static_cast<double>(zero));
    const float clamped = std::isnan(r) ? lo : std::min(hi, std::max(lo, r));
    return static_cast<int8_t>(static_cast<int32_t>(clamped) - shift);
}

struct StoredRange {
    float lo, hi;
    int32_t shift;
};
StoredRange rangeOf(const QuantInfo& info) {
    return info.type == DType::U8 ? StoredRange{0.f, 255.f, 128} : StoredRange{-128.f, 127.f, 0};
}

}  // namespace

std::optional<QuantInfo> quantOf(const GraphQuery& q, const Node& node) {
    if ((node.opType != "QuantizeLinear" && node.opType != "DequantizeLinear") || !node.domain.empty())
        return std::nullopt;
    const Tensor* scale = constantInput(q, node, 1);
    if (!scale || scale->numel() != 1 || scale->dtype() != DType::F32) return std::nullopt;
    QuantInfo info;
    info.scale = static_cast<float>(scale->elementAsDouble(0));
    if (const Tensor* zero = constantInput(q, node, 2)) {
        if (zero->numel() != 1) return std::nullopt;
        info.type = zero->dtype();
        info.zero = static_cast<int32_t>(zero->elementAsDouble(0));
    } else if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
        return std::nullopt;  // a computed zero point
    } else if (node.opType == "DequantizeLinear") {
        const ValueDesc* x = q.value(node.inputs[0]);
        if (!x) return std::nullopt;
        info.type = x->dtype;
    }
    if (info.type != DType::U8 && info.type != DType::I8) return std::nullopt;
    if (!(info.scale > 0.f) || !std::isfinite(info.scale)) return std::nullopt;
    return info;
}

Capability supportsQuantNode(const NodeQuery& q) {
    const bool quantize = q.node.opType == "QuantizeLinear";
    if (q.node.inputs.size() < 2 || !q.constants[1]) return Capability::no("scale is not a constant");
    if (q.constants[1]->numel() != 1) return Capability::no("per-axis quantization of activations not supported");
    if (q.inputTypes[1] != DType::F32) return Capability::no("only float32 scales supported");
    if (q.constants[0]) return Capability::no("constant input (folded by the engine)");
    DType qType = quantize ? q.outputTypes[0] : q.inputTypes[0];
    if (q.node.inputs.size() > 2 && !q.node.inputs[2].empty()) {
        if (!q.constants[2] || q.constants[2]->numel() != 1)
            return Capability::no("zero point is not a constant scalar");
        qType = q.inputTypes[2];
    }
    if (qType != DType::U8 && qType != DType::I8) return Capability::no("only uint8/int8 quantization supported");
    if (quantize && q.inputTypes[0] != DType::F32) return Capability::no("only float32 input supported");
    if (!quantize && (q.inputTypes[0] != qType || q.outputTypes[0] != DType::F32))
        return Capability::no("only uint8/int8 to float32 supported");
    if (q.node.attrInt("saturate", 1) != 1) return Capability::no("saturate=0 not supported");
    const float scale = static_cast<float>(q.constants[1]->elementAsDouble(0));
    if (!(scale > 0.f) || !std::isfinite(scale)) return Capability::no("scale is not positive and finite");
    return Capability::yes();
}

Capability supportsQLinearNode(const NodeQuery& q) {
    if (q.inputTypes.empty() || (q.inputTypes[0] != DType::U8 && q.inputTypes[0] != DType::I8))
        return Capability::no("only uint8/int8 input supported");
    const bool conv = q.node.opType == "QLinearConv";
    if (conv ? q.inputShapes[0].size() != 4 : q.inputShapes[0].size() != 2)
        return Capability::no(conv ? "only 2-D convolutions supported" : "only 2-D QLinearMatMul supported");
    for (size_t i = 1; i < q.node.inputs.size(); ++i)
        if (!q.node.inputs[i].empty() && !q.constants[i])
            return Capability::no("parameters and weights must be constants");
    return Capability::yes();
}

const Node* producerOf(const Graph& g, const std::string& value) {
    for (const Node& n : g.nodes)
        for (const std::string& o : n.outputs)
            if (o == value) return &n;
    return nullptr;
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
        if (!(s > 0.f) || !std::isfinite(s)) return std::nullopt;
    out.values.assign(w->data<int8_t>(), w->data<int8_t>() + w->numel());
    return out;
}

std::vector<int32_t> accumulatorBias(const GraphQuery& q, const std::string& biasValue, float xScale,
                                     const std::vector<float>& wScales) {
    const size_t channels = wScales.size();
    std::vector<int32_t> out(channels, 0);
    if (biasValue.empty()) return out;
    if (const Node* dq = producerOf(q.graph, biasValue); dq && dq->opType == "DequantizeLinear" && dq->domain.empty()) {
        const Tensor* b = constantInput(q, *dq, 0);
        const Tensor* scale = constantInput(q, *dq, 1);
        const Tensor* zero = constantInput(q, *dq, 2);
        bool exact = b && scale && b->dtype() == DType::I32 && static_cast<size_t>(b->numel()) == channels &&
                     (scale->numel() == 1 || static_cast<size_t>(scale->numel()) == channels);
        for (int64_t i = 0; exact && zero && i < zero->numel(); ++i) exact = zero->elementAsDouble(i) == 0.0;
        for (size_t c = 0; exact && c < channels; ++c) {
            const float expected = xScale * wScales[c];
            const int64_t at = scale->numel() == 1 ? 0 : static_cast<int64_t>(c);
            const auto s = static_cast<float>(scale->elementAsDouble(at));
            exact = std::abs(s - expected) <= 1e-6f * expected;
        }
        if (exact) return std::vector<int32_t>(b->data<int32_t>(), b->data<int32_t>() + channels);
    }
    const ValueDesc* d = q.value(biasValue);
    if (!d || !d->constant || static_cast<size_t>(d->constant->numel()) != channels)
        failUnsupported("bias '" + biasValue + "' is not a constant of one value per output channel");
    const std::vector<float> f = d->constant->toFloatVector();
    for (size_t c = 0; c < channels; ++c) {
        const double v = std::nearbyint(static_cast<double>(f[c]) / (static_cast<double>(xScale) * wScales[c]));
        out[c] = static_cast<int32_t>(std::clamp(v, -2147483648.0, 2147483647.0));
    }
    return out;
}

int8_t quantizeStored(float real, const QuantInfo& info) {
    const StoredRange r = rangeOf(info);
    return quantizeOne(real, info.scale, static_cast<float>(info.zero), r.lo, r.hi, r.shift);
}

void quantizeToStored(const float* src, int8_t* dst, size_t count, const QuantInfo& out) {
    const StoredRange r = rangeOf(out);
    const float scale = out.scale, zero = static_cast<float>(out.zero);
    for (size_t i = 0; i < count; ++i) dst[i] = quantizeOne(src[i], scale, zero, r.lo, r.hi, r.shift);
}

void requantizeStored(const int8_t* src, int8_t* dst, size_t count, const QuantInfo& in, const QuantInfo& out) {
    const StoredRange r = rangeOf(out);
    const int32_t inZero = in.storedZero();
    const float inScale = in.scale, scale = out.scale, zero = static_cast<float>(out.zero);
    for (size_t i = 0; i < count; ++i) {
        const float real = static_cast<float>(static_cast<int32_t>(src[i]) - inZero) * inScale;
        dst[i] = quantizeOne(real, scale, zero, r.lo, r.hi, r.shift);
    }
}

void flipSign(void* data, size_t count) {
    auto* p = static_cast<uint8_t*>(data);
    for (size_t i = 0; i < count; ++i) p[i] ^= 0x80u;
}

}  // namespace npuwb::xnn
