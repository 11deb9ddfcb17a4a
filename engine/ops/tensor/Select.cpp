// Ops that keep, drop or reorder elements by a condition or position: Compress, NonZero, Trilu, ReverseSequence.
#include "ops/KernelUtil.h"
#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb {
namespace {

using namespace tensorops;

bool isNonZero(const Tensor& t, int64_t i) {
    if (t.dtype() == DType::String) return !t.data<std::string>()[i].empty();
    return t.elementAsDouble(i) != 0.0;
}

void compress(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& condition = ctx.input(1);
    // Without an axis the input is flattened first.
    Tensor in = ctx.hasAttr("axis") ? x : x.reshaped({x.numel()});
    int64_t axis = ctx.hasAttr("axis") ? normalizeAxis(ctx.attrInt("axis", 0), rankOf(x)) : 0;
    int64_t dim = in.shape()[uz(axis)];
    if (condition.numel() > dim) ctx.fail("condition is longer than the compressed axis");
    std::vector<int64_t> kept;
    for (int64_t i = 0; i < condition.numel(); ++i)
        if (isNonZero(condition, i)) kept.push_back(i);
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= in.shape()[uz(d)];
    for (int64_t d = axis + 1; d < rankOf(in); ++d) inner *= in.shape()[uz(d)];
    Shape outShape = in.shape();
    outShape[uz(axis)] = static_cast<int64_t>(kept.size());
    std::vector<int64_t> idx;
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t k : kept)
            for (int64_t j = 0; j < inner; ++j) idx.push_back((o * dim + k) * inner + j);
    ctx.setOutput(0, gatherByIndex(in, outShape, idx));
}

void nonZero(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    int64_t rank = rankOf(x);
    std::vector<std::vector<int64_t>> coords;
    int64_t flat = 0;
    forEachCoord(x.shape(), [&](const std::vector<int64_t>& c) {
        if (isNonZero(x, flat++)) coords.push_back(c);
    });
    int64_t n = static_cast<int64_t>(coords.size());
    // numpy treats a scalar as 1-D here: a non-zero scalar yields [[0]].
    int64_t rows = std::max<int64_t>(rank, x.rank() == 0 ? 1 : 0);
    Tensor out(DType::I64, {rows, n});
    int64_t* o = out.data<int64_t>();
    for (int64_t i = 0; i < n; ++i)
        for (int64_t d = 0; d < rank; ++d) o[d * n + i] = coords[uz(i)][uz(d)];
    ctx.setOutput(0, std::move(out));
}

void trilu(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) ctx.fail("input must have rank >= 2");
    bool upper = ctx.attrInt("upper", 1) != 0;
    int64_t k = ctx.hasInput(1) ? ctx.input(1).elementAsInt(0) : 0;
    int64_t rows = x.dim(-2), cols = x.dim(-1);
    Tensor out(x.dtype(), x.shape());
    visitAny(x.dtype(), [&]<typename T>() {
        const T* in = x.data<T>();
        T* o = out.data<T>();
        for (int64_t i = 0; i < x.numel(); ++i) {
            int64_t r = (i / cols) % rows, c = i % cols;
            bool keep = upper ? c - r >= k : c - r <= k;
            if (keep) o[i] = in[i];  // the rest stays zero-initialised
        }
    }, "Trilu");
    ctx.setOutput(0, std::move(out));
}

void reverseSequence(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    std::vector<int64_t> lens = ctx.input(1).toInt64Vector();
    int64_t batchAxis = normalizeAxis(ctx.attrInt("batch_axis", 1), rankOf(x));
    int64_t timeAxis = normalizeAxis(ctx.attrInt("time_axis", 0), rankOf(x));
    if (batchAxis == timeAxis) ctx.fail("batch_axis and time_axis must differ");
    if (static_cast<int64_t>(lens.size()) != x.shape()[uz(batchAxis)])
        ctx.fail("sequence_lens must have one entry per batch");
    int64_t maxTime = x.shape()[uz(timeAxis)];
    std::vector<int64_t> strides = stridesOf(x.shape());
    std::vector<int64_t> idx;
    idx.reserve(uz(x.numel()));
    int64_t flat = 0;
    forEachCoord(x.shape(), [&](const std::vector<int64_t>& c) {
        int64_t len = lens[uz(c[uz(batchAxis)])];
        if (len < 0 || len > maxTime) ctx.fail("sequence length " + std::to_string(len) + " is out of range");
        int64_t t = c[uz(timeAxis)];
        int64_t src = flat;
        if (t < len) src += (len - 1 - 2 * t) * strides[uz(timeAxis)];  // mirror t inside the first len steps
        idx.push_back(src);
        ++flat;
    });
    ctx.setOutput(0, gatherByIndex(x, x.shape(), idx));
}

}  // namespace

NPUWB_KERNEL("Compress", compress);
NPUWB_KERNEL("NonZero", nonZero);
NPUWB_KERNEL("Trilu", trilu);
NPUWB_KERNEL("ReverseSequence", reverseSequence);

}  // namespace npuwb
