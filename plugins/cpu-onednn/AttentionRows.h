#pragma once
// Row kernels of the fused attention core (OnednnAttention.cpp): the steps exporters and the quantizer put between
// the two MatMuls, applied to a block of score rows while it is in cache.
#include <algorithm>
#include <cstdint>
#include <cstring>

namespace npuwb::onednn {

/// exp(x) for x <= 0: x = n*ln2 + r with |r| <= ln2/2 (Cody-Waite split of ln2), e^r from Cephes' expf polynomial,
/// 2^n from the exponent bits (inline: the row kernels here and in OnednnKeptOpRows.cpp vectorize it). Below -87.3
/// (where e^x leaves the normal floats) it returns 2^-126, which the softmax's sum of at least 1 makes vanish like
/// the reference's 0.
inline float expNonPositive(float x) {
    x = std::max(x, -87.33654f);
    const float n = (x * 1.44269504f + 12582912.f) - 12582912.f;  // round to nearest through the float mantissa
    const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.f;
    const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
    float scale;
    std::memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

/// x[i] *= factor.
void multiplyRow(float* x, int64_t count, float factor);
/// x[i] /= divisor (a division, like the reference: 1/divisor would round).
void divideRow(float* x, int64_t count, float divisor);
/// x[i] += addend[i * stride] (stride 1, or 0 for one value broadcast over the row).
void addRow(float* x, int64_t count, const float* addend, int64_t stride);
/// A QuantizeLinear then a DequantizeLinear in place, in float: x = (clamp(round_even(x / qScale) + qZero, lo, hi)
/// - dZero) * dScale. The integers are exact in float, so this is the reference's result without the bytes.
void quantizeDequantizeRow(float* x, int64_t count, float qScale, float qZero, float lo, float hi, float dScale,
                           float dZero);
/// Softmax of the row in place: exp(x - max) / sum, the exponential from a polynomial accurate to about 1 ulp (and
/// the division a product with 1/sum).
void softmaxRow(float* x, int64_t count);

}  // namespace npuwb::onednn
