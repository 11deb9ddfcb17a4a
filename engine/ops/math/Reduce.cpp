// Reductions (ReduceSum ReduceMean ReduceMax ReduceMin ReduceProd ReduceL1 ReduceL2 ReduceLogSum
// ReduceLogSumExp ReduceSumSquare) and ArgMax/ArgMin. Axes come from the 'axes' attribute or, in newer opsets
// (ReduceSum 13, the others 18), from optional input 1. Empty axes reduce everything unless
// noop_with_empty_axes=1, which returns the input unchanged.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "ops/math/MathUtil.h"

namespace npuwb::math {
namespace {

enum class Reduce { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

struct ReducePlan {
    Shape keptShape;                 // input shape with reduced axes set to 1
    Shape outShape;                  // keptShape, or without the reduced axes when keepdims=0
    std::vector<int64_t> outIndex;   // output flat index of every input element
};

ReducePlan planReduction(const Shape& in, std::vector<bool> reduced, bool keepdims) {
    ReducePlan p;
    p.keptShape = in;
    for (size_t d = 0; d < in.size(); ++d) {
        if (reduced[d]) p.keptShape[d] = 1;
        if (!reduced[d] || keepdims) p.outShape.push_back(p.keptShape[d]);
    }
    p.outIndex = BroadcastIndex(in, p.keptShape).all();
    return p;
}

/// Which axes to reduce; empty optional = leave the input unchanged (noop_with_empty_axes).
std::optional<std::vector<bool>> reducedAxes(const KernelContext& ctx, const Tensor& x) {
    std::vector<int64_t> axes;
    if (ctx.hasInput(1)) axes = ctx.input(1).toInt64Vector();
    else axes = ctx.attrInts("axes");
    int64_t rank = static_cast<int64_t>(x.rank());
    std::vector<bool> reduced(x.rank(), axes.empty());
    if (axes.empty() && ctx.attrInt("noop_with_empty_axes", 0) != 0) return std::nullopt;
    for (int64_t a : axes) reduced[static_cast<size_t>(normalizeAxis(a, rank))] = true;
    return reduced;
}

/// Accumulation type: double for floats, and for integers the element type itself except where the result is
/// inherently fractional (L2, LogSum, LogSumExp).
template <Reduce R, class T>
using ReduceAcc = std::conditional_t<isFloatLike<T> || R == Reduce::L2 || R == Reduce::LogSum || R == Reduce::LogSumExp,
                                     double, T>;

template <Reduce R, class T> Tensor reduceTyped(const Tensor& x, const ReducePlan& plan) {
    using A = ReduceAcc<R, T>;
    int64_t outCount = shapeNumel(plan.outShape);
    A init = A(0);
    if constexpr (R == Reduce::Prod) init = A(1);
    if constexpr (R == Reduce::Max || R == Reduce::LogSumExp) {
        if constexpr (std::is_floating_point_v<A>) init = -std::numeric_limits<A>::infinity();
        else init = std::numeric_limits<A>::lowest();
    }
    if constexpr (R == Reduce::Min) {
        if constexpr (std::is_floating_point_v<A>) init = std::numeric_limits<A>::infinity();
        else init = std::numeric_limits<A>::max();
    }
    std::vector<A> acc(static_cast<size_t>(outCount), init);
    std::vector<int64_t> counts(static_cast<size_t>(outCount), 0);
    const T* in = x.data<T>();
    int64_t n = x.numel();

    // LogSumExp first finds each output's maximum so the exponentials cannot overflow.
    std::vector<double> maxima;
    if constexpr (R == Reduce::LogSumExp) {
        for (int64_t i = 0; i < n; ++i) {
            double& m = acc[static_cast<size_t>(plan.outIndex[static_cast<size_t>(i)])];
            m = std::max(m, static_cast<double>(in[i]));
        }
        maxima.assign(acc.begin(), acc.end());
        for (double& m : maxima)
            if (std::isinf(m)) m = 0.0;
        std::fill(acc.begin(), acc.end(), 0.0);
    }

    for (int64_t i = 0; i < n; ++i) {
        size_t o = static_cast<size_t>(plan.outIndex[static_cast<size_t>(i)]);
        A v = static_cast<A>(in[i]);
        A& r = acc[o];
        ++counts[o];
        if constexpr (R == Reduce::Max) {
            if constexpr (isFloatLike<T>) r = (std::isnan(v) || v > r) ? v : r;
            else r = v > r ? v : r;
        } else if constexpr (R == Reduce::Min) {
            if constexpr (isFloatLike<T>) r = (std::isnan(v) || v < r) ? v : r;
            else r = v < r ? v : r;
        } else if constexpr (R == Reduce::LogSumExp) {
            r += std::exp(v - maxima[o]);
        } else if constexpr (std::is_floating_point_v<A>) {
            if constexpr (R == Reduce::Prod) r *= v;
            else if constexpr (R == Reduce::L1) r += std::fabs(v);
            else if constexpr (R == Reduce::L2 || R == Reduce::SumSquare) r += v * v;
            else r += v;  // Sum, Mean, LogSum
        } else {
            // Integer accumulation wraps like numpy's fixed-width arithmetic.
            if constexpr (R == Reduce::Prod) r = wrapMul(r, v);
            else if constexpr (R == Reduce::L1 && std::is_signed_v<A>) r = wrapAdd(r, v < A(0) ? wrapSub(A(0), v) : v);
            else if constexpr (R == Reduce::SumSquare) r = wrapAdd(r, wrapMul(v, v));
            else r = wrapAdd(r, v);  // Sum, Mean
        }
    }

    Tensor out(dtypeOf<T>, plan.outShape);
    T* o = out.data<T>();
    for (size_t i = 0; i < acc.size(); ++i) {
        A r = acc[i];
        if constexpr (R == Reduce::Mean) {
            if constexpr (std::is_floating_point_v<A>) r = r / static_cast<A>(counts[i]);
            else r = counts[i] ? static_cast<A>(r / static_cast<A>(counts[i])) : A(0);
        } else if constexpr (R == Reduce::L2) {
            r = std::sqrt(r);
        } else if constexpr (R == Reduce::LogSum) {
            r = std::log(r);
        } else if constexpr (R == Reduce::LogSumExp) {
            r = std::log(r) + maxima[i];
        }
        if constexpr (std::is_floating_point_v<A> && !isFloatLike<T>) o[i] = static_cast<T>(std::trunc(r));
        else o[i] = static_cast<T>(r);
    }
    return out;
}

template <Reduce R> void reduce(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    std::optional<std::vector<bool>> reduced = reducedAxes(ctx, x);
    if (!reduced) {
        ctx.setOutput(0, x);
        return;
    }
    ReducePlan plan = planReduction(x.shape(), *reduced, ctx.attrInt("keepdims", 1) != 0);
    visitNumeric(x.dtype(), [&]<typename T>() { ctx.setOutput(0, reduceTyped<R, T>(x, plan)); }, ctx.node().opType);
}

/// ArgMax/ArgMin along one axis; ties pick the first index unless select_last_index=1.
template <bool IsMax> void argExtreme(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    int64_t rank = static_cast<int64_t>(x.rank());
    int64_t axis = normalizeAxis(ctx.attrInt("axis", 0), rank);
    bool keepdims = ctx.attrInt("keepdims", 1) != 0;
    bool last = ctx.attrInt("select_last_index", 0) != 0;
    int64_t outer = 1, len = x.shape()[static_cast<size_t>(axis)], inner = 1;
    Shape outShape;
    for (int64_t d = 0; d < rank; ++d) {
        int64_t dim = x.shape()[static_cast<size_t>(d)];
        if (d < axis) outer *= dim;
        if (d > axis) inner *= dim;
        if (d != axis) outShape.push_back(dim);
        else if (keepdims) outShape.push_back(1);
    }
    if (len == 0) ctx.fail("cannot take the arg-extreme of an empty axis");
    Tensor out(DType::I64, outShape);
    int64_t* o = out.data<int64_t>();
    visitNumeric(x.dtype(), [&]<typename T>() {
        const T* in = x.data<T>();
        for (int64_t a = 0; a < outer; ++a) {
            for (int64_t b = 0; b < inner; ++b) {
                const T* line = in + a * len * inner + b;
                int64_t best = 0;
                Acc<T> bestValue = widen(line[0]);
                for (int64_t k = 1; k < len; ++k) {
                    Acc<T> v = widen(line[k * inner]);
                    bool better = IsMax ? (v > bestValue || (last && v == bestValue))
                                        : (v < bestValue || (last && v == bestValue));
                    if (better) { best = k; bestValue = v; }
                }
                o[a * inner + b] = best;
            }
        }
    }, ctx.node().opType);
    ctx.setOutput(0, std::move(out));
}

}  // namespace

NPUWB_KERNEL("ReduceSum", reduce<Reduce::Sum>);
NPUWB_KERNEL("ReduceMean", reduce<Reduce::Mean>);
NPUWB_KERNEL("ReduceMax", reduce<Reduce::Max>);
NPUWB_KERNEL("ReduceMin", reduce<Reduce::Min>);
NPUWB_KERNEL("ReduceProd", reduce<Reduce::Prod>);
NPUWB_KERNEL("ReduceL1", reduce<Reduce::L1>);
NPUWB_KERNEL("ReduceL2", reduce<Reduce::L2>);
NPUWB_KERNEL("ReduceLogSum", reduce<Reduce::LogSum>);
NPUWB_KERNEL("ReduceLogSumExp", reduce<Reduce::LogSumExp>);
NPUWB_KERNEL("ReduceSumSquare", reduce<Reduce::SumSquare>);
NPUWB_KERNEL("ArgMax", argExtreme<true>);
NPUWB_KERNEL("ArgMin", argExtreme<false>);

}  // namespace npuwb::math
