// Linear Resize with align_corners coordinates, which oneDNN's resampling does not have (it maps half-pixel
// centres). The same taps and the same double-precision sums, in the same order, as the reference kernel
// (engine/ops/tensor/Resize.cpp), so the result is bit for bit the reference's; only faster: each source row is
// interpolated across once, then every output row blends two of those rows.
#include "OnednnSegmentBuilder.h"

#include <algorithm>
#include <cmath>

namespace npuwb::onednn {

namespace {

/// One output coordinate on one axis: its two source indices (edge-clamped) and weights.
struct Tap {
    int64_t first = 0, second = 0;
    double firstWeight = 0.0, secondWeight = 0.0;
};

/// The reference's linear taps under align_corners: `scale` as it uses it (sizes / input, or the given scale), the
/// output width not rounded, ratio 1 (not 0) on whole source coordinates, the left tap found in an edge-padded axis.
std::vector<Tap> alignCornersTaps(int64_t inWidth, int64_t outCount, double scale) {
    const double outWidth = scale * static_cast<double>(inWidth), in1 = static_cast<double>(inWidth - 1);
    std::vector<Tap> taps(static_cast<size_t>(outCount));
    for (int64_t x = 0; x < outCount; ++x) {
        const double src = outWidth == 1.0 ? 0.0 : static_cast<double>(x) * in1 / (outWidth - 1);
        const double srcFloor = std::floor(src);
        const double ratio = src == srcFloor ? 1.0 : src - srcFloor;
        int64_t first = static_cast<int64_t>(std::ceil(src + 1.0)) - 1;  // padded axis: one edge copy each side
        first = std::clamp<int64_t>(first, 0, inWidth);
        Tap& t = taps[static_cast<size_t>(x)];
        t.first = std::clamp<int64_t>(first - 1, 0, inWidth - 1);
        t.second = std::clamp<int64_t>(first, 0, inWidth - 1);
        t.firstWeight = 1.0 - ratio;
        t.secondWeight = ratio;
    }
    return taps;
}

/// The scale of axis `d` as the reference derives it: from sizes (input 3) when given, else from scales (input 2).
double axisScale(const Tensor* scales, const Tensor* sizes, size_t d, int64_t in) {
    if (sizes && sizes->numel() > 0)
        return in == 0 ? 1.0 : sizes->elementAsDouble(static_cast<int64_t>(d)) / static_cast<double>(in);
    return scales->elementAsDouble(static_cast<int64_t>(d));
}

/// Whether every output takes source pixel 0 whole: each tap one weight 1 and the other 0, so the reference's double
/// sums give 0 + 1 * x, the input value itself (with -0 as +0).
bool broadcastsOnePixel(const std::vector<Tap>& rows, const std::vector<Tap>& cols) {
    auto whole = [](const Tap& t) {
        return t.first == 0 && t.second == 0 && ((t.firstWeight == 1.0 && t.secondWeight == 0.0) ||
                                                 (t.firstWeight == 0.0 && t.secondWeight == 1.0));
    };
    return std::all_of(rows.begin(), rows.end(), whole) && std::all_of(cols.begin(), cols.end(), whole);
}

}  // namespace

void Builder::buildResizeAlignCorners(const Node& n) {
    const Shape& x = desc(n.inputs[0]).shape;
    const Shape& y = desc(n.outputs[0]).shape;
    auto constantInput = [&](size_t i) -> const Tensor* {
        return i < n.inputs.size() && !n.inputs[i].empty() ? desc(n.inputs[i]).constant : nullptr;
    };
    const Tensor *scales = constantInput(2), *sizes = constantInput(3);
    if (!(sizes && sizes->numel() == 4) && !(scales && scales->numel() == 4))
        throw std::runtime_error("Resize needs 4 constant scales or sizes");
    const int64_t inH = x[2], inW = x[3], outH = y[2], outW = y[3];
    const std::vector<Tap> rows = alignCornersTaps(inH, outH, axisScale(scales, sizes, 2, inH));
    const std::vector<Tap> cols = alignCornersTaps(inW, outW, axisScale(scales, sizes, 3, inW));
    const int64_t planes = x[0] * x[1];
    if (inH == 1 && inW == 1 && broadcastsOnePixel(rows, cols)) {  // every output is its channel's input value
        memory src = getAs(n.inputs[0], plainDesc(x), nodeName(n));
        // Channels-last, as the Convs that read it want it (DeepLab's image-pooling branch: a 0.8 ms reorder).
        memory dst = activation(channelsLastDesc(y));
        const int64_t batch = x[0], channels = x[1], pixels = outH * outW;
        addKernel([src, dst, batch, channels, pixels](dnnl::stream&) {
            const float* in = static_cast<const float*>(src.get_data_handle());
            float* out = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel for schedule(static) collapse(2)
            for (int64_t b = 0; b < batch; ++b)
                for (int64_t p = 0; p < pixels; ++p) {
                    const float* v = in + b * channels;
                    float* o = out + (b * pixels + p) * channels;
                    for (int64_t c = 0; c < channels; ++c) o[c] = v[c] + 0.f;  // the reference's 0 + 1*x: -0 is +0
                }
        }, {nodeName(n)}, {src, dst});
        mem[n.outputs[0]] = dst;
        return;
    }
    memory src = getAs(n.inputs[0], plainDesc(x), nodeName(n));
    memory dst = activation(plainDesc(y));
    addKernel([src, dst, rows, cols, planes, inH, inW, outH, outW](dnnl::stream&) {
        const float* in = static_cast<const float*>(src.get_data_handle());
        float* out = static_cast<float*>(dst.get_data_handle());
#pragma omp parallel
        {
            std::vector<double> across(static_cast<size_t>(inH * outW));  // each source row interpolated across
#pragma omp for schedule(static)
            for (int64_t p = 0; p < planes; ++p) {
                const float* plane = in + p * inH * inW;
                for (int64_t r = 0; r < inH; ++r)
                    for (int64_t c = 0; c < outW; ++c) {
                        const Tap& t = cols[static_cast<size_t>(c)];
                        // The reference skips zero weights (0 * inf would be NaN) and starts each sum at 0.
                        double s = 0.0;
                        if (t.firstWeight != 0.0) s += t.firstWeight * static_cast<double>(plane[r * inW + t.first]);
                        if (t.secondWeight != 0.0) s += t.secondWeight * static_cast<double>(plane[r * inW + t.second]);
                        across[static_cast<size_t>(r * outW + c)] = s;
                    }
                float* o = out + p * outH * outW;
                for (int64_t r = 0; r < outH; ++r) {
                    const Tap& t = rows[static_cast<size_t>(r)];
                    const double* a = across.data() + t.first * outW;
                    const double* b = across.data() + t.second * outW;
                    for (int64_t c = 0; c < outW; ++c) {
                        double s = 0.0;
                        if (t.firstWeight != 0.0) s += t.firstWeight * a[c];
                        if (t.secondWeight != 0.0) s += t.secondWeight * b[c];
                        o[r * outW + c] = static_cast<float>(s);
                    }
                }
            }
        }
    }, {nodeName(n)}, {src, dst});
    mem[n.outputs[0]] = dst;
}

}  // namespace npuwb::onednn
