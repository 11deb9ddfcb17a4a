// Variadic elementwise ops over the numpy broadcast of all inputs (Max Min Sum Mean), and Where.
#include <cmath>

#include "ops/math/MathUtil.h"

namespace npuwb::math {
namespace {

enum class Fold { Max, Min, Sum, Mean };

template <Fold Op> void variadic(KernelContext& ctx) {
    std::vector<Tensor> inputs;
    std::vector<Shape> shapes;
    for (size_t i = 0; i < ctx.inputCount(); ++i) {
        if (!ctx.hasInput(i)) continue;
        inputs.push_back(ctx.input(i));
        shapes.push_back(inputs.back().shape());
    }
    if (inputs.empty()) ctx.fail("needs at least one input");
    // Opset < 8 did not broadcast: shapes must match, which numpy broadcasting accepts as well.
    DType dtype = inputs[0].dtype();
    for (const Tensor& t : inputs)
        if (t.dtype() != dtype) ctx.fail("all inputs must have the same element type");
    Shape shape = broadcastShapes(shapes);
    int64_t n = shapeNumel(shape);
    visitNumeric(dtype, [&]<typename T>() {
        using A = Acc<T>;
        std::vector<A> acc(static_cast<size_t>(n));
        for (size_t k = 0; k < inputs.size(); ++k) {
            const T* in = inputs[k].data<T>();
            std::vector<int64_t> idx = BroadcastIndex(shape, inputs[k].shape()).all();
            for (size_t i = 0; i < acc.size(); ++i) {
                A v = widen(in[idx[i]]);
                if (k == 0) { acc[i] = v; continue; }
                A& r = acc[i];
                if constexpr (Op == Fold::Sum || Op == Fold::Mean) {
                    if constexpr (isFloatLike<T>) r += v;
                    else r = wrapAdd(r, v);
                } else {
                    if constexpr (isFloatLike<T>)
                        if (std::isnan(r) || std::isnan(v)) { r = std::nan(""); continue; }  // numpy propagates NaN
                    if constexpr (Op == Fold::Max) r = v > r ? v : r;
                    else r = v < r ? v : r;
                }
            }
        }
        Tensor out(dtype, shape);
        T* o = out.data<T>();
        for (size_t i = 0; i < acc.size(); ++i) {
            if constexpr (Op == Fold::Mean) o[i] = static_cast<T>(acc[i] / static_cast<A>(inputs.size()));
            else o[i] = static_cast<T>(acc[i]);
        }
        ctx.setOutput(0, std::move(out));
    }, ctx.node().opType);
}

void where(KernelContext& ctx) {
    const Tensor& cond = ctx.input(0);
    const Tensor& x = ctx.input(1);
    const Tensor& y = ctx.input(2);
    if (cond.dtype() != DType::Bool) ctx.fail("condition must be a bool tensor");
    if (x.dtype() != y.dtype()) ctx.fail("X and Y must have the same element type");
    Shape shape = broadcastShapes({cond.shape(), x.shape(), y.shape()});
    // Fast path: every operand either has the output's shape or is one element (a mask against a fill value).
    auto step = [&](const Tensor& t) -> int64_t { return t.shape() == shape ? 1 : t.numel() == 1 ? 0 : -1; };
    const int64_t sc = step(cond), sx = step(x), sy = step(y);
    if (sc >= 0 && sx >= 0 && sy >= 0 && x.dtype() != DType::String) {
        visitAny(x.dtype(), [&]<typename T>() {
            Tensor out = Tensor::uninitialized(x.dtype(), shape);
            const bool* c = cond.data<bool>();
            const T* px = x.data<T>();
            const T* py = y.data<T>();
            T* o = out.data<T>();
            parallelFor(out.numel(), 1, [&](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) o[i] = c[i * sc] ? px[i * sx] : py[i * sy];
            });
            ctx.setOutput(0, std::move(out));
        }, "Where");
        return;
    }
    std::vector<int64_t> ic = BroadcastIndex(shape, cond.shape()).all();
    std::vector<int64_t> ix = BroadcastIndex(shape, x.shape()).all();
    std::vector<int64_t> iy = BroadcastIndex(shape, y.shape()).all();
    visitAny(x.dtype(), [&]<typename T>() {
        Tensor out(x.dtype(), shape);
        const bool* c = cond.data<bool>();
        const T* px = x.data<T>();
        const T* py = y.data<T>();
        T* o = out.data<T>();
        for (size_t i = 0; i < ic.size(); ++i) o[i] = c[ic[i]] ? px[ix[i]] : py[iy[i]];
        ctx.setOutput(0, std::move(out));
    }, "Where");
}

}  // namespace

NPUWB_KERNEL("Max", variadic<Fold::Max>);
NPUWB_KERNEL("Min", variadic<Fold::Min>);
NPUWB_KERNEL("Sum", variadic<Fold::Sum>);
NPUWB_KERNEL("Mean", variadic<Fold::Mean>);
NPUWB_KERNEL("Where", where);

}  // namespace npuwb::math
