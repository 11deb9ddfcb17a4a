#pragma once
// Helpers shared by the math-family reference kernels: the accumulation type of each element type, elementwise
// maps over one tensor and over the numpy broadcast of two, and the opset < 7 "broadcast/axis" attribute rules.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ops/Kernel.h"
#include "ops/KernelUtil.h"

namespace npuwb::math {

template <class T>
inline constexpr bool isFloatLike =
    std::is_floating_point_v<T> || std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

/// Type a kernel computes in for element type T: double for every float type (so float16/bfloat16 round only
/// once, when stored), T itself for integers and bool.
template <class T> using Acc = std::conditional_t<isFloatLike<T>, double, T>;

template <class T> inline Acc<T> widen(T v) { return static_cast<Acc<T>>(v); }

/// Integer +,-,* with two's-complement wrap-around (what numpy does) instead of signed-overflow UB.
template <class T> inline T wrapAdd(T a, T b) { return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
template <class T> inline T wrapSub(T a, T b) { return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
template <class T> inline T wrapMul(T a, T b) { return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }

/// a + b in an accumulation type: plain for floats, wrapping for integers.
template <class A> inline A accumulate(A a, A b) {
    if constexpr (std::is_floating_point_v<A>) return a + b;
    else return wrapAdd(a, b);
}

/// y[i] = f(x[i]) with y of element type Out.
template <class In, class Out, class F> Tensor mapUnary(const Tensor& x, F&& f) {
    Tensor y(dtypeOf<Out>, x.shape());
    const In* in = x.data<In>();
    Out* out = y.data<Out>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i) out[i] = f(in[i]);
    return y;
}

/// y = f(a, b) elementwise over the numpy broadcast of a and b.
template <class A, class B, class Out, class F> Tensor mapBinary(const Tensor& a, const Tensor& b, F&& f) {
    Shape shape = broadcastShapes({a.shape(), b.shape()});
    Tensor y(dtypeOf<Out>, shape);
    const A* pa = a.data<A>();
    const B* pb = b.data<B>();
    Out* out = y.data<Out>();
    int64_t n = y.numel();
    if (a.shape() == shape && b.shape() == shape) {
        for (int64_t i = 0; i < n; ++i) out[i] = f(pa[i], pb[i]);
    } else if (a.shape() == shape && b.numel() == 1) {
        for (int64_t i = 0; i < n; ++i) out[i] = f(pa[i], pb[0]);
    } else {
        std::vector<int64_t> ia = BroadcastIndex(shape, a.shape()).all();
        std::vector<int64_t> ib = BroadcastIndex(shape, b.shape()).all();
        for (int64_t i = 0; i < n; ++i) {
            size_t k = static_cast<size_t>(i);
            out[i] = f(pa[ia[k]], pb[ib[k]]);
        }
    }
    return y;
}

/// Opset < 7 binary ops only broadcast when broadcast=1, and then align B with A starting at `axis`
/// (default: trailing alignment). Returns B reshaped so that numpy broadcasting gives the old result.
inline Tensor legacyBroadcastOperand(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
    if (ctx.opset() >= 7 || ctx.attrInt("broadcast", 0) == 0) {
        if (ctx.opset() < 7 && a.shape() != b.shape() && b.numel() != 1)
            ctx.fail("shapes " + shapeToString(a.shape()) + " and " + shapeToString(b.shape()) +
                     " differ and the node does not set broadcast=1");
        return b;
    }
    if (!ctx.hasAttr("axis")) return b;
    int64_t rankA = static_cast<int64_t>(a.rank());
    int64_t rankB = static_cast<int64_t>(b.rank());
    int64_t axis = ctx.attrInt("axis", 0);
    if (axis < 0) axis += rankA;
    if (axis < 0 || axis + rankB > rankA) ctx.fail("broadcast axis " + std::to_string(axis) + " is out of range");
    Shape shape(static_cast<size_t>(rankA - axis), 1);
    for (int64_t i = 0; i < rankB; ++i) shape[static_cast<size_t>(i)] = b.shape()[static_cast<size_t>(i)];
    return b.reshaped(shape);
}

}  // namespace npuwb::math
