// ConvTranspose (the gradient of Conv with respect to its input): every input element scatters weight * x into the
// output window it came from. Output size comes from output_shape, auto_pad or explicit pads + output_padding.
#include <string>
#include <vector>

#include "ops/Kernel.h"
#include "ops/nn/NnUtil.h"
#include "ops/nn/WindowGeometry.h"

namespace npuwb::nn {
namespace {

struct TransposeProblem {
    int64_t batch = 0, inChannels = 0, outChannels = 0, group = 1;
    WindowGeometry geometry;  // input = X's spatial sizes, output = Y's; padBegin is the crop at the start
    Shape outputShape;
};

TransposeProblem resolveTranspose(const KernelContext& ctx, const Shape& xShape, const Shape& wShape) {
    if (xShape.size() < 3 || wShape.size() != xShape.size())
        ctx.fail("input " + shapeToString(xShape) + " and weight " + shapeToString(wShape) +
                 " must have the same rank >= 3");
    TransposeProblem p;
    p.batch = xShape[0];
    p.inChannels = xShape[1];
    p.group = ctx.attrInt("group", 1);
    if (p.group <= 0 || wShape[0] != p.inChannels || p.inChannels % p.group != 0)
        ctx.fail("weight " + shapeToString(wShape) + " does not fit input " + shapeToString(xShape) + " with group " +
                 std::to_string(p.group));
    p.outChannels = wShape[1] * p.group;

    const size_t rank = xShape.size() - 2;
    WindowGeometry& g = p.geometry;
    g.input.assign(xShape.begin() + 2, xShape.end());
    g.kernel.assign(wShape.begin() + 2, wShape.end());
    std::vector<int64_t> declared = ctx.attrInts("kernel_shape");
    if (!declared.empty() && declared != g.kernel)
        ctx.fail("kernel_shape does not match the weight shape " + shapeToString(wShape));
    g.strides = spatialAttr(ctx, "strides", rank, 1);
    g.dilations = spatialAttr(ctx, "dilations", rank, 1);
    for (size_t i = 0; i < rank; ++i)
        if (g.kernel[i] <= 0 || g.strides[i] <= 0 || g.dilations[i] <= 0)
            ctx.fail("kernel sizes, strides and dilations must be positive");
    std::vector<int64_t> outputPadding = spatialAttr(ctx, "output_padding", rank, 0);
    g.padBegin.assign(rank, 0);
    g.padEnd.assign(rank, 0);
    g.output.assign(rank, 0);

    std::vector<int64_t> outputShape = ctx.attrInts("output_shape");
    if (outputShape.size() == rank + 2) outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
    if (!outputShape.empty() && outputShape.size() != rank)
        ctx.fail("output_shape must have one value per spatial axis");
    const std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
    const bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
    std::vector<int64_t> pads = autoPad == "VALID" || same ? std::vector<int64_t>(2 * rank, 0)
                                                            : spatialAttr(ctx, "pads", 2 * rank, 0);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t full = g.strides[i] * (g.input[i] - 1) + outputPadding[i] + g.dilatedKernel(i);
        if (!outputShape.empty() || same) {
            // The output size is given: crop the full result, splitting the excess as the spec says. A requested
            // size larger than the full result leaves the tail at the bias.
            g.output[i] = outputShape.empty() ? g.input[i] * g.strides[i] : outputShape[i];
            const int64_t total = std::max<int64_t>(0, full - g.output[i]);
            g.padBegin[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            g.padEnd[i] = total - g.padBegin[i];
        } else {
            g.padBegin[i] = pads[i];
            g.padEnd[i] = pads[i + rank];
            g.output[i] = full - g.padBegin[i] - g.padEnd[i];
        }
        if (g.output[i] <= 0) ctx.fail("the output would be empty along spatial axis " + std::to_string(i));
    }
    p.outputShape = {p.batch, p.outChannels};
    p.outputShape.insert(p.outputShape.end(), g.output.begin(), g.output.end());
    return p;
}

/// y [N, M, out...] += scatter of x [N, C, in...] through w [C, M/group, k...].
template <class Acc> void scatterAccumulate(const TransposeProblem& p, const Acc* x, const Acc* w, Acc* y) {
    if (p.geometry.rank() > 3) failUnsupported("ConvTranspose: more than 3 spatial axes are not supported");
    const WindowGeometry g = p.geometry.as3d();
    const int64_t inD = g.input[0], inH = g.input[1], inW = g.input[2];
    const int64_t outD = g.output[0], outH = g.output[1], outW = g.output[2];
    const int64_t kD = g.kernel[0], kH = g.kernel[1], kW = g.kernel[2];
    const int64_t inPlane = inD * inH * inW, outPlane = outD * outH * outW, kSize = kD * kH * kW;
    const int64_t cPerGroup = p.inChannels / p.group, mPerGroup = p.outChannels / p.group;

    for (int64_t n = 0; n < p.batch; ++n) {
        for (int64_t c = 0; c < p.inChannels; ++c) {
            const Acc* xPlane = x + (n * p.inChannels + c) * inPlane;
            const int64_t grp = c / cPerGroup;
            for (int64_t mg = 0; mg < mPerGroup; ++mg) {
                Acc* yPlane = y + (n * p.outChannels + grp * mPerGroup + mg) * outPlane;
                const Acc* wTaps = w + (c * mPerGroup + mg) * kSize;
                for (int64_t kd = 0; kd < kD; ++kd) {
                    const int64_t offD = kd * g.dilations[0] - g.padBegin[0];
                    const ValidRange rd = validOutputRange(offD, g.strides[0], outD, inD);
                    for (int64_t kh = 0; kh < kH; ++kh) {
                        const int64_t offH = kh * g.dilations[1] - g.padBegin[1];
                        const ValidRange rh = validOutputRange(offH, g.strides[1], outH, inH);
                        for (int64_t kw = 0; kw < kW; ++kw) {
                            const int64_t offW = kw * g.dilations[2] - g.padBegin[2];
                            const ValidRange rw = validOutputRange(offW, g.strides[2], outW, inW);
                            const Acc wv = wTaps[(kd * kH + kh) * kW + kw];
                            for (int64_t id = rd.lo; id < rd.hi; ++id) {
                                const int64_t od = id * g.strides[0] + offD;
                                for (int64_t ih = rh.lo; ih < rh.hi; ++ih) {
                                    const int64_t oh = ih * g.strides[1] + offH;
                                    const Acc* xRow = xPlane + (id * inH + ih) * inW;
                                    Acc* yRow = yPlane + (od * outH + oh) * outW;
                                    for (int64_t iw = rw.lo; iw < rw.hi; ++iw)
                                        yRow[iw * g.strides[2] + offW] += wv * xRow[iw];
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

void convTranspose(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& w = ctx.input(1);
    if (w.dtype() != x.dtype()) ctx.fail("X and W must have the same element type");
    TransposeProblem p = resolveTranspose(ctx, x.shape(), w.shape());
    visitFloat(x.dtype(), [&]<typename T>() {
        using Acc = FloatAcc<T>;
        std::vector<Acc> y(static_cast<size_t>(shapeNumel(p.outputShape)), Acc(0));
        if (ctx.hasInput(2)) {
            const Tensor& b = ctx.input(2);
            if (b.numel() != p.outChannels) ctx.fail("bias B must have one value per output channel");
            AccBuffer<Acc> bias(b);
            const int64_t plane = p.geometry.outputSize();
            for (int64_t n = 0; n < p.batch; ++n)
                for (int64_t m = 0; m < p.outChannels; ++m)
                    std::fill_n(y.begin() + (n * p.outChannels + m) * plane, plane, bias.data()[m]);
        }
        scatterAccumulate<Acc>(p, AccBuffer<Acc>(x).data(), AccBuffer<Acc>(w).data(), y.data());
        ctx.setOutput(0, tensorFromAcc<T>(x.dtype(), p.outputShape, y));
    }, "ConvTranspose");
}

}  // namespace

NPUWB_KERNEL("ConvTranspose", convTranspose);

}  // namespace npuwb::nn
