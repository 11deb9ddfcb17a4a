// Element conversions for the matmul kernels and fp16 values in a segment; the F16C paths are picked at run time.
#include "MatmulConvert.h"

#include <immintrin.h>

#include <cstring>

#include "npuwb/MatmulTypes.h"
#include "npuwb/ir/Half.h"

namespace npuwb::onednn {

namespace {

bool hasF16c() {
    static const bool has = __builtin_cpu_supports("f16c") && __builtin_cpu_supports("avx2");
    return has;
}

__attribute__((target("avx2,f16c"))) void halfToFloatF16c(const uint16_t* src, float* dst, int64_t count) {
    int64_t i = 0;
    for (; i + 8 <= count; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i))));
    for (; i < count; ++i) dst[i] = halfBitsToFloat(src[i]);
}

__attribute__((target("avx2,f16c"))) void floatToHalfF16c(const float* src, uint16_t* dst, int64_t count) {
    int64_t i = 0;
    for (; i + 8 <= count; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    for (; i < count; ++i) dst[i] = floatToHalfBits(src[i]);
}

__attribute__((target("avx2,f16c"))) void roundToHalfF16c(const float* src, float* dst, int64_t count) {
    int64_t i = 0;
    for (; i + 8 <= count; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm256_cvtps_ph(_mm256_loadu_ps(src + i),
                                                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
    for (; i < count; ++i) dst[i] = halfBitsToFloat(floatToHalfBits(src[i]));
}

}  // namespace

void roundToHalf(const float* src, float* dst, int64_t count) {
    if (hasF16c()) return roundToHalfF16c(src, dst, count);
    for (int64_t i = 0; i < count; ++i) dst[i] = halfBitsToFloat(floatToHalfBits(src[i]));
}

void halfRowsToFloat(const uint16_t* src, float* dst, int64_t rows, int64_t cols, int64_t ld) {
    for (int64_t r = 0; r < rows; ++r) {
        float* out = dst + r * ld;
        if (hasF16c()) {
            halfToFloatF16c(src + r * cols, out, cols);
        } else {
            for (int64_t i = 0; i < cols; ++i) out[i] = halfBitsToFloat(src[r * cols + i]);
        }
        if (ld > cols) std::memset(out + cols, 0, size_t(ld - cols) * sizeof(float));
    }
}

void floatToHalf(const float* src, uint16_t* dst, int64_t count) {
    if (hasF16c()) return floatToHalfF16c(src, dst, count);
    for (int64_t i = 0; i < count; ++i) dst[i] = floatToHalfBits(src[i]);
}

void floatToBFloat16(const float* src, uint16_t* dst, int64_t count) {
    for (int64_t i = 0; i < count; ++i) dst[i] = floatToBFloat16Bits(src[i]);
}

void int4ToInt8(const void* src, int8_t* dst, int64_t count) {
    const auto* bytes = static_cast<const uint8_t*>(src);
    int64_t i = 0;
    for (; i + 1 < count; i += 2) {
        const uint8_t byte = bytes[i / 2];
        dst[i] = int8_t(int8_t(uint8_t(byte << 4)) >> 4);  // sign-extend the low nibble
        dst[i + 1] = int8_t(int8_t(byte) >> 4);
    }
    if (i < count) dst[i] = int4At(src, i);
}

}  // namespace npuwb::onednn
