// Det: determinant of each [M, M] matrix in the trailing two dimensions, by Gaussian elimination with partial
// pivoting in double precision.
#include <cmath>
#include <utility>

#include "ops/math/MathUtil.h"

namespace npuwb::math {
namespace {

double determinant(std::vector<double>& m, int64_t n) {
    double det = 1.0;
    auto at = [&](int64_t r, int64_t c) -> double& { return m[static_cast<size_t>(r * n + c)]; };
    for (int64_t col = 0; col < n; ++col) {
        int64_t pivot = col;
        for (int64_t r = col + 1; r < n; ++r)
            if (std::fabs(at(r, col)) > std::fabs(at(pivot, col))) pivot = r;
        if (at(pivot, col) == 0.0) return 0.0;
        if (pivot != col) {
            for (int64_t c = 0; c < n; ++c) std::swap(at(pivot, c), at(col, c));
            det = -det;
        }
        det *= at(col, col);
        for (int64_t r = col + 1; r < n; ++r) {
            double f = at(r, col) / at(col, col);
            for (int64_t c = col; c < n; ++c) at(r, c) -= f * at(col, c);
        }
    }
    return det;
}

void det(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) ctx.fail("input must have rank >= 2");
    int64_t n = x.dim(-1);
    if (x.dim(-2) != n) ctx.fail("the last two dimensions must be equal, got " + shapeToString(x.shape()));
    Shape batchShape(x.shape().begin(), x.shape().end() - 2);
    int64_t batches = shapeNumel(batchShape);
    visitFloat(x.dtype(), [&]<typename T>() {
        Tensor y(x.dtype(), batchShape);
        const T* in = x.data<T>();
        std::vector<double> m(static_cast<size_t>(n * n));
        for (int64_t b = 0; b < batches; ++b) {
            for (int64_t i = 0; i < n * n; ++i) m[static_cast<size_t>(i)] = static_cast<double>(in[b * n * n + i]);
            y.data<T>()[b] = static_cast<T>(determinant(m, n));
        }
        ctx.setOutput(0, std::move(y));
    }, "Det");
}

}  // namespace

NPUWB_KERNEL("Det", det);

}  // namespace npuwb::math
