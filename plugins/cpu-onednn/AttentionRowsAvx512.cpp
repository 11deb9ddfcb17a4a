// Built with -mavx512f (CMakeLists.txt); called only where the CPU has AVX-512F.
#include "AttentionRowsAvx512.h"

#include <immintrin.h>

namespace npuwb::onednn::avx512 {

namespace {

/// expNonPositive (AttentionRows.h) on 16 lanes: the same split of x into n*ln2 + r, the same polynomial. max_ps
/// returns its second operand for NaN, so the clamp keeps a NaN, as std::max(x, c) does.
__m512 exp16(__m512 x) {
    x = _mm512_max_ps(_mm512_set1_ps(-87.33654f), x);
    const __m512 magic = _mm512_set1_ps(12582912.f);
    const __m512 n = _mm512_sub_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504f), magic), magic);
    const __m512 r = _mm512_fmadd_ps(n, _mm512_set1_ps(2.12194440e-4f),
                                     _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x));
    __m512 p = _mm512_set1_ps(1.9875691500e-4f);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
    p = _mm512_add_ps(_mm512_fmadd_ps(_mm512_mul_ps(p, r), r, r), _mm512_set1_ps(1.f));
    const __m512i bits = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvttps_epi32(n), _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(p, _mm512_castsi512_ps(bits));
}

/// Lanes [i, i + 16) of a row of `count`: all, or the tail's.
__mmask16 lanes(int64_t i, int64_t count) {
    const int64_t left = count - i;
    return left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1u);
}

template <bool Round, ScorePrologue::Scale S, bool Add>
float prologueAndMax(float* x, int64_t count, const ScorePrologue& pre) {
    const __m512 factor = _mm512_set1_ps(pre.scaleValue);
    const __m512 lowest = _mm512_set1_ps(-__builtin_inff());
    __m512 max = lowest;
    for (int64_t i = 0; i < count; i += 16) {
        const __mmask16 m = lanes(i, count);
        __m512 v = _mm512_maskz_loadu_ps(m, x + i);
        if constexpr (Round) v = _mm512_cvtph_ps(_mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        if constexpr (S == ScorePrologue::Scale::Multiply) v = _mm512_mul_ps(v, factor);
        if constexpr (S == ScorePrologue::Scale::Divide) v = _mm512_div_ps(v, factor);
        if constexpr (Add) {
            v = _mm512_add_ps(v, pre.addendStride == 0 ? _mm512_set1_ps(pre.addend[0])
                                                       : _mm512_maskz_loadu_ps(m, pre.addend + i));
        }
        _mm512_mask_storeu_ps(x + i, m, v);
        max = _mm512_mask_max_ps(max, m, v, max);  // a NaN lane keeps the maximum; the sum turns the row NaN
    }
    return _mm512_reduce_max_ps(max);
}

template <bool Round, ScorePrologue::Scale S>
float prologueAndMax(float* x, int64_t count, const ScorePrologue& pre) {
    return pre.addend ? prologueAndMax<Round, S, true>(x, count, pre) : prologueAndMax<Round, S, false>(x, count, pre);
}

template <bool Round> float prologueAndMax(float* x, int64_t count, const ScorePrologue& pre) {
    switch (pre.scale) {
    case ScorePrologue::Scale::Multiply: return prologueAndMax<Round, ScorePrologue::Scale::Multiply>(x, count, pre);
    case ScorePrologue::Scale::Divide: return prologueAndMax<Round, ScorePrologue::Scale::Divide>(x, count, pre);
    default: return prologueAndMax<Round, ScorePrologue::Scale::None>(x, count, pre);
    }
}

/// quantizeDequantizeRow's result in fewer steps: with integer bounds L = lo - zero and H = hi - zero, clamping the
/// rounded value to [L, H] is rounding the value clamped to [L, H] (rounding is monotonic and keeps integers), and the
/// integers stay exact in float. min/max with the bound first keep a NaN, as std::min/max do there.
__m512 quantizeDequantize16(__m512 x, const ProbabilityEpilogue& q) {
    const __m512 magic = _mm512_set1_ps(12582912.f);
    __m512 v = _mm512_div_ps(x, _mm512_set1_ps(q.qScale));
    v = _mm512_min_ps(_mm512_set1_ps(q.hi - q.qZero), _mm512_max_ps(_mm512_set1_ps(q.lo - q.qZero), v));
    v = _mm512_sub_ps(_mm512_add_ps(v, magic), magic);
    return _mm512_mul_ps(_mm512_add_ps(v, _mm512_set1_ps(q.qZero - q.dZero)), _mm512_set1_ps(q.dScale));
}

}  // namespace

void scoreRowSoftmax(float* x, int64_t count, const ScorePrologue& pre, const ProbabilityEpilogue& post) {
    const float max = pre.roundToHalf ? prologueAndMax<true>(x, count, pre) : prologueAndMax<false>(x, count, pre);
    const __m512 top = _mm512_set1_ps(max);
    __m512 sum = _mm512_setzero_ps();
    for (int64_t i = 0; i < count; i += 16) {
        const __mmask16 m = lanes(i, count);
        const __m512 e = exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, x + i), top));
        _mm512_mask_storeu_ps(x + i, m, e);
        sum = _mm512_mask_add_ps(sum, m, sum, e);
    }
    const __m512 inverse = _mm512_set1_ps(1.f / _mm512_reduce_add_ps(sum));
    for (int64_t i = 0; i < count; i += 16) {
        const __mmask16 m = lanes(i, count);
        __m512 p = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + i), inverse);
        if (post.quantizeDequantize) p = quantizeDequantize16(p, post);
        _mm512_mask_storeu_ps(x + i, m, p);
    }
}

void quantizeDequantizeRow(float* x, int64_t count, const ProbabilityEpilogue& q) {
    for (int64_t i = 0; i < count; i += 16) {
        const __mmask16 m = lanes(i, count);
        _mm512_mask_storeu_ps(x + i, m, quantizeDequantize16(_mm512_maskz_loadu_ps(m, x + i), q));
    }
}

}  // namespace npuwb::onednn::avx512
