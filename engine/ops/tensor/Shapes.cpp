// Ops that only change or report a tensor's shape (the data buffer is shared, never copied):
// Reshape, Squeeze, Unsqueeze, Flatten, Shape, Size.
#include <algorithm>

#include "ops/KernelUtil.h"
#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb {
namespace {

using namespace tensorops;

void reshape(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    // Reshape-1 took the target shape as an attribute; Reshape-5 onwards as input 1.
    std::vector<int64_t> requested = ctx.opset() >= 5 ? ctx.input(1).toInt64Vector() : ctx.attrInts("shape");
    bool allowZero = ctx.attrInt("allowzero", 0) != 0;
    Shape shape(requested.size());
    int64_t inferAxis = -1;
    int64_t known = 1;
    for (size_t i = 0; i < requested.size(); ++i) {
        int64_t d = requested[i];
        if (d == 0 && !allowZero) {
            if (i >= x.rank()) ctx.fail("shape entry 0 at position " + std::to_string(i) + " has no input dim to copy");
            d = x.shape()[i];  // 0 means "keep the input's dimension"
        }
        if (d == -1) {
            if (inferAxis >= 0) ctx.fail("shape " + shapeToString(requested) + " has more than one -1");
            inferAxis = static_cast<int64_t>(i);
            continue;
        }
        if (d < 0) ctx.fail("shape " + shapeToString(requested) + " has an invalid negative dimension");
        shape[i] = d;
        known = mulDims(known, d, "Reshape target shape");
    }
    if (inferAxis >= 0) {
        if (known == 0 || x.numel() % known != 0)
            ctx.fail("cannot infer -1 in " + shapeToString(requested) + " for input " + shapeToString(x.shape()));
        shape[uz(inferAxis)] = x.numel() / known;
    }
    if (shapeNumel(shape) != x.numel())
        ctx.fail("cannot reshape " + shapeToString(x.shape()) + " to " + shapeToString(requested));
    ctx.setOutput(0, x.reshaped(shape));
}

void squeeze(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> axes = ctx.opset() >= 13 ? intsFromInputOrAttr(ctx, 1, "") : ctx.attrInts("axes");
    std::vector<bool> drop(x.rank(), false);
    if (axes.empty()) {
        for (size_t d = 0; d < x.rank(); ++d) drop[d] = x.shape()[d] == 1;
    } else {
        for (int64_t a : axes) {
            int64_t d = normalizeAxis(a, rankOf(x));
            if (x.shape()[uz(d)] != 1)
                ctx.fail("cannot squeeze axis " + std::to_string(a) + " of " + shapeToString(x.shape()));
            drop[uz(d)] = true;
        }
    }
    Shape shape;
    for (size_t d = 0; d < x.rank(); ++d)
        if (!drop[d]) shape.push_back(x.shape()[d]);
    ctx.setOutput(0, x.reshaped(shape));
}

void unsqueeze(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> axes = ctx.opset() >= 13 ? ctx.input(1).toInt64Vector() : ctx.attrInts("axes");
    int64_t outRank = rankOf(x) + static_cast<int64_t>(axes.size());
    std::vector<bool> inserted(uz(outRank), false);
    for (int64_t a : axes) {
        int64_t d = normalizeAxis(a, outRank);
        if (inserted[uz(d)]) ctx.fail("axis " + std::to_string(a) + " is repeated");
        inserted[uz(d)] = true;
    }
    Shape shape;
    size_t next = 0;
    for (int64_t d = 0; d < outRank; ++d) shape.push_back(inserted[uz(d)] ? 1 : x.shape()[next++]);
    ctx.setOutput(0, x.reshaped(shape));
}

void flatten(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    // axis is in [-rank, rank]; a negative axis counts from rank (not rank + 1 as for insert positions).
    int64_t axis = ctx.attrInt("axis", 1);
    if (axis < 0) axis += rankOf(x);
    if (axis < 0 || axis > rankOf(x)) ctx.fail("axis " + std::to_string(ctx.attrInt("axis", 1)) + " is out of range");
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[uz(d)];
    int64_t inner = 1;
    for (int64_t d = axis; d < rankOf(x); ++d) inner *= x.shape()[uz(d)];
    ctx.setOutput(0, x.reshaped({outer, inner}));
}

void shape(KernelContext& ctx) {
    const Value& v = ctx.inputValue(0);
    if (!v.isTensor()) ctx.fail("input must be a tensor");
    const Shape& s = v.tensor.shape();
    int64_t rank = static_cast<int64_t>(s.size());
    // Shape-15 start/end: python-style slice bounds, clamped rather than rejected.
    auto clampBound = [&](int64_t b) { return std::clamp(b < 0 ? b + rank : b, int64_t{0}, rank); };
    int64_t start = clampBound(ctx.attrInt("start", 0));
    int64_t end = ctx.hasAttr("end") ? clampBound(ctx.attrInt("end", rank)) : rank;
    std::vector<int64_t> dims;
    for (int64_t d = start; d < end; ++d) dims.push_back(s[uz(d)]);
    ctx.setOutput(0, Tensor::fromVector<int64_t>({static_cast<int64_t>(dims.size())}, dims));
}

void size(KernelContext& ctx) { ctx.setOutput(0, Tensor::scalar<int64_t>(ctx.input(0).numel())); }

}  // namespace

NPUWB_KERNEL("Reshape", reshape);
NPUWB_KERNEL("Squeeze", squeeze);
NPUWB_KERNEL("Unsqueeze", unsqueeze);
NPUWB_KERNEL("Flatten", flatten);
NPUWB_KERNEL("Shape", shape);
NPUWB_KERNEL("Size", size);

}  // namespace npuwb
