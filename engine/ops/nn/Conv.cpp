// Conv, ConvInteger and QLinearConv: one convolution loop (ConvCore.h) fed with float values or with int32 values
// already centred on their zero points.
#include <vector>

#include "ops/Kernel.h"
#include "ops/nn/ConvCore.h"
#include "ops/nn/NnUtil.h"

namespace npuwb::nn {
namespace {

/// Per-output-channel values of an optional [M] (or scalar) input such as a bias or zero point, as Acc.
template <class Acc>
std::vector<Acc> perChannel(const KernelContext& ctx, size_t index, int64_t channels, const char* what) {
    std::vector<Acc> v(static_cast<size_t>(channels), Acc(0));
    if (!ctx.hasInput(index)) return v;
    const Tensor& t = ctx.input(index);
    AccBuffer<Acc> values(t);
    if (t.numel() == 1) {
        std::fill(v.begin(), v.end(), values.data()[0]);
    } else if (t.numel() == channels) {
        std::copy(values.data(), values.data() + channels, v.begin());
    } else {
        ctx.fail(std::string(what) + " has " + std::to_string(t.numel()) + " elements, expected 1 or " +
                 std::to_string(channels));
    }
    return v;
}

/// The output accumulator of a convolution, pre-filled with the per-channel bias.
template <class Acc> std::vector<Acc> biasFilled(const ConvProblem& p, const std::vector<Acc>& bias) {
    std::vector<Acc> y(static_cast<size_t>(shapeNumel(p.outputShape)));
    const int64_t plane = p.geometry.outputSize();
    for (int64_t n = 0; n < p.batch; ++n)
        for (int64_t m = 0; m < p.outChannels; ++m)
            std::fill_n(y.begin() + (n * p.outChannels + m) * plane, plane, bias[static_cast<size_t>(m)]);
    return y;
}

/// Quantized tensor minus its zero point (scalar, or per channel along `axis` for the weights), as int32.
std::vector<int32_t> centered(const KernelContext& ctx, const Tensor& q, const std::vector<int32_t>& zeroPoints) {
    std::vector<int32_t> out(static_cast<size_t>(q.numel()));
    const int64_t channels = static_cast<int64_t>(zeroPoints.size());
    // An empty leading dimension (batch 0) leaves nothing to centre, and no per-channel stride to divide by.
    const bool perLeadingDim = channels > 0 && q.rank() > 0 && q.shape()[0] > 0;
    const int64_t inner = perLeadingDim ? q.numel() / q.shape()[0] : q.numel();
    visitQuantized(q.dtype(), [&]<typename Q>() {
        const Q* src = q.data<Q>();
        for (int64_t i = 0; i < q.numel(); ++i) {
            int32_t zp = channels == 0 ? 0 : zeroPoints[static_cast<size_t>(channels == 1 ? 0 : i / inner)];
            out[static_cast<size_t>(i)] = static_cast<int32_t>(src[i]) - zp;
        }
    }, ctx.node().opType);
    return out;
}

void conv(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    if (w.dtype() != x.dtype()) ctx.fail("X and W must have the same element type");
    ConvProblem p = resolveConv(ctx, x.shape(), w.shape());
    if (ctx.shapesOnly()) return ctx.setOutputShape(0, x.dtype(), p.outputShape);
    visitFloat(x.dtype(), [&]<typename T>() {
        using Acc = FloatAcc<T>;
        std::vector<Acc> y = biasFilled(p, perChannel<Acc>(ctx, 2, p.outChannels, "bias B"));
        convolveAccumulate<Acc>(p, AccBuffer<Acc>(x).data(), AccBuffer<Acc>(w).data(), y.data());
        ctx.setOutput(0, tensorFromAcc<T>(x.dtype(), p.outputShape, y));
    }, "Conv");
}

void convInteger(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    ConvProblem p = resolveConv(ctx, x.shape(), w.shape());
    std::vector<int32_t> xZero = perChannel<int32_t>(ctx, 2, 1, "x_zero_point");
    std::vector<int32_t> wZero = perChannel<int32_t>(ctx, 3, p.outChannels, "w_zero_point");
    std::vector<int32_t> y = biasFilled(p, std::vector<int32_t>(static_cast<size_t>(p.outChannels), 0));
    convolveAccumulate<int32_t>(p, centered(ctx, x, xZero).data(), centered(ctx, w, wZero).data(), y.data());
    ctx.setOutput(0, tensorFromAcc<int32_t>(DType::I32, p.outputShape, y));
}

// Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B (int32, optional).
void qlinearConv(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(3);
    ConvProblem p = resolveConv(ctx, x.shape(), w.shape());
    std::vector<int32_t> xZero = perChannel<int32_t>(ctx, 2, 1, "x_zero_point");
    std::vector<int32_t> wZero = perChannel<int32_t>(ctx, 5, p.outChannels, "w_zero_point");
    std::vector<float> xScale = perChannel<float>(ctx, 1, 1, "x_scale");
    std::vector<float> wScale = perChannel<float>(ctx, 4, p.outChannels, "w_scale");
    std::vector<float> yScale = perChannel<float>(ctx, 6, 1, "y_scale");
    std::vector<int32_t> bias = perChannel<int32_t>(ctx, 8, p.outChannels, "bias B");
    std::vector<int32_t> acc = biasFilled(p, bias);
    convolveAccumulate<int32_t>(p, centered(ctx, x, xZero).data(), centered(ctx, w, wZero).data(), acc.data());

    DType yType = ctx.hasInput(7) ? ctx.input(7).dtype() : x.dtype();
    int32_t yZero = perChannel<int32_t>(ctx, 7, 1, "y_zero_point")[0];
    const int64_t plane = p.geometry.outputSize();
    Tensor y(yType, p.outputShape);
    visitQuantized(yType, [&]<typename Q>() {
        Q* dst = y.data<Q>();
        for (size_t i = 0; i < acc.size(); ++i) {
            size_t m = static_cast<size_t>((static_cast<int64_t>(i) / plane) % p.outChannels);
            // Requantise like the reference runtimes: one float multiplier per output channel.
            float multiplier = xScale[0] * wScale[m] / yScale[0];
            dst[i] = saturateRound<Q>(static_cast<double>(static_cast<float>(acc[i]) * multiplier) + yZero);
        }
    }, "QLinearConv");
    ctx.setOutput(0, std::move(y));
}

}  // namespace

NPUWB_KERNEL_SHAPES("Conv", conv);
NPUWB_KERNEL("ConvInteger", convInteger);
NPUWB_KERNEL("QLinearConv", qlinearConv);

}  // namespace npuwb::nn
