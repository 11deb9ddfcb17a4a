// Pad: constant / reflect / edge / wrap (opset 19) padding; negative pads crop. Pad-2..10 take pads and value as
// attributes, Pad-11 onwards as inputs, Pad-18 adds an optional axes input.
#include "ops/KernelUtil.h"
#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb {
namespace {

using namespace tensorops;

/// Maps an out-of-range coordinate into [0, n) for reflect mode (mirror without repeating the edge).
int64_t reflectCoord(int64_t c, int64_t n) {
    if (n == 1) return 0;
    int64_t period = 2 * (n - 1);
    c %= period;
    if (c < 0) c += period;
    return c < n ? c : period - c;
}

void pad(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    int64_t rank = rankOf(x);
    std::string mode = ctx.attrString("mode", "constant");
    std::vector<int64_t> pads;
    if (ctx.opset() >= 11) pads = ctx.input(1).toInt64Vector();
    else pads = ctx.hasAttr("pads") ? ctx.attrInts("pads") : ctx.attrInts("paddings");  // Pad-1 said "paddings"

    // Pad-18 axes: pads then lists begin/end values only for these axes.
    std::vector<int64_t> axes;
    if (ctx.opset() >= 18 && ctx.hasInput(3)) {
        for (int64_t a : ctx.input(3).toInt64Vector()) axes.push_back(normalizeAxis(a, rank));
    } else {
        for (int64_t d = 0; d < rank; ++d) axes.push_back(d);
    }
    if (pads.size() != 2 * axes.size()) ctx.fail("pads must have 2 entries per padded axis");
    std::vector<int64_t> begin(uz(rank), 0), end(uz(rank), 0);
    for (size_t i = 0; i < axes.size(); ++i) {
        begin[uz(axes[i])] = pads[i];
        end[uz(axes[i])] = pads[i + axes.size()];
    }
    Shape outShape(uz(rank));
    for (int64_t d = 0; d < rank; ++d) {
        outShape[uz(d)] = addDims(addDims(x.shape()[uz(d)], begin[uz(d)], "pads"), end[uz(d)], "pads");
        if (outShape[uz(d)] < 0) ctx.fail("pads crop more than axis " + std::to_string(d) + " holds");
        if (mode != "constant" && x.shape()[uz(d)] == 0 && outShape[uz(d)] > 0)
            ctx.fail("cannot " + mode + "-pad an empty axis");
    }
    if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap")
        ctx.failUnsupported("pad mode '" + mode + "'");

    checkOutputBudget(x.dtype(), outShape, sizeof(int64_t));  // the output and its offset table below
    // Source offset for every output element; -1 marks the constant fill.
    std::vector<int64_t> inStrides = stridesOf(x.shape());
    std::vector<int64_t> idx;
    idx.reserve(uz(shapeNumel(outShape)));
    forEachCoord(outShape, [&](const std::vector<int64_t>& c) {
        int64_t off = 0;
        for (size_t d = 0; d < c.size(); ++d) {
            int64_t n = x.shape()[d];
            int64_t ic = c[d] - begin[d];
            if (ic < 0 || ic >= n) {
                if (mode == "constant") { off = -1; break; }
                if (mode == "edge") ic = std::clamp(ic, int64_t{0}, n - 1);
                else if (mode == "wrap") ic = ((ic % n) + n) % n;
                else ic = reflectCoord(ic, n);
            }
            off += ic * inStrides[d];
        }
        idx.push_back(off);
    });

    Tensor out(x.dtype(), outShape);
    visitAny(x.dtype(), [&]<typename T>() {
        T fill{};
        if (ctx.opset() >= 11 && ctx.hasInput(2) && ctx.input(2).numel() > 0) {
            fill = ctx.input(2).data<T>()[0];
        } else if constexpr (!std::is_same_v<T, std::string>) {
            if constexpr (std::is_same_v<T, bool>) fill = ctx.attrFloat("value", 0.0f) != 0.0f;
            else if constexpr (std::is_integral_v<T>) fill = static_cast<T>(ctx.attrFloat("value", 0.0f));
            else fill = T(ctx.attrFloat("value", 0.0f));
        }
        const T* in = x.data<T>();
        T* o = out.data<T>();
        for (size_t i = 0; i < idx.size(); ++i) o[i] = idx[i] < 0 ? fill : in[idx[i]];
    }, "Pad");
    ctx.setOutput(0, std::move(out));
}

}  // namespace

NPUWB_KERNEL("Pad", pad);

}  // namespace npuwb
