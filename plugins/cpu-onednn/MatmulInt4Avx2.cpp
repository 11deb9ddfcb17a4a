// The int4 small-M kernel for AVX2 (8 float lanes): like MatmulInt4Avx512.cpp, but the nibble of each lane
// becomes a float by shifting it to the top, shifting back with sign, and converting (AVX2 has no 16-entry
// permute). Compiled with -mavx2 -mfma; called only when the CPU has them.
#include <immintrin.h>

#include "MatmulInt4.h"

namespace npuwb::onednn {

namespace {

template <int MR, int CB>
void tile(const PackedInt4B& b, const float* a, const float* aSums, float* c, int64_t block0) {
    const int64_t kBlocks = b.kPadded / 8, width = b.columnBlocks * 8, lda = b.kPadded;
    const int64_t kBlocksPerGroup = b.groupSize / 8;
    const uint32_t* base[CB];
    for (int cb = 0; cb < CB; ++cb) base[cb] = b.data.data() + (block0 + cb) * kBlocks * 8;
    __m256 out[MR][CB];
    for (int m = 0; m < MR; ++m)
        for (int cb = 0; cb < CB; ++cb) out[m][cb] = _mm256_setzero_ps();
    for (int64_t g = 0; g < b.groups; ++g) {
        const int64_t kb0 = g * kBlocksPerGroup, kb1 = g + 1 == b.groups ? kBlocks : (g + 1) * kBlocksPerGroup;
        __m256 acc[MR][CB];
        for (int m = 0; m < MR; ++m)
            for (int cb = 0; cb < CB; ++cb) acc[m][cb] = _mm256_setzero_ps();
        for (int64_t kb = kb0; kb < kb1; ++kb) {
            __m256i v[CB];
            for (int cb = 0; cb < CB; ++cb)
                v[cb] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(base[cb] + kb * 8));
            const float* ak = a + kb * 8;
#pragma GCC unroll 8
            for (int s = 0; s < 8; ++s) {
                __m256 f[CB];
                for (int cb = 0; cb < CB; ++cb)
                    f[cb] = _mm256_cvtepi32_ps(_mm256_srai_epi32(_mm256_slli_epi32(v[cb], 28 - 4 * s), 28));
                for (int m = 0; m < MR; ++m) {
                    const __m256 av = _mm256_set1_ps(ak[m * lda + s]);
                    for (int cb = 0; cb < CB; ++cb) acc[m][cb] = _mm256_fmadd_ps(av, f[cb], acc[m][cb]);
                }
            }
        }
        for (int cb = 0; cb < CB; ++cb) {
            const __m256 scale = _mm256_loadu_ps(b.scales.data() + g * width + (block0 + cb) * 8);
            const __m256 zero = _mm256_loadu_ps(b.zeroPoints.data() + g * width + (block0 + cb) * 8);
            for (int m = 0; m < MR; ++m) {
                const __m256 sum = _mm256_fnmadd_ps(zero, _mm256_set1_ps(aSums[m * b.groups + g]), acc[m][cb]);
                out[m][cb] = _mm256_fmadd_ps(scale, sum, out[m][cb]);
            }
        }
    }
    for (int cb = 0; cb < CB; ++cb) {
        const int64_t n0 = (block0 + cb) * 8;
        for (int m = 0; m < MR; ++m) {
            if (b.N - n0 >= 8) {
                _mm256_storeu_ps(c + m * b.N + n0, out[m][cb]);
            } else {
                alignas(32) float lanes[8];
                _mm256_store_ps(lanes, out[m][cb]);
                for (int64_t j = 0; j < b.N - n0; ++j) c[m * b.N + n0 + j] = lanes[j];
            }
        }
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

void int4MatmulAvx2(const PackedInt4B& b, int64_t M, const float* a, const float* aSums, float* c, int64_t blockBegin,
                    int64_t blockEnd) {
    int64_t m = 0;
    for (; m + 4 <= M; m += 4) rows<4>(b, a + m * b.kPadded, aSums + m * b.groups, c + m * b.N, blockBegin, blockEnd);
    for (; m + 2 <= M; m += 2) rows<2>(b, a + m * b.kPadded, aSums + m * b.groups, c + m * b.N, blockBegin, blockEnd);
    for (; m < M; ++m) rows<1>(b, a + m * b.kPadded, aSums + m * b.groups, c + m * b.N, blockBegin, blockEnd);
}

}  // namespace npuwb::onednn
