#include "QuantParams.h"

#include <algorithm>
#include <cmath>

namespace npuwb::xnn {
namespace {

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
    if (auto p = quantParamsOf(q, node)) return QuantInfo{*p};
    return std::nullopt;
}

Capability supportsQuantNode(const NodeQuery& q) {
    if (Capability c = supportsPerTensorQdq(q); !c.supported) return c;
    if (q.constants[0]) return Capability::no("constant input (folded by the engine)");
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

std::vector<int32_t> accumulatorBias(const GraphQuery& q, const std::string& biasValue, float xScale,
                                     const std::vector<float>& wScales) {
    const size_t channels = wScales.size();
    if (biasValue.empty()) return std::vector<int32_t>(channels, 0);
    if (auto exact = exactInt32Bias(q, biasValue, xScale, wScales)) return std::move(*exact);
    const std::vector<float> f = constantBias(q, biasValue, channels);
    std::vector<int32_t> out(channels);
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
