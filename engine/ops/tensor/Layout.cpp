// Ops that rearrange or replicate elements without arithmetic: Transpose, DepthToSpace, SpaceToDepth,
// Expand, Tile.
#include "ops/KernelUtil.h"
#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb {
namespace {

using namespace tensorops;

/// View x as `viewShape`, permute its axes by `perm` and return the result (shape viewShape[perm[i]]).
Tensor permuted(const Tensor& x, const Shape& viewShape, const std::vector<int64_t>& perm) {
    std::vector<int64_t> inStrides = stridesOf(viewShape);
    Shape outShape(perm.size());
    std::vector<int64_t> strides(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) {
        outShape[i] = viewShape[uz(perm[i])];
        strides[i] = inStrides[uz(perm[i])];
    }
    std::vector<int64_t> idx = stridedIndex(outShape, strides);
    return gatherByIndex(x, outShape, idx);
}

void transpose(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    int64_t rank = rankOf(x);
    std::vector<int64_t> perm = ctx.attrInts("perm");
    if (perm.empty())
        for (int64_t d = rank - 1; d >= 0; --d) perm.push_back(d);  // default: reverse the axes
    if (static_cast<int64_t>(perm.size()) != rank) ctx.fail("perm length does not match the input rank");
    std::vector<bool> seen(uz(rank), false);
    for (int64_t& p : perm) {
        p = normalizeAxis(p, rank);
        if (seen[uz(p)]) ctx.fail("perm is not a permutation");
        seen[uz(p)] = true;
    }
    ctx.setOutput(0, permuted(x, x.shape(), perm));
}

void depthToSpace(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 4) ctx.fail("input must be 4-D (NCHW)");
    int64_t b = ctx.attrInt("blocksize", 0);
    int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
    if (b <= 0 || c % (b * b) != 0) ctx.fail("channels must be divisible by blocksize^2");
    int64_t oc = c / (b * b);
    std::string mode = ctx.attrString("mode", "DCR");
    Tensor t;
    if (mode == "DCR") t = permuted(x, {n, b, b, oc, h, w}, {0, 3, 4, 1, 5, 2});
    else if (mode == "CRD") t = permuted(x, {n, oc, b, b, h, w}, {0, 1, 4, 2, 5, 3});
    else ctx.fail("unknown mode '" + mode + "'");
    ctx.setOutput(0, t.reshaped({n, oc, h * b, w * b}));
}

void spaceToDepth(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() != 4) ctx.fail("input must be 4-D (NCHW)");
    int64_t b = ctx.attrInt("blocksize", 0);
    int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
    if (b <= 0 || h % b != 0 || w % b != 0) ctx.fail("height and width must be divisible by blocksize");
    Tensor t = permuted(x, {n, c, h / b, b, w / b, b}, {0, 3, 5, 1, 2, 4});
    ctx.setOutput(0, t.reshaped({n, c * b * b, h / b, w / b}));
}

void expand(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    Shape target = ctx.input(1).toInt64Vector();
    Shape outShape = broadcastShapes({x.shape(), target});
    ctx.setOutput(0, gatherByIndex(x, outShape, BroadcastIndex(outShape, x.shape()).all()));
}

void tile(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> repeats = ctx.input(1).toInt64Vector();
    if (repeats.size() != x.rank()) ctx.fail("repeats must have one entry per input axis");
    Shape outShape = x.shape();
    for (size_t d = 0; d < repeats.size(); ++d) {
        if (repeats[d] < 0) ctx.fail("repeats must not be negative");
        outShape[d] = mulDims(outShape[d], repeats[d], "repeats");
    }
    checkOutputBudget(x.dtype(), outShape, sizeof(int64_t));  // the output and its index table below
    std::vector<int64_t> inStrides = stridesOf(x.shape());
    std::vector<int64_t> idx;
    idx.reserve(uz(shapeNumel(outShape)));
    forEachCoord(outShape, [&](const std::vector<int64_t>& c) {
        int64_t off = 0;
        for (size_t d = 0; d < c.size(); ++d) off += (c[d] % x.shape()[d]) * inStrides[d];
        idx.push_back(off);
    });
    ctx.setOutput(0, gatherByIndex(x, outShape, idx));
}

}  // namespace

NPUWB_KERNEL("Transpose", transpose);
NPUWB_KERNEL("DepthToSpace", depthToSpace);
NPUWB_KERNEL("SpaceToDepth", spaceToDepth);
NPUWB_KERNEL("Expand", expand);
NPUWB_KERNEL("Tile", tile);

}  // namespace npuwb
