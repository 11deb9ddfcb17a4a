// Indexed writes into a copy of `data`: Scatter (deprecated), ScatterElements and ScatterND, with the optional
// reduction ("none", "add", "mul", and "max"/"min" from opset 18). Updates are applied in index order, so
// duplicate indices behave like the ONNX reference (the last write wins for "none").
#include <algorithm>

#include "ops/KernelUtil.h"
#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb {
namespace {

using namespace tensorops;

/// Applies updates[i] at flat data offsets target[i] of out, combining according to `reduction`.
void applyUpdates(const KernelContext& ctx, Tensor& out, const Tensor& updates, const std::vector<int64_t>& target,
                  const std::string& reduction) {
    if (updates.dtype() != out.dtype()) ctx.fail("updates must have the same element type as data");
    if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min")
        ctx.fail("unknown reduction '" + reduction + "'");
    visitAny(out.dtype(), [&]<typename T>() {
        T* o = out.data<T>();
        const T* u = updates.data<T>();
        for (size_t i = 0; i < target.size(); ++i) {
            T& dst = o[target[i]];
            if (reduction == "none") {
                dst = u[i];
            } else if constexpr (std::is_same_v<T, std::string>) {
                ctx.failUnsupported("reduction '" + reduction + "' on strings");
            } else if constexpr (std::is_same_v<T, bool>) {
                if (reduction == "add" || reduction == "max") dst = dst || u[i];
                else dst = dst && u[i];
            } else {
                if (reduction == "add") dst = T(dst + u[i]);
                else if (reduction == "mul") dst = T(dst * u[i]);
                else if (reduction == "max") dst = std::max(dst, u[i], [](T a, T b) { return a < b; });
                else dst = std::min(dst, u[i], [](T a, T b) { return a < b; });
            }
        }
    }, "Scatter");
}

int64_t checkedIndex(const KernelContext& ctx, int64_t i, int64_t dim) {
    int64_t k = i < 0 ? i + dim : i;
    if (k < 0 || k >= dim)
        ctx.fail("index " + std::to_string(i) + " is out of range for an axis of size " + std::to_string(dim));
    return k;
}

void scatterElements(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    int64_t rank = rankOf(data);
    if (rankOf(indices) != rank || indices.shape() != updates.shape())
        ctx.fail("indices and updates must have the same shape and the rank of data");
    int64_t axis = normalizeAxis(ctx.attrInt("axis", 0), rank);
    std::vector<int64_t> ind = indices.toInt64Vector();
    std::vector<int64_t> strides = stridesOf(data.shape());
    std::vector<int64_t> target;
    target.reserve(ind.size());
    forEachCoord(indices.shape(), [&](const std::vector<int64_t>& c) {
        int64_t off = 0;
        for (int64_t d = 0; d < rank; ++d) {
            int64_t coord = d == axis ? checkedIndex(ctx, ind[target.size()], data.shape()[uz(d)]) : c[uz(d)];
            if (coord >= data.shape()[uz(d)]) ctx.fail("indices shape exceeds data shape");
            off += coord * strides[uz(d)];
        }
        target.push_back(off);
    });
    Tensor out = data.clone();
    applyUpdates(ctx, out, updates, target, ctx.attrString("reduction", "none"));
    ctx.setOutput(0, std::move(out));
}

void scatterND(KernelContext& ctx) {
    const Tensor& data = ctx.input(0);
    const Tensor& indices = ctx.input(1);
    const Tensor& updates = ctx.input(2);
    int64_t r = rankOf(data), q = rankOf(indices);
    if (q < 1) ctx.fail("indices must have rank >= 1");
    int64_t k = indices.shape()[uz(q - 1)];
    if (k > r) ctx.fail("indices' last dimension exceeds the data rank");
    Shape expected(indices.shape().begin(), indices.shape().end() - 1);
    expected.insert(expected.end(), data.shape().begin() + k, data.shape().end());
    if (updates.shape() != expected) ctx.fail("updates must have shape " + shapeToString(expected));
    int64_t slice = 1;
    for (int64_t d = k; d < r; ++d) slice *= data.shape()[uz(d)];
    std::vector<int64_t> strides = stridesOf(data.shape());
    std::vector<int64_t> ind = indices.toInt64Vector();
    int64_t tuples = shapeNumel(Shape(indices.shape().begin(), indices.shape().end() - 1));
    std::vector<int64_t> target;
    target.reserve(uz(tuples * slice));
    for (int64_t t = 0; t < tuples; ++t) {
        int64_t off = 0;
        for (int64_t j = 0; j < k; ++j)
            off += checkedIndex(ctx, ind[uz(t * k + j)], data.shape()[uz(j)]) * strides[uz(j)];
        for (int64_t j = 0; j < slice; ++j) target.push_back(off + j);
    }
    Tensor out = data.clone();
    applyUpdates(ctx, out, updates, target, ctx.attrString("reduction", "none"));
    ctx.setOutput(0, std::move(out));
}

}  // namespace

NPUWB_KERNEL("Scatter", scatterElements);  // Scatter-9/10 is ScatterElements without reduction
NPUWB_KERNEL("ScatterElements", scatterElements);
NPUWB_KERNEL("ScatterND", scatterND);

}  // namespace npuwb
