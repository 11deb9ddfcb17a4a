// LRN (local response normalization across channels) and MeanVarianceNormalization (over the `axes`).
#include <cmath>
#include <string>
#include <vector>

#include "ops/Kernel.h"
#include "ops/KernelUtil.h"
#include "ops/nn/NnUtil.h"

namespace npuwb::nn {
namespace {

// y = x / (bias + alpha / size * sum of x^2 over the channel window) ^ beta; the window around channel c is
// [c - floor((size-1)/2), c + ceil((size-1)/2)].
void lrn(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 3) ctx.fail("input must have rank >= 3 ([N, C, spatial...])");
    const int64_t size = ctx.attrInt("size", 0);
    if (size <= 0) ctx.fail("attribute 'size' must be positive");
    const double alpha = ctx.attrFloat("alpha", 1e-4f), beta = ctx.attrFloat("beta", 0.75f);
    const double bias = ctx.attrFloat("bias", 1.0f);
    const int64_t n = x.shape()[0], channels = x.shape()[1];
    const int64_t plane = n * channels == 0 ? 0 : x.numel() / (n * channels);
    const int64_t before = (size - 1) / 2, after = size - 1 - before;
    Tensor y(x.dtype(), x.shape());
    visitFloat(x.dtype(), [&]<typename T>() {
        const T* src = x.data<T>();
        T* dst = y.data<T>();
        for (int64_t b = 0; b < n; ++b)
            for (int64_t c = 0; c < channels; ++c)
                for (int64_t i = 0; i < plane; ++i) {
                    double sq = 0.0;
                    for (int64_t k = std::max<int64_t>(0, c - before); k <= std::min(channels - 1, c + after); ++k) {
                        const double v = static_cast<double>(src[(b * channels + k) * plane + i]);
                        sq += v * v;
                    }
                    const int64_t at = (b * channels + c) * plane + i;
                    dst[at] = static_cast<T>(static_cast<double>(src[at]) /
                                             std::pow(bias + alpha / static_cast<double>(size) * sq, beta));
                }
    }, "LRN");
    ctx.setOutput(0, std::move(y));
}

// y = (x - mean) / (sqrt(mean(x^2) - mean^2) + 1e-9) with the statistics taken over `axes` (default N, H, W).
void meanVarianceNormalization(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const int64_t rank = static_cast<int64_t>(x.rank());
    std::vector<int64_t> axes = ctx.attrInts("axes", {0, 2, 3});
    Shape kept = x.shape();  // the statistics' shape: 1 on every reduced axis
    for (int64_t a : axes) kept[static_cast<size_t>(normalizeAxis(a, rank))] = 1;
    const std::vector<int64_t> group = BroadcastIndex(x.shape(), kept).all();
    const size_t groups = static_cast<size_t>(shapeNumel(kept));
    const double count = static_cast<double>(x.numel()) / static_cast<double>(std::max<size_t>(1, groups));
    std::vector<double> sum(groups, 0.0), sumSq(groups, 0.0);
    Tensor y(x.dtype(), x.shape());
    visitFloat(x.dtype(), [&]<typename T>() {
        const T* src = x.data<T>();
        T* dst = y.data<T>();
        for (int64_t i = 0; i < x.numel(); ++i) {
            const double v = static_cast<double>(src[i]);
            sum[static_cast<size_t>(group[static_cast<size_t>(i)])] += v;
            sumSq[static_cast<size_t>(group[static_cast<size_t>(i)])] += v * v;
        }
        for (int64_t i = 0; i < x.numel(); ++i) {
            const size_t g = static_cast<size_t>(group[static_cast<size_t>(i)]);
            const double mean = sum[g] / count;
            const double stddev = std::sqrt(std::max(0.0, sumSq[g] / count - mean * mean));
            dst[i] = static_cast<T>((static_cast<double>(src[i]) - mean) / (stddev + 1e-9));
        }
    }, "MeanVarianceNormalization");
    ctx.setOutput(0, std::move(y));
}

}  // namespace

NPUWB_KERNEL("LRN", lrn);
NPUWB_KERNEL("MeanVarianceNormalization", meanVarianceNormalization);

}  // namespace npuwb::nn
