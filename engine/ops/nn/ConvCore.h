#pragma once
// The convolution loop shared by Conv, ConvInteger and QLinearConv (blocked unfold + matrix product), and the shape
// checks that resolve a convolution problem from the input, the weight and the attributes.
#include <algorithm>
#include <string>
#include <vector>

#include "ops/Kernel.h"
#include "ops/nn/WindowGeometry.h"

namespace npuwb::nn {

struct ConvProblem {
    int64_t batch = 0;
    int64_t inChannels = 0;   // C
    int64_t outChannels = 0;  // M
    int64_t group = 1;
    WindowGeometry geometry;  // spatial rank as in the model
    Shape outputShape;        // [N, M, out spatial...]
};

/// Validates x [N, C, D...] against w [M, C/group, k...] and resolves pads/strides/dilations.
inline ConvProblem resolveConv(const KernelContext& ctx, const Shape& xShape, const Shape& wShape) {
    if (xShape.size() < 3 || wShape.size() != xShape.size())
        ctx.fail("input " + shapeToString(xShape) + " and weight " + shapeToString(wShape) +
                 " must have the same rank >= 3");
    ConvProblem p;
    p.batch = xShape[0];
    p.inChannels = xShape[1];
    p.outChannels = wShape[0];
    p.group = ctx.attrInt("group", 1);
    if (p.group <= 0 || p.inChannels % p.group != 0 || p.outChannels % p.group != 0 ||
        wShape[1] * p.group != p.inChannels)
        ctx.fail("group " + std::to_string(p.group) + " does not fit input " + shapeToString(xShape) + " and weight " +
                 shapeToString(wShape));
    std::vector<int64_t> kernel(wShape.begin() + 2, wShape.end());
    std::vector<int64_t> declared = ctx.attrInts("kernel_shape");
    if (!declared.empty() && declared != kernel)
        ctx.fail("kernel_shape does not match the weight shape " + shapeToString(wShape));
    p.geometry = resolveWindow(ctx, xShape, kernel);
    p.outputShape = {p.batch, p.outChannels};
    p.outputShape.insert(p.outputShape.end(), p.geometry.output.begin(), p.geometry.output.end());
    return p;
}

/// Accumulates the convolution of x [N, C, in...] with w [M, C/group, k...] into y [N, M, out...] (y already holds
/// the bias or zeros). Per image and group, a block of output rows is unfolded into a column matrix
/// col[(c, tap)][position] (zeros where the window reads padding), then y[m, position] += w[m, (c, tap)] * col as a
/// plain i-k-j matrix product whose inner loop is contiguous. Blocks bound the column buffer for large inputs.
template <class Acc> void convolveAccumulate(const ConvProblem& p, const Acc* x, const Acc* w, Acc* y) {
    if (p.geometry.rank() > 3) failUnsupported("Conv: more than 3 spatial axes are not supported");
    const WindowGeometry g = p.geometry.as3d();
    const int64_t inD = g.input[0], inH = g.input[1], inW = g.input[2];
    const int64_t outH = g.output[1], outW = g.output[2];
    const int64_t kD = g.kernel[0], kH = g.kernel[1], kW = g.kernel[2];
    const int64_t inPlane = inD * inH * inW, outPlane = g.outputSize(), kSize = kD * kH * kW;
    const int64_t cPerGroup = p.inChannels / p.group, mPerGroup = p.outChannels / p.group;
    const int64_t taps = cPerGroup * kSize;   // rows of the column matrix (the GEMM's K)
    const int64_t rows = g.output[0] * outH;  // output rows (d, h), each outW long
    constexpr int64_t maxColumnElements = int64_t{1} << 22;
    const int64_t rowsPerBlock = std::max<int64_t>(1, std::min(rows, maxColumnElements / std::max<int64_t>(1, taps * outW)));
    std::vector<Acc> col(static_cast<size_t>(taps * rowsPerBlock * outW));

    for (int64_t n = 0; n < p.batch; ++n) {
        for (int64_t grp = 0; grp < p.group; ++grp) {
            const Acc* xGroup = x + (n * p.inChannels + grp * cPerGroup) * inPlane;
            for (int64_t row0 = 0; row0 < rows; row0 += rowsPerBlock) {
                const int64_t blockRows = std::min(rowsPerBlock, rows - row0);
                const int64_t len = blockRows * outW;  // the GEMM's N for this block
                // Unfold: one column-matrix row per (input channel, kernel tap).
                Acc* colRow = col.data();
                for (int64_t c = 0; c < cPerGroup; ++c) {
                    const Acc* xPlane = xGroup + c * inPlane;
                    for (int64_t kd = 0; kd < kD; ++kd)
                        for (int64_t kh = 0; kh < kH; ++kh)
                            for (int64_t kw = 0; kw < kW; ++kw, colRow += len) {
                                const int64_t offW = kw * g.dilations[2] - g.padBegin[2];
                                const ValidRange rw = validOutputRange(offW, g.strides[2], inW, outW);
                                for (int64_t r = 0; r < blockRows; ++r) {
                                    Acc* dst = colRow + r * outW;
                                    const int64_t od = (row0 + r) / outH, oh = (row0 + r) % outH;
                                    const int64_t id = od * g.strides[0] + kd * g.dilations[0] - g.padBegin[0];
                                    const int64_t ih = oh * g.strides[1] + kh * g.dilations[1] - g.padBegin[1];
                                    if (id < 0 || id >= inD || ih < 0 || ih >= inH) {
                                        std::fill(dst, dst + outW, Acc(0));
                                        continue;
                                    }
                                    const Acc* xRow = xPlane + (id * inH + ih) * inW;
                                    std::fill(dst, dst + rw.lo, Acc(0));
                                    for (int64_t ow = rw.lo; ow < rw.hi; ++ow) dst[ow] = xRow[ow * g.strides[2] + offW];
                                    std::fill(dst + rw.hi, dst + outW, Acc(0));
                                }
                            }
                }
                // Multiply: y[m, block] += w[m, :] * col.
                for (int64_t mg = 0; mg < mPerGroup; ++mg) {
                    const int64_t m = grp * mPerGroup + mg;
                    Acc* yBlock = y + (n * p.outChannels + m) * outPlane + row0 * outW;
                    const Acc* wRow = w + m * taps;
                    int64_t t = 0;
                    for (; t + 4 <= taps; t += 4) {  // four taps per pass: one load/store of y per four products
                        const Acc w0 = wRow[t], w1 = wRow[t + 1], w2 = wRow[t + 2], w3 = wRow[t + 3];
                        const Acc* s0 = col.data() + t * len;
                        const Acc *s1 = s0 + len, *s2 = s1 + len, *s3 = s2 + len;
                        for (int64_t i = 0; i < len; ++i) yBlock[i] += w0 * s0[i] + w1 * s1[i] + w2 * s2[i] + w3 * s3[i];
                    }
                    for (; t < taps; ++t) {
                        const Acc wv = wRow[t];
                        const Acc* src = col.data() + t * len;
                        for (int64_t i = 0; i < len; ++i) yBlock[i] += wv * src[i];
                    }
                }
            }
        }
    }
}

}  // namespace npuwb::nn
