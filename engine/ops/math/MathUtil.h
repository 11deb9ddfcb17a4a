#pragma once
// Helpers shared by the math-family reference kernels: the accumulation type of each element type, elementwise
// maps over one tensor and over the numpy broadcast of two, and the opset < 7 "broadcast/axis" attribute rules.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "ops/Kernel.h"
#include "ops/KernelUtil.h"
#include "ops/Parallel.h"

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

/// Float maps are pure functions of their elements: they may run on kernelThreads() threads. Others stay serial
/// (integer ops may fail on an element, string maps allocate).
template <class In, class Out>
inline constexpr bool parallelMap = std::is_floating_point_v<In> && !std::is_same_v<Out, std::string>;

/// y[i] = f(x[i]) with y of element type Out.
template <class In, class Out, class F> Tensor mapUnary(const Tensor& x, F&& f) {
    Tensor y = Tensor::uninitialized(dtypeOf<Out>, x.shape());
    const In* in = x.data<In>();
    Out* out = y.data<Out>();
    auto range = [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) out[i] = f(in[i]);
    };
    if constexpr (parallelMap<In, Out>) parallelFor(x.numel(), 1, range);
    else range(0, x.numel());
    return y;
}

/// The numpy broadcast of a and b to `shape` as rows of the innermost (merged) axis: for row r, a's and b's
/// offsets, and their strides along the row (0 where broadcast, else 1 after merging).
struct BroadcastRows {
    int64_t rows = 1, length = 1, strideA = 1, strideB = 1;
    std::vector<int64_t> sizes, stepA, stepB;  // outer axes (merged), row-major
    BroadcastRows(const Shape& shape, const Shape& a, const Shape& b) {
        auto aligned = [&](const Shape& s) {  // right-aligned strides, 0 on broadcast axes
            std::vector<int64_t> st(shape.size(), 0);
            int64_t acc = 1;
            for (size_t i = 0; i < s.size(); ++i) {
                const size_t d = s.size() - 1 - i, o = shape.size() - 1 - i;
                st[o] = s[d] == 1 ? 0 : acc;
                acc *= s[d];
            }
            return st;
        };
        const std::vector<int64_t> sa = aligned(a), sb = aligned(b);
        std::vector<int64_t> size, ma, mb;
        for (size_t d = 0; d < shape.size(); ++d) {
            if (shape[d] == 1) continue;
            if (!size.empty() && ma.back() == sa[d] * shape[d] && mb.back() == sb[d] * shape[d]) {
                size.back() *= shape[d];
                ma.back() = sa[d];
                mb.back() = sb[d];
                continue;
            }
            size.push_back(shape[d]);
            ma.push_back(sa[d]);
            mb.push_back(sb[d]);
        }
        if (size.empty()) return;
        length = size.back();
        strideA = ma.back();
        strideB = mb.back();
        size.pop_back(), ma.pop_back(), mb.pop_back();
        sizes = std::move(size), stepA = std::move(ma), stepB = std::move(mb);
        for (int64_t s : sizes) rows *= s;
    }
    void offsets(int64_t row, int64_t& oa, int64_t& ob) const {
        oa = ob = 0;
        for (size_t i = sizes.size(); i-- > 0;) {
            const int64_t c = row % sizes[i];
            row /= sizes[i];
            oa += c * stepA[i];
            ob += c * stepB[i];
        }
    }
};

/// y = f(a, b) elementwise over the numpy broadcast of a and b.
template <class A, class B, class Out, class F> Tensor mapBinary(const Tensor& a, const Tensor& b, F&& f) {
    Shape shape = broadcastShapes({a.shape(), b.shape()});
    Tensor y = Tensor::uninitialized(dtypeOf<Out>, shape);
    const A* pa = a.data<A>();
    const B* pb = b.data<B>();
    Out* out = y.data<Out>();
    if (y.numel() == 0) return y;
    const BroadcastRows r(shape, a.shape(), b.shape());
    // Work units are blocks of rows of the innermost axis (a long row is cut in several); the common stride
    // pairs get loops of their own so the compiler vectorizes them.
    constexpr int64_t kBlock = 16384;
    const int64_t blocksPerRow = (r.length + kBlock - 1) / kBlock;
    auto unitsIn = [&](int64_t begin, int64_t end) {
        for (int64_t unit = begin; unit < end; ++unit) {
            const int64_t row = unit / blocksPerRow, from = unit % blocksPerRow * kBlock;
            const int64_t to = std::min(r.length, from + kBlock);
            int64_t oa, ob;
            r.offsets(row, oa, ob);
            const A* x = pa + oa;
            const B* z = pb + ob;
            Out* o = out + row * r.length;
            if (r.strideA == 1 && r.strideB == 1) {
                for (int64_t i = from; i < to; ++i) o[i] = f(x[i], z[i]);
            } else if (r.strideA == 1 && r.strideB == 0) {
                for (int64_t i = from; i < to; ++i) o[i] = f(x[i], z[0]);
            } else if (r.strideA == 0 && r.strideB == 1) {
                for (int64_t i = from; i < to; ++i) o[i] = f(x[0], z[i]);
            } else {
                for (int64_t i = from; i < to; ++i) o[i] = f(x[i * r.strideA], z[i * r.strideB]);
            }
        }
    };
    const int64_t units = r.rows * blocksPerRow;
    if constexpr (parallelMap<A, Out> && std::is_floating_point_v<B>) parallelFor(units, r.length / blocksPerRow, unitsIn);
    else unitsIn(0, units);
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
