// The int4 small-M kernel for AVX-512 (16 float lanes). Per 8 rows of K a column block is one 64-byte load; each
// row's nibbles become floats with one permute through a 16-entry table (vpermps reads only the low 4 bits of
// each lane), then one FMA per row of A. Compiled with -mavx512f -mavx512bw -mfma; called only when the CPU has them.
#include <immintrin.h>

#include "MatmulInt4.h"

namespace npuwb::onednn {

namespace {

/// MR rows of A by CB column blocks starting at block0.
template <int MR, int CB>
void tile(const PackedInt4B& b, const float* a, const float* aSums, float* c, int64_t block0) {
    constexpr int split = MR == 1 ? 2 : 1;  // one row: two accumulator chains per block hide the FMA latency
    const __m512 table = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1);
    const int64_t kBlocks = b.kPadded / 8, width = b.columnBlocks * 16, lda = b.kPadded;
    const int64_t kBlocksPerGroup = b.groupSize / 8;
    const uint32_t* base[CB];
    for (int cb = 0; cb < CB; ++cb) base[cb] = b.data.data() + (block0 + cb) * kBlocks * 16;
    __m512 out[MR][CB];
    for (int m = 0; m < MR; ++m)
        for (int cb = 0; cb < CB; ++cb) out[m][cb] = _mm512_setzero_ps();
    for (int64_t g = 0; g < b.groups; ++g) {
        const int64_t kb0 = g * kBlocksPerGroup, kb1 = g + 1 == b.groups ? kBlocks : (g + 1) * kBlocksPerGroup;
        __m512 acc[MR][CB][split];
        for (int m = 0; m < MR; ++m)
            for (int cb = 0; cb < CB; ++cb)
                for (int h = 0; h < split; ++h) acc[m][cb][h] = _mm512_setzero_ps();
        for (int64_t kb = kb0; kb < kb1; ++kb) {
            __m512i v[CB];
            for (int cb = 0; cb < CB; ++cb) v[cb] = _mm512_loadu_si512(base[cb] + kb * 16);
            const float* ak = a + kb * 8;
#pragma GCC unroll 8
            for (int s = 0; s < 8; ++s) {
                __m512 f[CB];
                for (int cb = 0; cb < CB; ++cb) {
                    // Full-mask maskz forms: the plain ones trip GCC 12's -Wmaybe-uninitialized on their undefined
                    // pass-through operand (same instructions).
                    f[cb] = _mm512_maskz_permutexvar_ps(__mmask16(0xffff), v[cb], table);
                    v[cb] = _mm512_maskz_srli_epi32(__mmask16(0xffff), v[cb], 4);
                }
                for (int m = 0; m < MR; ++m) {
                    const __m512 av = _mm512_set1_ps(ak[m * lda + s]);
                    for (int cb = 0; cb < CB; ++cb)
                        acc[m][cb][s % split] = _mm512_fmadd_ps(av, f[cb], acc[m][cb][s % split]);
                }
            }
        }
        for (int cb = 0; cb < CB; ++cb) {
            const __m512 scale = _mm512_loadu_ps(b.scales.data() + g * width + (block0 + cb) * 16);
            const __m512 zero = _mm512_loadu_ps(b.zeroPoints.data() + g * width + (block0 + cb) * 16);
            for (int m = 0; m < MR; ++m) {
                __m512 sum = acc[m][cb][0];
                if constexpr (split == 2) sum = _mm512_add_ps(sum, acc[m][cb][1]);
                sum = _mm512_fnmadd_ps(zero, _mm512_set1_ps(aSums[m * b.groups + g]), sum);
                out[m][cb] = _mm512_fmadd_ps(scale, sum, out[m][cb]);
            }
        }
    }
    for (int cb = 0; cb < CB; ++cb) {
        const int64_t n0 = (block0 + cb) * 16;
        const int64_t valid = b.N - n0 < 16 ? b.N - n0 : 16;
        const __mmask16 mask = __mmask16((1u << valid) - 1u);
        for (int m = 0; m < MR; ++m) _mm512_mask_storeu_ps(c + m * b.N + n0, mask, out[m][cb]);
    }
}

template <int MR>
void rows(const PackedInt4B& b, const float* a, const float* aSums, float* c, int64_t begin, int64_t end) {
    constexpr int cbWide = MR >= 4 ? 2 : 4;
    int64_t block = begin;
    for (; block + cbWide <= end; block += cbWide) tile<MR, cbWide>(b, a, aSums, c, block);
    for (; block < end; ++block) tile<MR, 1>(b, a, aSums, c, block);
}

}  // namespace

void int4MatmulAvx512(const PackedInt4B& b, int64_t M, const float* a, const float* aSums, float* c, int64_t blockBegin,
                      int64_t blockEnd) {
    int64_t m = 0;
    for (; m + 4 <= M; m += 4) rows<4>(b, a + m * b.kPadded, aSums + m * b.groups, c + m * b.N, blockBegin, blockEnd);
    for (; m + 2 <= M; m += 2) rows<2>(b, a + m * b.kPadded, aSums + m * b.groups, c + m * b.N, blockBegin, blockEnd);
    for (; m < M; ++m) rows<1>(b, a + m * b.kPadded, aSums + m * b.groups, c + m * b.N, blockBegin, blockEnd);
}

}  // namespace npuwb::onednn
