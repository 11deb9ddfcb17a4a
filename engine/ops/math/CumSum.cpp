// CumSum: running sum along one axis (axis is a scalar input), optionally exclusive and/or reversed.
#include "ops/math/MathUtil.h"

namespace npuwb::math {
namespace {

void cumSum(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& axisTensor = ctx.input(1);
    if (axisTensor.numel() != 1) ctx.fail("axis must be a scalar");
    int64_t rank = static_cast<int64_t>(x.rank());
    if (rank == 0) ctx.fail("input must have rank >= 1");
    int64_t axis = normalizeAxis(axisTensor.elementAsInt(0), rank);
    bool exclusive = ctx.attrInt("exclusive", 0) != 0;
    bool reverse = ctx.attrInt("reverse", 0) != 0;
    int64_t outer = 1, len = x.shape()[static_cast<size_t>(axis)], inner = 1;
    for (int64_t d = 0; d < rank; ++d) {
        if (d < axis) outer *= x.shape()[static_cast<size_t>(d)];
        if (d > axis) inner *= x.shape()[static_cast<size_t>(d)];
    }
    visitNumeric(x.dtype(), [&]<typename T>() {
        Tensor y(x.dtype(), x.shape());
        const T* in = x.data<T>();
        T* out = y.data<T>();
        for (int64_t a = 0; a < outer; ++a) {
            for (int64_t b = 0; b < inner; ++b) {
                Acc<T> sum = Acc<T>(0);
                for (int64_t step = 0; step < len; ++step) {
                    int64_t k = reverse ? len - 1 - step : step;
                    int64_t at = (a * len + k) * inner + b;
                    Acc<T> v = widen(in[at]);
                    if (!exclusive) sum = accumulate(sum, v);
                    out[at] = static_cast<T>(sum);
                    if (exclusive) sum = accumulate(sum, v);
                }
            }
        }
        ctx.setOutput(0, std::move(y));
    }, "CumSum");
}

}  // namespace

NPUWB_KERNEL("CumSum", cumSum);

}  // namespace npuwb::math
