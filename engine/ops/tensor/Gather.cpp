// Indexed reads: Gather, GatherElements, GatherND. Indices may be negative (counted from the end of the axis).
#include "ops/KernelUtil.h"
#include <cstring>

#include "ops/Parallel.h"
#include "ops/tensor/StridedCopy.h"
#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb {
namespace {

using namespace tensorops;

int64_t checkedIndex(const KernelContext& ctx, int64_t i, int64_t dim) {
    int64_t k = i < 0 ? i + dim : i;
    if (k < 0 || k >= dim)
        ctx.fail("index " + std::to_string(i) + " is out of range for an axis of size " + std::to_string(dim));
    return k;
}

void gather(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    int64_t axis = normalizeAxis(ctx.attrInt("axis", 0), rankOf(data));
    int64_t dim = data.shape()[uz(axis)];
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= data.shape()[uz(d)];
    for (int64_t d = axis + 1; d < rankOf(data); ++d) inner *= data.shape()[uz(d)];
    Shape outShape(data.shape().begin(), data.shape().begin() + axis);
    outShape.insert(outShape.end(), indices.shape().begin(), indices.shape().end());
    outShape.insert(outShape.end(), data.shape().begin() + axis + 1, data.shape().end());
    std::vector<int64_t> ind = indices.toInt64Vector();
    for (int64_t& i : ind) i = checkedIndex(ctx, i, dim);
    if (bytewiseCopyable(data.dtype())) {  // whole inner runs per (outer, index)
        Tensor out = Tensor::uninitialized(data.dtype(), outShape);
        const size_t bytes = dtypeSize(data.dtype()), run = uz(inner) * bytes;
        const auto* src = static_cast<const unsigned char*>(data.raw());
        auto* dst = static_cast<unsigned char*>(out.raw());
        const int64_t count = static_cast<int64_t>(ind.size());
        parallelFor(outer * count, inner, [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; ++r) {
                const int64_t o = r / count, k = ind[uz(r % count)];
                std::memcpy(dst + uz(r) * run, src + uz(o * dim + k) * run, run);
            }
        });
        return ctx.setOutput(0, std::move(out));
    }
    std::vector<int64_t> idx;
    idx.reserve(uz(outer) * ind.size() * uz(inner));
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t k : ind)
            for (int64_t j = 0; j < inner; ++j) idx.push_back((o * dim + k) * inner + j);
    ctx.setOutput(0, gatherByIndex(data, outShape, idx));
}

void gatherElements(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    int64_t rank = rankOf(data);
    if (rankOf(indices) != rank) ctx.fail("indices must have the same rank as data");
    int64_t axis = normalizeAxis(ctx.attrInt("axis", 0), rank);
    std::vector<int64_t> ind = indices.toInt64Vector();
    std::vector<int64_t> strides = stridesOf(data.shape());
    std::vector<int64_t> idx;
    idx.reserve(ind.size());
    size_t n = 0;
    forEachCoord(indices.shape(), [&](const std::vector<int64_t>& c) {
        int64_t off = 0;
        for (int64_t d = 0; d < rank; ++d) {
            int64_t coord = d == axis ? checkedIndex(ctx, ind[n], data.shape()[uz(d)]) : c[uz(d)];
            if (coord >= data.shape()[uz(d)]) ctx.fail("indices shape exceeds data shape");
            off += coord * strides[uz(d)];
        }
        idx.push_back(off);
        ++n;
    });
    ctx.setOutput(0, gatherByIndex(data, indices.shape(), idx));
}

void gatherND(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    int64_t r = rankOf(data), q = rankOf(indices);
    int64_t b = ctx.attrInt("batch_dims", 0);
    if (q < 1 || b < 0 || b >= std::min(r, q)) ctx.fail("batch_dims must be smaller than both ranks");
    int64_t m = indices.shape()[uz(q - 1)];
    if (m < 1 || b + m > r) ctx.fail("indices' last dimension is too large for data of rank " + std::to_string(r));
    for (int64_t d = 0; d < b; ++d)
        if (data.shape()[uz(d)] != indices.shape()[uz(d)]) ctx.fail("batch dimensions of data and indices differ");

    Shape outShape(indices.shape().begin(), indices.shape().end() - 1);
    outShape.insert(outShape.end(), data.shape().begin() + b + m, data.shape().end());
    int64_t batches = 1, slice = 1;
    for (int64_t d = 0; d < b; ++d) batches *= data.shape()[uz(d)];
    for (int64_t d = b + m; d < r; ++d) slice *= data.shape()[uz(d)];
    int64_t batchSize = shapeNumel(data.shape()) / std::max<int64_t>(batches, 1);
    int64_t tuples = indices.numel() / m;  // index tuples overall
    int64_t tuplesPerBatch = tuples / std::max<int64_t>(batches, 1);
    std::vector<int64_t> strides = stridesOf(data.shape());
    std::vector<int64_t> ind = indices.toInt64Vector();
    std::vector<int64_t> idx;
    idx.reserve(uz(tuples * slice));
    for (int64_t t = 0; t < tuples; ++t) {
        int64_t off = batchSize == 0 ? 0 : (t / std::max<int64_t>(tuplesPerBatch, 1)) * batchSize;
        for (int64_t k = 0; k < m; ++k)
            off += checkedIndex(ctx, ind[uz(t * m + k)], data.shape()[uz(b + k)]) * strides[uz(b + k)];
        for (int64_t j = 0; j < slice; ++j) idx.push_back(off + j);
    }
    ctx.setOutput(0, gatherByIndex(data, outShape, idx));
}

}  // namespace

NPUWB_KERNEL("Gather", gather);
NPUWB_KERNEL("GatherElements", gatherElements);
NPUWB_KERNEL("GatherND", gatherND);

}  // namespace npuwb
