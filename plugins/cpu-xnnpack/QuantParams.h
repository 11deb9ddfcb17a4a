#pragma once
// int8 parameters of the XNNPACK backend's qs8 path: per-tensor quantization of activations as the segment stores
// them, int32 biases, and the exact elementwise quantize kernels. The QDQ parameters themselves (Q/DQ scales and zero
// points, the int8 weights behind a folded DequantizeLinear) are read by backend/QdqParams.h.
//
// uint8 values. XNNPACK's per-channel (qc8) convolution exists for int8 only, so every uint8 value of a segment is
// stored as int8 q - 128 with zero point z - 128: the same real numbers, bit for bit. Segment boundaries flip the sign
// bit (XnnSegment.cpp), and a u8 Q of a s8 DQ with equal real parameters is no copy at all.
//
// Rounding rule. QuantizeLinear and requantization between two parameter sets run here with the reference's
// arithmetic (divide in float, round half to even, saturate), bit for bit. XNNPACK's int8 convolution, add and
// average pooling accumulate exactly in int32 and requantize once in fp32 (acc * x_scale * w_scale / y_scale, round to
// nearest even); the reference computes the same graph in float, so an element within float rounding of a .5
// boundary may land one step away: results agree within 1 LSB (tests/backends/xnnpack_int8_test.cpp counts them).
#include <optional>
#include <string>
#include <vector>

#include "npuwb/sdk/QdqParams.h"

namespace npuwb::xnn {

/// Per-tensor quantization of a value: real = scale * (q - zero), q of `type` (U8 or I8), with its int8 storage.
struct QuantInfo : QuantParams {
    /// The zero point of the value as the segment stores it (int8).
    int32_t storedZero() const { return type == DType::U8 ? zero - 128 : zero; }
    /// Same real numbers for the same stored bytes.
    bool sameStored(const QuantInfo& o) const { return scale == o.scale && storedZero() == o.storedZero(); }
};

/// quantParamsOf for the segment: per-tensor Q/DQ parameters, nullopt when not constant, per axis, not u8/s8 or the
/// scale is not positive and finite.
std::optional<QuantInfo> quantOf(const GraphQuery& q, const Node& node);
/// Capability of QuantizeLinear / DequantizeLinear nodes (float32 <-> u8/s8, per tensor, constant parameters).
Capability supportsQuantNode(const NodeQuery& q);
/// Capability of QLinearConv / QLinearMatMul (constant parameters and weights; the rest is checked when lowering).
Capability supportsQLinearNode(const NodeQuery& q);

/// The int32 bias in accumulator units (scale x_scale * w_scale[c]): the integers of a folded DequantizeLinear(int32)
/// with those scales (exact), else the float bias divided by them and rounded. Zeros when `biasValue` is empty.
std::vector<int32_t> accumulatorBias(const GraphQuery& q, const std::string& biasValue, float xScale,
                                     const std::vector<float>& wScales);

/// Stored (int8) value of the real number `real` quantized with `info`, as the reference rounds: for output clamps.
int8_t quantizeStored(float real, const QuantInfo& info);

/// Elementwise kernels over `count` int8 (stored) elements, any layout.
void quantizeToStored(const float* src, int8_t* dst, size_t count, const QuantInfo& out);
void requantizeStored(const int8_t* src, int8_t* dst, size_t count, const QuantInfo& in, const QuantInfo& out);
/// Flips the sign bit: uint8 <-> stored int8.
void flipSign(void* data, size_t count);

}  // namespace npuwb::xnn
