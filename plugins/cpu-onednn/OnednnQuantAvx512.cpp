// Built with -mavx512f -ffp-contract=off (CMakeLists.txt); called only where the CPU has AVX-512F.
#include "OnednnQuantAvx512.h"

#include <immintrin.h>

#include <type_traits>

namespace npuwb::onednn::avx512 {

namespace {

template <class Q> __m512i load16(const Q* p) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    if constexpr (std::is_signed_v<Q>) return _mm512_cvtepi8_epi32(bytes);
    else return _mm512_cvtepu8_epi32(bytes);
}

/// OnednnQuant.cpp's saturate<Q>(roundEven(v) + zero): clamp to +-4e6 (NaN to the lowest: max_ps returns its second
/// operand for NaN, as std::max(lo, NaN) returns lo), round half to even with the same magic constant, add the zero
/// point, clamp to Q's range and keep the low byte.
template <class Q> void store16(Q* p, __m512 v, __m512 zero) {
    const __m512 magic = _mm512_set1_ps(12582912.f);
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(-4.0e6f)), _mm512_set1_ps(4.0e6f));
    v = _mm512_sub_ps(_mm512_add_ps(v, magic), magic);
    v = _mm512_add_ps(v, zero);
    constexpr float lo = std::is_signed_v<Q> ? -128.f : 0.f, hi = std::is_signed_v<Q> ? 127.f : 255.f;
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(v)));
}

__m512 dequantize16(__m512i q, __m512i zero, __m512 scale) {
    return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(q, zero)), scale);
}

}  // namespace

bool available() {
    static const bool has = __builtin_cpu_supports("avx512f");
    return has;
}

template <class Q> size_t quantize(const float* in, Q* out, size_t begin, size_t end, float scale, float zero) {
    const __m512 s = _mm512_set1_ps(scale), z = _mm512_set1_ps(zero);
    size_t i = begin;
    for (; i + 16 <= end; i += 16) store16(out + i, _mm512_div_ps(_mm512_loadu_ps(in + i), s), z);
    return i;
}

template <class Q> size_t dequantize(const Q* in, float* out, size_t begin, size_t end, int32_t zero, float scale) {
    const __m512i z = _mm512_set1_epi32(zero);
    const __m512 s = _mm512_set1_ps(scale);
    size_t i = begin;
    for (; i + 16 <= end; i += 16) _mm512_storeu_ps(out + i, dequantize16(load16(in + i), z, s));
    return i;
}

template <class I, class O>
size_t requantize(const I* in, O* out, size_t begin, size_t end, int32_t inZero, float inScale, float outScale,
                  float outZero) {
    const __m512i zi = _mm512_set1_epi32(inZero);
    const __m512 si = _mm512_set1_ps(inScale), so = _mm512_set1_ps(outScale), zo = _mm512_set1_ps(outZero);
    size_t i = begin;
    for (; i + 16 <= end; i += 16) store16(out + i, _mm512_div_ps(dequantize16(load16(in + i), zi, si), so), zo);
    return i;
}

template <bool Multiply, class A, class B, class Y>
size_t binary(const A* a, const B* b, Y* out, size_t begin, size_t end, int32_t za, float sa, int32_t zb, float sb,
              float sy, float zy, float lo, float hi) {
    const __m512i zA = _mm512_set1_epi32(za), zB = _mm512_set1_epi32(zb);
    const __m512 sA = _mm512_set1_ps(sa), sB = _mm512_set1_ps(sb), sY = _mm512_set1_ps(sy), zY = _mm512_set1_ps(zy);
    const __m512 low = _mm512_set1_ps(lo), high = _mm512_set1_ps(hi);
    size_t i = begin;
    for (; i + 16 <= end; i += 16) {
        const __m512 va = dequantize16(load16(a + i), zA, sA), vb = dequantize16(load16(b + i), zB, sB);
        __m512 v = Multiply ? _mm512_mul_ps(va, vb) : _mm512_add_ps(va, vb);
        v = _mm512_min_ps(_mm512_max_ps(v, low), high);  // std::min(hi, std::max(lo, v)), NaN to lo
        store16(out + i, _mm512_div_ps(v, sY), zY);
    }
    return i;
}

bool byteLookupAvailable() {
    static const bool has = __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512bw");
    return has;
}

__attribute__((target("avx512f,avx512bw,avx512vbmi"))) size_t lookUp(const uint8_t* table, const uint8_t* in,
                                                                      uint8_t* out, size_t begin, size_t end) {
    const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
    const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
    size_t i = begin;
    for (; i + 64 <= end; i += 64) {
        const __m512i x = _mm512_loadu_si512(in + i);
        const __m512i low = _mm512_permutex2var_epi8(t0, x, t1), high = _mm512_permutex2var_epi8(t2, x, t3);
        _mm512_storeu_si512(out + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high));
    }
    return i;
}

template size_t quantize<uint8_t>(const float*, uint8_t*, size_t, size_t, float, float);
template size_t quantize<int8_t>(const float*, int8_t*, size_t, size_t, float, float);
template size_t dequantize<uint8_t>(const uint8_t*, float*, size_t, size_t, int32_t, float);
template size_t dequantize<int8_t>(const int8_t*, float*, size_t, size_t, int32_t, float);
#define NPUWB_REQUANTIZE(I, O) \
    template size_t requantize<I, O>(const I*, O*, size_t, size_t, int32_t, float, float, float);
NPUWB_REQUANTIZE(uint8_t, uint8_t)
NPUWB_REQUANTIZE(uint8_t, int8_t)
NPUWB_REQUANTIZE(int8_t, uint8_t)
NPUWB_REQUANTIZE(int8_t, int8_t)
#define NPUWB_BINARY(M, A, B, Y)                                                                                   \
    template size_t binary<M, A, B, Y>(const A*, const B*, Y*, size_t, size_t, int32_t, float, int32_t, float, float, \
                                       float, float, float);
#define NPUWB_BINARY_Y(M, A, B) NPUWB_BINARY(M, A, B, uint8_t) NPUWB_BINARY(M, A, B, int8_t)
#define NPUWB_BINARY_B(M, A) NPUWB_BINARY_Y(M, A, uint8_t) NPUWB_BINARY_Y(M, A, int8_t)
#define NPUWB_BINARY_A(M) NPUWB_BINARY_B(M, uint8_t) NPUWB_BINARY_B(M, int8_t)
NPUWB_BINARY_A(true)
NPUWB_BINARY_A(false)

}  // namespace npuwb::onednn::avx512
