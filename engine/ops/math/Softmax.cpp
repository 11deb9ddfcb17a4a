// Softmax, LogSoftmax and Hardmax. Before opset 13 the input is coerced to 2-D at `axis` (default 1) and the
// op works on each row of [prod(dims < axis), prod(dims >= axis)]; from opset 13 it works along the single
// axis `axis` (default -1).
#include <cmath>
#include <limits>

#include "ops/math/MathUtil.h"

namespace npuwb::math {
namespace {

enum class Kind { Softmax, LogSoftmax, Hardmax };

/// The input seen as [outer, axisLen, inner] lines that the op normalises along the middle dimension.
struct Lines {
    int64_t outer = 1, axisLen = 1, inner = 1;
};

Lines linesOf(const KernelContext& ctx, const Tensor& x) {
    int64_t rank = static_cast<int64_t>(x.rank());
    Lines l;
    if (ctx.opset() < 13) {
        // Negative axes count from rank (not rank + 1) although axis == rank is allowed.
        int64_t axis = ctx.attrInt("axis", 1);
        axis = axis < 0 ? normalizeAxis(axis, rank) : normalizeAxis(axis, rank, /*allowEnd=*/true);
        for (int64_t d = 0; d < rank; ++d) (d < axis ? l.outer : l.axisLen) *= x.shape()[static_cast<size_t>(d)];
    } else {
        if (rank == 0) ctx.fail("input must have rank >= 1");
        int64_t axis = normalizeAxis(ctx.attrInt("axis", -1), rank);
        for (int64_t d = 0; d < rank; ++d) {
            int64_t dim = x.shape()[static_cast<size_t>(d)];
            if (d < axis) l.outer *= dim;
            else if (d == axis) l.axisLen = dim;
            else l.inner *= dim;
        }
    }
    return l;
}

template <Kind K> void softmaxFamily(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    Lines l = linesOf(ctx, x);
    if (ctx.shapesOnly()) return ctx.setOutputShape(0, x.dtype(), x.shape());
    visitFloat(x.dtype(), [&]<typename T>() {
        Tensor y(x.dtype(), x.shape());
        const T* in = x.data<T>();
        T* out = y.data<T>();
        std::vector<double> line(static_cast<size_t>(l.axisLen));
        for (int64_t o = 0; o < l.outer; ++o) {
            for (int64_t i = 0; i < l.inner; ++i) {
                int64_t base = o * l.axisLen * l.inner + i;
                double maxValue = -std::numeric_limits<double>::infinity();
                int64_t argMax = 0;
                for (int64_t k = 0; k < l.axisLen; ++k) {
                    double v = static_cast<double>(in[base + k * l.inner]);
                    line[static_cast<size_t>(k)] = v;
                    if (v > maxValue) { maxValue = v; argMax = k; }  // first maximum wins, as in numpy.argmax
                }
                if constexpr (K == Kind::Hardmax) {
                    for (int64_t k = 0; k < l.axisLen; ++k) out[base + k * l.inner] = static_cast<T>(k == argMax ? 1.0 : 0.0);
                } else {
                    double sum = 0.0;
                    for (double v : line) sum += std::exp(v - maxValue);  // shifted by the max: no overflow
                    double logSum = std::log(sum);
                    for (int64_t k = 0; k < l.axisLen; ++k) {
                        double shifted = line[static_cast<size_t>(k)] - maxValue;
                        double r = K == Kind::Softmax ? std::exp(shifted) / sum : shifted - logSum;
                        out[base + k * l.inner] = static_cast<T>(r);
                    }
                }
            }
        }
        ctx.setOutput(0, std::move(y));
    }, ctx.node().opType);
}

}  // namespace

NPUWB_KERNEL_SHAPES("Softmax", softmaxFamily<Kind::Softmax>);
NPUWB_KERNEL("LogSoftmax", softmaxFamily<Kind::LogSoftmax>);
NPUWB_KERNEL("Hardmax", softmaxFamily<Kind::Hardmax>);

}  // namespace npuwb::math
