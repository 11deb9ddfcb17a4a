#pragma once
// fp16 x int4 -> float matmuls at small M (the LLM decode case, bound by reading the weights): B stays packed as
// int4 and is expanded in registers, never written out as floats. One file per instruction set (ncnn style):
// MatmulInt4Avx512.cpp, MatmulInt4Avx2.cpp; MatmulInt4.cpp packs B and picks the widest the CPU has.
//
// Packed B: blocks of W columns (W = the vector's float lanes, 16 or 8) by 8 rows of K; in a block, 32-bit lane
// j holds column j's 8 nibbles, row k+s in bits 4s..4s+3. A column block's K rows follow each other, so a block
// of columns is one contiguous stream. N and K are padded with zeros to W and 8.
#include <cstdint>
#include <vector>

#include "npuwb/sdk/MatmulKernel.h"

namespace npuwb::onednn {

/// The largest M the int4 kernel runs; larger M go through oneDNN on dequantized weights (compute-bound there).
inline constexpr int64_t kInt4KernelMaxM = 16;

struct PackedInt4B {
    int lanes = 0;  // W: 16 (AVX-512) or 8 (AVX2)
    int64_t K = 0, N = 0;
    int64_t kPadded = 0, columnBlocks = 0;
    int64_t groups = 1, groupSize = 0;  // quantization groups of K (1: per layer or per channel)
    std::vector<uint32_t> data;         // [columnBlocks][kPadded / 8][lanes]
    std::vector<float> scales;          // [groups][columnBlocks * lanes], 0 in padding
    std::vector<float> zeroPoints;      // same shape
};

/// Whether this CPU and spec suit the int4 kernel (fp16 A, int4 B, groups a multiple of 8 rows); why not.
bool int4KernelSupports(const MatmulKernelSpec& spec, std::string& why);
PackedInt4B packInt4B(const MatmulKernelSpec& spec, const void* b);

/// C rows [0, M) as fp32 (row-major, ldc = N) from fp32 A [M][kPadded] (zero beyond K).
void int4Matmul(const PackedInt4B& b, int64_t M, const float* a, float* c, int threads);

/// Per-ISA bodies: column blocks [blockBegin, blockEnd); aSums[m * groups + g] = sum of A's row m over group g
/// (zero points are applied per group as scale * (sum(a * q) - zeroPoint * sum(a))).
void int4MatmulAvx512(const PackedInt4B& b, int64_t M, const float* a, const float* aSums, float* c, int64_t blockBegin,
                      int64_t blockEnd);
void int4MatmulAvx2(const PackedInt4B& b, int64_t M, const float* a, const float* aSums, float* c, int64_t blockBegin,
                    int64_t blockEnd);

}  // namespace npuwb::onednn
