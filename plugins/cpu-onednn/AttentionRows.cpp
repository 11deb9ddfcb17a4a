// Row kernels of the fused attention core. Plain loops GCC vectorizes for each instruction set the clones name (GCC
// vector types and OpenMP simd reductions for the row's maximum and sum), and an exponential without library calls.
#include "AttentionRows.h"

#include <algorithm>
#include <cstring>
#include <limits>

#define NPUWB_ROW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

namespace npuwb::onednn {

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

NPUWB_ROW_CLONES void quantizeDequantizeRow(float* x, int64_t count, float qScale, float qZero, float lo, float hi,
                                            float dScale, float dZero) {
    // Clamped before rounding so the round-through-the-mantissa trick (exact below 2^22) applies; a value beyond
    // the range saturates the same either way.
    constexpr float kRound = 12582912.f;  // 1.5 * 2^23
    const float below = lo - qZero - 1.f, above = hi - qZero + 1.f;
    for (int64_t i = 0; i < count; ++i) {
        const float v = std::min(std::max(x[i] / qScale, below), above);
        const float q = std::min(std::max(((v + kRound) - kRound) + qZero, lo), hi);
        x[i] = (q - dZero) * dScale;
    }
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
