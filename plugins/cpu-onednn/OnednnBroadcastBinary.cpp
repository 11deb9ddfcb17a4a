#include "OnednnBroadcastBinary.h"

#include <omp.h>

#include <algorithm>

// Vector forms picked at load time; the default build targets baseline x86-64.
#define NPUWB_ROW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

namespace npuwb::onednn {

BroadcastRows broadcastRows(const std::vector<int64_t>& outDims, const std::vector<int64_t>& bDims) {
    BroadcastRows rows;
    const size_t rank = outDims.size();
    // The trailing dims where b is like the last one (all full, or all one value) make a row.
    size_t split = rank;
    if (rank > 0) {
        rows.scalarB = bDims[rank - 1] != outDims[rank - 1];
        auto sameKind = [&](size_t d) { return rows.scalarB ? bDims[d] == 1 : bDims[d] == outDims[d]; };
        while (split > 0 && sameKind(split - 1)) rows.inner *= outDims[--split];
    }
    std::vector<int64_t> bStride(rank, 0);
    int64_t stride = 1;
    for (size_t d = rank; d-- > 0;) {
        bStride[d] = bDims[d] == 1 && outDims[d] != 1 ? 0 : stride;
        stride *= bDims[d];
    }
    int64_t count = 1;
    for (size_t d = 0; d < split; ++d) count *= outDims[d];
    rows.rowOffset.resize(size_t(count));
    for (int64_t r = 0; r < count; ++r) {
        int64_t rest = r, at = 0;
        for (size_t d = split; d-- > 0;) {
            at += (rest % outDims[d]) * bStride[d];
            rest /= outDims[d];
        }
        rows.rowOffset[size_t(r)] = at;
    }
    return rows;
}

namespace {

template <BinaryOp Op>
inline float apply(float a, float b) {
    if constexpr (Op == BinaryOp::Add) return a + b;
    if constexpr (Op == BinaryOp::Sub) return a - b;
    if constexpr (Op == BinaryOp::Mul) return a * b;
    if constexpr (Op == BinaryOp::Div) return a / b;
    if constexpr (Op == BinaryOp::Max) return std::max(a, b);
    return std::min(a, b);
}

template <BinaryOp Op>
NPUWB_ROW_CLONES void rowOf(const float* __restrict a, const float* __restrict b, float* __restrict out, int64_t n,
                            bool scalarB) {
    if (scalarB) {
        const float v = *b;
        for (int64_t i = 0; i < n; ++i) out[i] = apply<Op>(a[i], v);
    } else {
        for (int64_t i = 0; i < n; ++i) out[i] = apply<Op>(a[i], b[i]);
    }
}

template <BinaryOp Op>
void allRows(const BroadcastRows& rows, const float* a, const float* b, float* out) {
    const auto count = static_cast<int64_t>(rows.rowOffset.size());
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < count; ++r)
        rowOf<Op>(a + r * rows.inner, b + rows.rowOffset[size_t(r)], out + r * rows.inner, rows.inner, rows.scalarB);
}

}  // namespace

void broadcastBinary(BinaryOp op, const BroadcastRows& rows, const float* a, const float* b, float* out) {
    switch (op) {
        case BinaryOp::Add: return allRows<BinaryOp::Add>(rows, a, b, out);
        case BinaryOp::Sub: return allRows<BinaryOp::Sub>(rows, a, b, out);
        case BinaryOp::Mul: return allRows<BinaryOp::Mul>(rows, a, b, out);
        case BinaryOp::Div: return allRows<BinaryOp::Div>(rows, a, b, out);
        case BinaryOp::Max: return allRows<BinaryOp::Max>(rows, a, b, out);
        case BinaryOp::Min: return allRows<BinaryOp::Min>(rows, a, b, out);
    }
}

}  // namespace npuwb::onednn
