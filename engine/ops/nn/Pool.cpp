// Windowed pools (MaxPool with optional Indices, AveragePool, LpPool) and their global variants.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ops/Kernel.h"
#include "ops/nn/NnUtil.h"
#include "ops/nn/WindowGeometry.h"

namespace npuwb::nn {
namespace {

enum class PoolKind { Max, Average, Lp };

WindowGeometry poolGeometry(const KernelContext& ctx, const Tensor& x) {
    std::vector<int64_t> kernel = ctx.attrInts("kernel_shape");
    if (kernel.empty()) ctx.fail("kernel_shape is required");
    WindowGeometry g = resolveWindow(ctx, x.shape(), kernel, ctx.attrInt("ceil_mode", 0) != 0);
    if (g.rank() > 3) ctx.failUnsupported("pools over more than 3 spatial axes are not supported");
    return g;
}

Shape pooledShape(const Tensor& x, const WindowGeometry& g) {
    Shape s{x.shape()[0], x.shape()[1]};
    s.insert(s.end(), g.output.begin(), g.output.end());
    return s;
}

/// Along one axis, the window of one output position: taps k in [kLo, kHi) read input start + k * dilation, and
/// `padded` window positions fall inside the padded input (AveragePool's count_include_pad divisor).
struct AxisWindow {
    int64_t start = 0, kLo = 0, kHi = 0, padded = 0;
};

std::vector<AxisWindow> axisWindows(const WindowGeometry& g, size_t axis) {
    std::vector<AxisWindow> windows(static_cast<size_t>(g.output[axis]));
    for (int64_t o = 0; o < g.output[axis]; ++o) {
        AxisWindow& w = windows[static_cast<size_t>(o)];
        w.start = o * g.strides[axis] - g.padBegin[axis];
        w.kLo = g.kernel[axis];
        for (int64_t k = 0; k < g.kernel[axis]; ++k) {
            const int64_t i = w.start + k * g.dilations[axis];
            if (i >= 0 && i < g.input[axis]) {
                w.kLo = std::min(w.kLo, k);
                w.kHi = k + 1;
            }
            w.padded += i >= -g.padBegin[axis] && i < g.input[axis] + g.padEnd[axis];
        }
        if (w.kHi == 0) w.kLo = 0;
    }
    return windows;
}

/// Calls visit(out, planeBase, taps, paddedCount) for every output position; `taps(f)` calls f(offset) for each
/// in-bounds input offset of the window (relative to planeBase), in row-major order.
template <class Visit> void forEachWindow(const WindowGeometry& geometry, int64_t planes, Visit&& visit) {
    const WindowGeometry g = geometry.as3d();
    const std::vector<AxisWindow> wd = axisWindows(g, 0), wh = axisWindows(g, 1), ww = axisWindows(g, 2);
    const int64_t inPlane = g.inputSize();
    int64_t out = 0;
    for (int64_t plane = 0; plane < planes; ++plane)
        for (const AxisWindow& d : wd)
            for (const AxisWindow& h : wh)
                for (const AxisWindow& w : ww) {
                    auto taps = [&](auto&& f) {
                        for (int64_t kd = d.kLo; kd < d.kHi; ++kd) {
                            const int64_t id = d.start + kd * g.dilations[0];
                            for (int64_t kh = h.kLo; kh < h.kHi; ++kh) {
                                const int64_t row = (id * g.input[1] + h.start + kh * g.dilations[1]) * g.input[2];
                                for (int64_t kw = w.kLo; kw < w.kHi; ++kw) f(row + w.start + kw * g.dilations[2]);
                            }
                        }
                    };
                    const bool empty = d.kHi == d.kLo || h.kHi == h.kLo || w.kHi == w.kLo;
                    visit(out++, plane * inPlane, taps, empty, d.padded * h.padded * w.padded);
                }
}

void maxPool(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const WindowGeometry g = poolGeometry(ctx, x);
    const Shape outShape = pooledShape(x, g);
    const bool columnMajor = ctx.attrInt("storage_order", 0) != 0;
    const WindowGeometry g3 = g.as3d();
    Tensor indices(DType::I64, outShape);
    int64_t* idx = indices.data<int64_t>();
    Tensor y(x.dtype(), outShape);
    visitNumeric(x.dtype(), [&]<typename T>() {
        const T* src = x.data<T>();
        T* dst = y.data<T>();
        forEachWindow(g, x.shape()[0] * x.shape()[1], [&](int64_t out, int64_t base, auto&& taps, bool empty, int64_t) {
            if (empty) ctx.fail("a pooling window lies entirely in the padding");
            int64_t best = -1;
            taps([&](int64_t t) {
                if (best < 0 || src[base + t] > src[base + best]) best = t;
            });
            dst[out] = src[base + best];
            if (columnMajor) {  // Indices in column-major order of the spatial axes
                const int64_t w = best % g3.input[2], h = (best / g3.input[2]) % g3.input[1];
                const int64_t d = best / (g3.input[2] * g3.input[1]);
                best = d + g3.input[0] * (h + g3.input[1] * w);
            }
            idx[out] = base + best;
        });
    }, "MaxPool");
    ctx.setOutput(0, std::move(y));
    if (ctx.wantsOutput(1)) ctx.setOutput(1, std::move(indices));
}

void averageOrLpPool(KernelContext& ctx, PoolKind kind) {
    const Tensor& x = ctx.input(0);
    const WindowGeometry g = poolGeometry(ctx, x);
    const bool includePad = ctx.attrInt("count_include_pad", 0) != 0;
    const double p = static_cast<double>(ctx.attrInt("p", 2));
    Tensor y(x.dtype(), pooledShape(x, g));
    visitFloat(x.dtype(), [&]<typename T>() {
        using Acc = FloatAcc<T>;
        const T* src = x.data<T>();
        T* dst = y.data<T>();
        forEachWindow(g, x.shape()[0] * x.shape()[1], [&](int64_t out, int64_t base, auto&& taps, bool,
                                                          int64_t padded) {
            Acc sum = 0;
            int64_t count = 0;
            if (kind == PoolKind::Average) {
                taps([&](int64_t t) {
                    sum += static_cast<Acc>(src[base + t]);
                    ++count;
                });
                if (includePad) count = padded;
                dst[out] = static_cast<T>(count > 0 ? sum / static_cast<Acc>(count) : Acc(0));
            } else {
                taps([&](int64_t t) { sum += static_cast<Acc>(std::pow(std::abs(static_cast<double>(src[base + t])), p)); });
                dst[out] = static_cast<T>(std::pow(static_cast<double>(sum), 1.0 / p));
            }
        });
    }, ctx.node().opType);
    ctx.setOutput(0, std::move(y));
}

void averagePool(KernelContext& ctx) { averageOrLpPool(ctx, PoolKind::Average); }
void lpPool(KernelContext& ctx) { averageOrLpPool(ctx, PoolKind::Lp); }

/// Global pools reduce every spatial axis to 1: [N, C, D...] -> [N, C, 1...].
void globalPool(KernelContext& ctx, PoolKind kind) {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) ctx.fail("input must have rank >= 2 ([N, C, spatial...])");
    Shape outShape(x.shape().begin(), x.shape().begin() + 2);
    outShape.resize(x.rank(), 1);
    const int64_t planes = x.shape()[0] * x.shape()[1];
    const int64_t plane = planes == 0 ? 0 : x.numel() / planes;
    const double p = static_cast<double>(ctx.attrInt("p", 2));
    Tensor y(x.dtype(), outShape);
    visitFloat(x.dtype(), [&]<typename T>() {
        using Acc = FloatAcc<T>;
        const T* src = x.data<T>();
        T* dst = y.data<T>();
        for (int64_t c = 0; c < planes; ++c) {
            const T* in = src + c * plane;
            Acc r = kind == PoolKind::Max ? -std::numeric_limits<Acc>::infinity() : Acc(0);
            for (int64_t i = 0; i < plane; ++i) {
                const Acc v = static_cast<Acc>(in[i]);
                if (kind == PoolKind::Max) r = v > r || std::isnan(v) ? v : r;
                else if (kind == PoolKind::Average) r += v;
                else r += static_cast<Acc>(std::pow(std::abs(static_cast<double>(v)), p));
            }
            if (kind == PoolKind::Average) r /= static_cast<Acc>(plane);
            if (kind == PoolKind::Lp) r = static_cast<Acc>(std::pow(static_cast<double>(r), 1.0 / p));
            dst[c] = static_cast<T>(r);
        }
    }, ctx.node().opType);
    ctx.setOutput(0, std::move(y));
}

void globalMaxPool(KernelContext& ctx) { globalPool(ctx, PoolKind::Max); }
void globalAveragePool(KernelContext& ctx) { globalPool(ctx, PoolKind::Average); }
void globalLpPool(KernelContext& ctx) { globalPool(ctx, PoolKind::Lp); }

}  // namespace

NPUWB_KERNEL("MaxPool", maxPool);
NPUWB_KERNEL("AveragePool", averagePool);
NPUWB_KERNEL("LpPool", lpPool);
NPUWB_KERNEL("GlobalMaxPool", globalMaxPool);
NPUWB_KERNEL("GlobalAveragePool", globalAveragePool);
NPUWB_KERNEL("GlobalLpPool", globalLpPool);

}  // namespace npuwb::nn
