#pragma once
// The attention core's score row in three passes instead of one per step (AttentionRows.h has the step-by-step
// form): the steps before the Softmax ride on its maximum pass, a QDQ of the probabilities on its normalizing pass.
// AVX-512F intrinsics (vcvtps2ph rounds to fp16 in the vector unit; GCC's clones of portable loops could not), the
// same arithmetic as the portable row kernels. Call only when avx512::available().
#include <cstdint>

namespace npuwb::onednn {

/// The steps before the Softmax this kernel takes, applied in this order (the quantizer's fp16 marks, the exporter's
/// scale, a mask or bias).
struct ScorePrologue {
    bool roundToHalf = false;
    enum class Scale { None, Multiply, Divide } scale = Scale::None;
    float scaleValue = 1.f;
    const float* addend = nullptr;  // Add: x[i] += addend[i * addendStride] (stride 0: one value for the row)
    int64_t addendStride = 0;
};

/// A QuantizeLinear then DequantizeLinear of the probabilities to an 8-bit type, in float (quantizeDequantizeRow).
struct ProbabilityEpilogue {
    bool quantizeDequantize = false;
    float qScale = 1.f, qZero = 0.f, lo = 0.f, hi = 0.f, dScale = 1.f, dZero = 0.f;
};

namespace avx512 {

/// The prologue's steps, Softmax over the row, then the epilogue, in place.
void scoreRowSoftmax(float* x, int64_t count, const ScorePrologue& pre, const ProbabilityEpilogue& post);
/// The epilogue alone, in place (bit for bit the portable quantizeDequantizeRow).
void quantizeDequantizeRow(float* x, int64_t count, const ProbabilityEpilogue& q);

}  // namespace avx512
}  // namespace npuwb::onednn
