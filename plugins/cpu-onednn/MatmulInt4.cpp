// Packing of int4 B for the small-M kernels and the dispatch to the widest instruction set the CPU has.
#include "MatmulInt4.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace npuwb::onednn {

namespace {

/// NPUWB_MATMUL_MAX_ISA=avx2 keeps an AVX-512 machine on the AVX2 kernel (how the tests reach it; like oneDNN's
/// ONEDNN_MAX_CPU_ISA).
int lanesForThisCpu() {
    const char* maxIsa = std::getenv("NPUWB_MATMUL_MAX_ISA");
    const bool avx512Allowed = !maxIsa || std::string(maxIsa) != "avx2";
    if (avx512Allowed && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) return 16;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 8;
    return 0;
}

}  // namespace

bool int4KernelSupports(const MatmulKernelSpec& spec, std::string& why) {
    const MatmulTypeInfo& info = matmulTypeInfo(spec.type);
    if (info.a != DType::F16 || info.b != DType::I4) {
        why = "not an fp16 x int4 type";
        return false;
    }
    if (lanesForThisCpu() == 0) {
        why = "the int4 kernel needs AVX2 and FMA";
        return false;
    }
    if (spec.b.granularity == QuantGranularity::PerGroup && spec.b.groupSize % 8 != 0) {
        why = "int4 groups of " + std::to_string(spec.b.groupSize) + " rows (the kernel takes multiples of 8)";
        return false;
    }
    return true;
}

PackedInt4B packInt4B(const MatmulKernelSpec& spec, const void* b) {
    PackedInt4B p;
    p.lanes = lanesForThisCpu();
    p.K = spec.K;
    p.N = spec.N;
    p.kPadded = (spec.K + 7) / 8 * 8;
    p.columnBlocks = (spec.N + p.lanes - 1) / p.lanes;
    p.groups = spec.b.groups(spec.K);
    p.groupSize = spec.K / p.groups;
    const int64_t lanes = p.lanes, kBlocks = p.kPadded / 8, width = p.columnBlocks * lanes;
    p.data.assign(size_t(p.columnBlocks * kBlocks * lanes), 0u);
    for (int64_t k = 0; k < spec.K; ++k)
        for (int64_t n = 0; n < spec.N; ++n) {
            const int64_t index = spec.bTransposed ? n * spec.K + k : k * spec.N + n;
            const uint32_t nibble = uint32_t(int4At(b, index)) & 0xfu;
            uint32_t& word = p.data[size_t(((n / lanes) * kBlocks + k / 8) * lanes + n % lanes)];
            word |= nibble << (4 * (k % 8));
        }
    p.scales.assign(size_t(p.groups * width), 0.0f);
    p.zeroPoints.assign(size_t(p.groups * width), 0.0f);
    for (int64_t g = 0; g < p.groups; ++g)
        for (int64_t n = 0; n < spec.N; ++n) {
            p.scales[size_t(g * width + n)] = spec.b.scale(g, n, spec.N);
            p.zeroPoints[size_t(g * width + n)] = float(spec.b.zeroPoint(g, n, spec.N));
        }
    return p;
}

void int4Matmul(const PackedInt4B& b, int64_t M, const float* a, float* c, int threads) {
    std::vector<float> aSums(size_t(M * b.groups), 0.0f);
    for (int64_t m = 0; m < M; ++m)
        for (int64_t k = 0; k < b.K; ++k) aSums[size_t(m * b.groups + k / b.groupSize)] += a[m * b.kPadded + k];
    // Work in runs of 4 column blocks (the kernels' register tile), spread evenly over the threads.
    const int64_t chunk = 4, chunks = (b.columnBlocks + chunk - 1) / chunk;
    const int used = int(std::clamp<int64_t>(threads, 1, chunks));
#pragma omp parallel for num_threads(used) schedule(static)
    for (int64_t t = 0; t < used; ++t) {
        const int64_t begin = chunks * t / used * chunk;
        const int64_t end = std::min(b.columnBlocks, chunks * (t + 1) / used * chunk);
        if (begin >= end) continue;
        if (b.lanes == 16)
            int4MatmulAvx512(b, M, a, aSums.data(), c, begin, end);
        else
            int4MatmulAvx2(b, M, a, aSums.data(), c, begin, end);
    }
}

}  // namespace npuwb::onednn
