#pragma once
// Sliding-window geometry shared by the convolution and pooling kernels: turns kernel, strides, dilations, pads and
// auto_pad into per-axis begin/end pads and output sizes. Everything is also padded to three spatial axes (leading
// size-1 axes) so the loops in the kernels are written once for 1-D, 2-D and 3-D.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/Kernel.h"

namespace npuwb::nn {

struct WindowGeometry {
    std::vector<int64_t> input;  // spatial input sizes
    std::vector<int64_t> kernel;
    std::vector<int64_t> strides;
    std::vector<int64_t> dilations;
    std::vector<int64_t> padBegin;
    std::vector<int64_t> padEnd;
    std::vector<int64_t> output;  // spatial output sizes

    size_t rank() const { return input.size(); }
    int64_t dilatedKernel(size_t i) const { return (kernel[i] - 1) * dilations[i] + 1; }
    int64_t inputSize() const { return product(input); }
    int64_t outputSize() const { return product(output); }
    int64_t kernelSize() const { return product(kernel); }
    static int64_t product(const std::vector<int64_t>& v) {
        int64_t p = 1;
        for (int64_t d : v) p *= d;
        return p;
    }

    /// The same geometry with leading unit axes so that rank() == 3 (for rank <= 3).
    WindowGeometry as3d() const {
        WindowGeometry g = *this;
        while (g.rank() < 3) {
            g.input.insert(g.input.begin(), 1);
            g.kernel.insert(g.kernel.begin(), 1);
            g.strides.insert(g.strides.begin(), 1);
            g.dilations.insert(g.dilations.begin(), 1);
            g.padBegin.insert(g.padBegin.begin(), 0);
            g.padEnd.insert(g.padEnd.begin(), 0);
            g.output.insert(g.output.begin(), 1);
        }
        return g;
    }
};

/// Reads an ints attribute that must have `count` entries (or be absent: `fallback` repeated).
inline std::vector<int64_t> spatialAttr(const KernelContext& ctx, const std::string& name, size_t count,
                                        int64_t fallback) {
    std::vector<int64_t> v = ctx.attrInts(name);
    if (v.empty()) return std::vector<int64_t>(count, fallback);
    if (v.size() != count)
        ctx.fail("attribute '" + name + "' has " + std::to_string(v.size()) + " values, expected " +
                 std::to_string(count));
    // Window arithmetic multiplies these by dimensions: past 2^24 it could overflow int64 (and no real window is
    // that large), so such values are refused rather than wrapped into a wrong shape.
    constexpr int64_t kLargest = int64_t(1) << 24;
    for (int64_t x : v)
        if (x > kLargest || x < -kLargest)
            ctx.fail("attribute '" + name + "' value " + std::to_string(x) + " is too large (limit " +
                     std::to_string(kLargest) + ")");
    return v;
}

/// Resolves the window over the spatial axes of an [N, C, spatial...] input. `kernel` comes from the weight shape
/// (convolutions) or kernel_shape (pools); `ceilMode` is the pools' ceil_mode.
inline WindowGeometry resolveWindow(const KernelContext& ctx, const Shape& xShape, std::vector<int64_t> kernel,
                                    bool ceilMode = false) {
    if (xShape.size() < 3) ctx.fail("input must have rank >= 3 ([N, C, spatial...]), got " + shapeToString(xShape));
    size_t rank = xShape.size() - 2;
    if (kernel.size() != rank)
        ctx.fail("kernel has " + std::to_string(kernel.size()) + " axes but the input has " + std::to_string(rank) +
                 " spatial axes");
    WindowGeometry g;
    g.input.assign(xShape.begin() + 2, xShape.end());
    g.kernel = std::move(kernel);
    g.strides = spatialAttr(ctx, "strides", rank, 1);
    g.dilations = spatialAttr(ctx, "dilations", rank, 1);
    for (size_t i = 0; i < rank; ++i) {
        if (g.kernel[i] <= 0 || g.strides[i] <= 0 || g.dilations[i] <= 0)
            ctx.fail("kernel sizes, strides and dilations must be positive");
        if (g.kernel[i] > (int64_t(1) << 24)) ctx.fail("kernel size " + std::to_string(g.kernel[i]) + " is too large");
    }
    g.padBegin.assign(rank, 0);
    g.padEnd.assign(rank, 0);
    g.output.assign(rank, 0);

    std::string autoPad = ctx.attrString("auto_pad", "NOTSET");
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        for (size_t i = 0; i < rank; ++i) {
            int64_t out = (g.input[i] + g.strides[i] - 1) / g.strides[i];
            int64_t total = std::max<int64_t>(0, (out - 1) * g.strides[i] + g.dilatedKernel(i) - g.input[i]);
            // SAME_UPPER puts the odd extra pad at the end, SAME_LOWER at the beginning.
            g.padBegin[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            g.padEnd[i] = total - g.padBegin[i];
            g.output[i] = out;
        }
        return g;
    }
    if (autoPad != "NOTSET" && autoPad != "VALID" && !autoPad.empty()) ctx.fail("unknown auto_pad '" + autoPad + "'");
    if (autoPad != "VALID") {
        std::vector<int64_t> pads = spatialAttr(ctx, "pads", 2 * rank, 0);
        for (size_t i = 0; i < rank; ++i) {
            g.padBegin[i] = pads[i];
            g.padEnd[i] = pads[i + rank];
            if (pads[i] < 0 || pads[i + rank] < 0) ctx.fail("pads must be non-negative");
        }
    }
    for (size_t i = 0; i < rank; ++i) {
        int64_t span = g.input[i] + g.padBegin[i] + g.padEnd[i] - g.dilatedKernel(i);
        if (span < 0)
            ctx.fail("the window (" + std::to_string(g.dilatedKernel(i)) + ") is larger than the padded input (" +
                     std::to_string(g.input[i] + g.padBegin[i] + g.padEnd[i]) + ")");
        int64_t out = (ceilMode ? (span + g.strides[i] - 1) / g.strides[i] : span / g.strides[i]) + 1;
        // With ceil_mode the last window must still start inside the input or the leading pad.
        if (ceilMode && (out - 1) * g.strides[i] >= g.input[i] + g.padBegin[i]) --out;
        g.output[i] = out;
    }
    return g;
}

/// Output positions o in [lo, hi) for which o * stride + offset lands inside [0, size).
struct ValidRange {
    int64_t lo;
    int64_t hi;
};
inline ValidRange validOutputRange(int64_t offset, int64_t stride, int64_t size, int64_t outSize) {
    int64_t lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
    int64_t last = size - 1 - offset;
    int64_t hi = last < 0 ? 0 : std::min(outSize, last / stride + 1);
    lo = std::min(lo, outSize);
    return {lo, std::max(hi, lo)};
}

}  // namespace npuwb::nn
