#pragma once
// int8 parameters of the XNNPACK backend's qs8 path: per-tensor quantization of activations, the s8 weights behind a
// folded DequantizeLinear, int32 biases, and the exact elementwise quantize kernels.
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

#include "backend/Backend.h"

namespace npuwb::xnn {

/// Per-tensor quantization of a value: real = scale * (q - zero), q of `type` (U8 or I8).
struct QuantInfo {
    float scale = 1.f;
    int32_t zero = 0;
    DType type = DType::U8;
    /// The zero point of the value as the segment stores it (int8).
    int32_t storedZero() const { return type == DType::U8 ? zero - 128 : zero; }
    /// Same real numbers for the same stored bytes.
    bool sameStored(const QuantInfo& o) const { return scale == o.scale && storedZero() == o.storedZero(); }
};

/// Per-tensor parameters of a QuantizeLinear/DequantizeLinear node from its constant inputs; nullopt when they are not
/// constants, per axis, not u8/s8, or the scale is not positive and finite.
std::optional<QuantInfo> quantOf(const GraphQuery& q, const Node& node);
/// Capability of QuantizeLinear / DequantizeLinear nodes (float32 <-> u8/s8, per tensor, constant parameters).
Capability supportsQuantNode(const NodeQuery& q);
/// Capability of QLinearConv / QLinearMatMul (constant parameters and weights; the rest is checked when lowering).
Capability supportsQLinearNode(const NodeQuery& q);

/// The node that produces `value`, or nullptr for graph inputs and initializers.
const Node* producerOf(const Graph& g, const std::string& value);

/// Symmetric int8 weights: the values and one scale per entry of the output-channel axis.
struct Int8Weights {
    std::vector<int8_t> values;
    std::vector<float> scales;
};
/// The int8 weights behind a constant the engine folded from DequantizeLinear(int8 initializer), with scales along
/// `axis` (size `channels`; a per-tensor scale is repeated); nullopt for other constants or non-zero zero points.
std::optional<Int8Weights> int8WeightsOf(const GraphQuery& q, const std::string& weightValue, int64_t axis,
                                         int64_t channels);
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
