// Row kernels of the fused attention core. Plain loops GCC vectorizes for each instruction set the clones name (GCC
// vector types and OpenMP simd reductions for the row's maximum and sum), and an exponential without library calls.
#include "AttentionRows.h"

#include <algorithm>
#include <cstring>
#include <limits>

#define NPUWB_ROW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

namespace npuwb::onednn {

namespace {

/// exp(x) for x <= 0: x = n*ln2 + r with |r| <= ln2/2 (Cody-Waite split of ln2), e^r from Cephes' expf polynomial,
/// 2^n from the exponent bits. Below -87.3 (where e^x leaves the normal floats) it returns 2^-126, which the
/// softmax's sum of at least 1 makes vanish like the reference's 0.
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

}  // namespace

NPUWB_ROW_CLONES void multiplyRow(float* x, int64_t count, float factor) {
    for (int64_t i = 0; i < count; ++i) x[i] *= factor;
}

NPUWB_ROW_CLONES void divideRow(float* x, int64_t count, float divisor) {
    for (int64_t i = 0; i < count; ++i) x[i] /= divisor;
}

NPUWB_ROW_CLONES void addRow(float* x, int64_t count, const float* addend, int64_t stride) {
    if (stride == 0) {
        const float a = addend[0];
        for (int64_t i = 0; i < count; ++i) x[i] += a;
        return;
    }
    for (int64_t i = 0; i < count; ++i) x[i] += addend[i];
}

NPUWB_ROW_CLONES void softmaxRow(float* x, int64_t count) {
    // A NaN anywhere makes the row NaN, as in the reference: the sum takes exp(NaN - max).
    // The maximum in 16 lanes of GCC's vector type (its simd reduction of a float max wants -ffinite-math-only).
    using Lanes = float __attribute__((vector_size(64)));
    constexpr float kLowest = -std::numeric_limits<float>::infinity();
    Lanes lanes = {kLowest, kLowest, kLowest, kLowest, kLowest, kLowest, kLowest, kLowest,
                   kLowest, kLowest, kLowest, kLowest, kLowest, kLowest, kLowest, kLowest};
    int64_t i = 0;
    for (; i + 16 <= count; i += 16) {
        Lanes v;
        std::memcpy(&v, x + i, sizeof v);
        lanes = v > lanes ? v : lanes;
    }
    float max = kLowest;
    for (int j = 0; j < 16; ++j) max = std::max(max, lanes[j]);
    for (; i < count; ++i) max = std::max(max, x[i]);
    float sum = 0.f;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < count; ++i) {
        const float e = expNonPositive(x[i] - max);
        x[i] = e;
        sum += e;
    }
    const float inverse = 1.f / sum;  // a division per element is several times slower; within 1 ulp of it
    for (int64_t i = 0; i < count; ++i) x[i] *= inverse;
}

}  // namespace npuwb::onednn
