// Ops that join or cut tensors along axes: Concat, Split, Slice.
#include <algorithm>
#include <cstring>

#include "ops/KernelUtil.h"
#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb {
namespace {

using namespace tensorops;

/// Copies `count` consecutive elements from src[srcOffset] to dst[dstOffset] (any element type).
void copyRun(const Tensor& src, int64_t srcOffset, Tensor& dst, int64_t dstOffset, int64_t count) {
    visitAny(src.dtype(), [&]<typename T>() {
        std::copy_n(src.data<T>() + srcOffset, count, dst.data<T>() + dstOffset);
    }, "copy");
}

void concat(KernelContext& ctx) {
    if (ctx.inputCount() == 0) ctx.fail("needs at least one input");
    const Tensor& first = ctx.input(0);
    int64_t rank = rankOf(first);
    int64_t axis = normalizeAxis(ctx.attrInt("axis", 1), rank);  // Concat-1 defaulted to 1
    Shape outShape = first.shape();
    outShape[uz(axis)] = 0;
    for (size_t i = 0; i < ctx.inputCount(); ++i) {
        const Tensor& t = ctx.input(i);
        if (t.dtype() != first.dtype()) ctx.fail("inputs have different element types");
        bool same = t.rank() == first.rank();
        for (int64_t d = 0; same && d < rank; ++d) same = d == axis || t.shape()[uz(d)] == first.shape()[uz(d)];
        if (!same) ctx.fail("input shapes " + shapeToString(first.shape()) + " and " + shapeToString(t.shape()) +
                            " differ outside axis " + std::to_string(axis));
        outShape[uz(axis)] = addDims(outShape[uz(axis)], t.shape()[uz(axis)], "concatenated axis");
    }
    if (ctx.shapesOnly()) return ctx.setOutputShape(0, first.dtype(), outShape);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= outShape[uz(d)];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= outShape[uz(d)];
    Tensor out(first.dtype(), outShape);
    int64_t outRow = outShape[uz(axis)] * inner;
    int64_t column = 0;
    for (size_t i = 0; i < ctx.inputCount(); ++i) {
        const Tensor& t = ctx.input(i);
        int64_t run = t.shape()[uz(axis)] * inner;
        for (int64_t o = 0; o < outer; ++o) copyRun(t, o * run, out, o * outRow + column, run);
        column += run;
    }
    ctx.setOutput(0, std::move(out));
}

void split(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    int64_t axis = normalizeAxis(ctx.attrInt("axis", 0), rankOf(x));
    int64_t dim = x.shape()[uz(axis)];
    // 'split' is an input in Split-1 (optionally) and from Split-13 on, an attribute in between.
    std::vector<int64_t> parts = (ctx.opset() >= 13 || ctx.opset() < 2) ? intsFromInputOrAttr(ctx, 1, "split")
                                                                         : ctx.attrInts("split");
    int64_t outputs = static_cast<int64_t>(ctx.outputCount());
    if (parts.empty()) {
        int64_t n = ctx.attrInt("num_outputs", outputs);
        if (n <= 0) ctx.fail("needs at least one output");
        int64_t chunk = (dim + n - 1) / n;  // Split-18: the last chunk may be smaller
        for (int64_t i = 0, left = dim; i < n; ++i, left -= chunk) parts.push_back(std::clamp(left, int64_t{0}, chunk));
    }
    int64_t total = 0;
    for (int64_t p : parts) {
        if (p < 0) ctx.fail("split sizes must not be negative");
        total += p;
    }
    if (total != dim) ctx.fail("split sizes add up to " + std::to_string(total) + ", axis has " + std::to_string(dim));
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[uz(d)];
    for (int64_t d = axis + 1; d < rankOf(x); ++d) inner *= x.shape()[uz(d)];
    int64_t start = 0;
    for (size_t i = 0; i < parts.size(); ++i) {
        Shape shape = x.shape();
        shape[uz(axis)] = parts[i];
        Tensor out(x.dtype(), shape);
        int64_t run = parts[i] * inner;
        for (int64_t o = 0; o < outer; ++o) copyRun(x, o * dim * inner + start * inner, out, o * run, run);
        start += parts[i];
        ctx.setOutput(i, std::move(out));
    }
}

void slice(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    int64_t rank = rankOf(x);
    std::vector<int64_t> starts, ends, axes, steps;
    if (ctx.opset() < 10) {  // Slice-1: attributes, no steps
        starts = ctx.attrInts("starts");
        ends = ctx.attrInts("ends");
        axes = ctx.attrInts("axes");
    } else {
        starts = ctx.input(1).toInt64Vector();
        ends = ctx.input(2).toInt64Vector();
        if (ctx.hasInput(3)) axes = ctx.input(3).toInt64Vector();
        if (ctx.hasInput(4)) steps = ctx.input(4).toInt64Vector();
    }
    if (axes.empty())
        for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
        ctx.fail("starts, ends, axes and steps must have the same length");

    Shape outShape = x.shape();
    std::vector<int64_t> inStrides = stridesOf(x.shape());
    std::vector<int64_t> strides = inStrides;
    int64_t offset = 0;
    for (size_t i = 0; i < starts.size(); ++i) {
        int64_t a = normalizeAxis(axes[i], rank);
        int64_t dim = x.shape()[uz(a)];
        int64_t step = steps[i];
        if (step == 0) ctx.fail("steps must not be zero");
        int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
        int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
        // Out-of-range bounds clamp (numpy semantics); a negative step walks from start down to end + 1.
        if (step > 0) {
            start = std::clamp(start, int64_t{0}, dim);
            end = std::clamp(end, int64_t{0}, dim);
        } else {
            start = std::clamp(start, int64_t{0}, dim - 1);
            end = std::clamp(end, int64_t{-1}, dim - 1);
        }
        int64_t count = step > 0 ? (end - start + step - 1) / step : (start - end + (-step) - 1) / (-step);
        count = std::max<int64_t>(count, 0);
        outShape[uz(a)] = count;
        if (count > 0) offset += start * inStrides[uz(a)];
        strides[uz(a)] = inStrides[uz(a)] * step;
    }
    if (ctx.shapesOnly()) return ctx.setOutputShape(0, x.dtype(), outShape);
    ctx.setOutput(0, gatherByIndex(x, outShape, stridedIndex(outShape, strides, offset)));
}

}  // namespace

NPUWB_KERNEL_SHAPES("Concat", concat);
NPUWB_KERNEL("Split", split);
NPUWB_KERNEL_SHAPES("Slice", slice);

}  // namespace npuwb
