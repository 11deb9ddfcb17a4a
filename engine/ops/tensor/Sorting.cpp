// Ops that order elements: TopK and Unique.
#include <algorithm>
#include <numeric>

#include "ops/KernelUtil.h"
#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb {
namespace {

using namespace tensorops;

void topK(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    int64_t axis = normalizeAxis(ctx.attrInt("axis", -1), rankOf(x));
    // TopK-1 had k as an attribute; TopK-10 onwards as a 1-element input.
    int64_t k = ctx.opset() >= 10 ? ctx.input(1).elementAsInt(0) : ctx.attrInt("k", 0);
    bool largest = ctx.attrInt("largest", 1) != 0;
    int64_t dim = x.shape()[uz(axis)];
    if (k < 0 || k > dim)
        ctx.fail("k = " + std::to_string(k) + " is out of range for an axis of size " + std::to_string(dim));
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[uz(d)];
    for (int64_t d = axis + 1; d < rankOf(x); ++d) inner *= x.shape()[uz(d)];
    Shape outShape = x.shape();
    outShape[uz(axis)] = k;
    Tensor values(x.dtype(), outShape);
    Tensor indices(DType::I64, outShape);
    int64_t* oi = indices.data<int64_t>();
    visitNumeric(x.dtype(), [&]<typename T>() {
        const T* in = x.data<T>();
        T* ov = values.data<T>();
        std::vector<int64_t> order(uz(dim));
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t j = 0; j < inner; ++j) {
                auto at = [&](int64_t i) { return in[(o * dim + i) * inner + j]; };
                std::iota(order.begin(), order.end(), 0);
                // Equal values keep the lower index first (the spec's tie rule), hence the stable sort.
                std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
                    return largest ? at(b) < at(a) : at(a) < at(b);
                });
                for (int64_t i = 0; i < k; ++i) {
                    ov[(o * k + i) * inner + j] = at(order[uz(i)]);
                    oi[(o * k + i) * inner + j] = order[uz(i)];
                }
            }
    }, "TopK");
    ctx.setOutput(0, std::move(values));
    ctx.setOutput(1, std::move(indices));
}

// Unique treats the input as a list of "slices" along `axis` (single elements when there is no axis) and
// compares them lexicographically, like numpy.unique.
void unique(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    bool hasAxis = ctx.hasAttr("axis");
    Tensor in = hasAxis ? x : x.reshaped({x.numel()});
    int64_t axis = hasAxis ? normalizeAxis(ctx.attrInt("axis", 0), rankOf(x)) : 0;
    bool sorted = ctx.attrInt("sorted", 1) != 0;
    int64_t dim = in.shape()[uz(axis)];
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= in.shape()[uz(d)];
    for (int64_t d = axis + 1; d < rankOf(in); ++d) inner *= in.shape()[uz(d)];

    // groups[g] = the original slice positions equal to unique slice g, in ascending order.
    std::vector<std::vector<int64_t>> groups;
    visitAny(in.dtype(), [&]<typename T>() {
        const T* p = in.data<T>();
        auto compare = [&](int64_t a, int64_t b) {  // -1, 0, 1
            for (int64_t o = 0; o < outer; ++o)
                for (int64_t j = 0; j < inner; ++j) {
                    const T& va = p[(o * dim + a) * inner + j];
                    const T& vb = p[(o * dim + b) * inner + j];
                    if (va < vb) return -1;
                    if (vb < va) return 1;
                }
            return 0;
        };
        std::vector<int64_t> order(uz(dim));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return compare(a, b) < 0; });
        for (size_t i = 0; i < order.size(); ++i) {
            if (i == 0 || compare(order[i - 1], order[i]) != 0) groups.emplace_back();
            groups.back().push_back(order[i]);
        }
    }, "Unique");
    if (!sorted)  // first-occurrence order instead of value order
        std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a[0] < b[0]; });

    int64_t n = static_cast<int64_t>(groups.size());
    std::vector<int64_t> first(uz(n)), inverse(uz(dim)), counts(uz(n));
    for (int64_t g = 0; g < n; ++g) {
        first[uz(g)] = groups[uz(g)][0];
        counts[uz(g)] = static_cast<int64_t>(groups[uz(g)].size());
        for (int64_t i : groups[uz(g)]) inverse[uz(i)] = g;
    }
    Shape outShape = in.shape();
    outShape[uz(axis)] = n;
    std::vector<int64_t> idx;
    idx.reserve(uz(outer * n * inner));
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t f : first)
            for (int64_t j = 0; j < inner; ++j) idx.push_back((o * dim + f) * inner + j);
    ctx.setOutput(0, gatherByIndex(in, outShape, idx));
    ctx.setOutput(1, Tensor::fromVector<int64_t>({n}, first));
    ctx.setOutput(2, Tensor::fromVector<int64_t>({dim}, inverse));
    ctx.setOutput(3, Tensor::fromVector<int64_t>({n}, counts));
}

}  // namespace

NPUWB_KERNEL("TopK", topK);
NPUWB_KERNEL("Unique", unique);

}  // namespace npuwb
