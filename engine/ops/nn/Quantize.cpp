// QuantizeLinear, DequantizeLinear (per tensor or per axis) and DynamicQuantizeLinear.
// Quantization divides in float and rounds half to even, exactly like the ONNX reference.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/Kernel.h"
#include "ops/KernelUtil.h"
#include "ops/nn/NnUtil.h"

namespace npuwb::nn {
namespace {

/// Where the scale/zero point of element i lives: one value for the whole tensor, or one per index along `axis`.
struct QuantParams {
    std::vector<float> scale;
    std::vector<int64_t> zero;  // empty: zero point 0
    int64_t inner = 1;          // elements per step along the axis
    int64_t axisSize = 1;

    size_t channelOf(int64_t i) const { return scale.size() == 1 ? 0 : static_cast<size_t>((i / inner) % axisSize); }
    int64_t zeroOf(size_t ch) const { return zero.empty() ? 0 : zero[zero.size() == 1 ? 0 : ch]; }
    /// Elements in a row that share one scale (all of them per tensor): the loops below go run by run instead of
    /// dividing every index (dequantizing a QDQ model's weights was half of its session creation).
    int64_t runLength(int64_t n) const { return scale.size() == 1 ? std::max<int64_t>(n, 1) : inner; }
};

QuantParams quantParams(const KernelContext& ctx, const Tensor& x, size_t scaleIndex, size_t zeroIndex) {
    QuantParams q;
    const Tensor& scale = ctx.input(scaleIndex);
    q.scale = scale.toFloatVector();
    if (ctx.hasInput(zeroIndex)) {
        const Tensor& z = ctx.input(zeroIndex);
        if (z.numel() != scale.numel()) ctx.fail("scale and zero point must have the same number of elements");
        q.zero = z.toInt64Vector();
    }
    if (scale.numel() == 1) return q;  // per tensor (scalar or [1])
    if (scale.rank() != 1) ctx.fail("per-axis scale must be 1-D, got " + shapeToString(scale.shape()));
    int64_t axis = normalizeAxis(ctx.attrInt("axis", 1), static_cast<int64_t>(x.rank()));
    q.axisSize = x.shape()[static_cast<size_t>(axis)];
    if (scale.numel() != q.axisSize)
        ctx.fail("scale has " + std::to_string(scale.numel()) + " values but axis " + std::to_string(axis) +
                 " has size " + std::to_string(q.axisSize));
    q.inner = 1;
    for (size_t d = static_cast<size_t>(axis) + 1; d < x.rank(); ++d) q.inner *= x.shape()[d];
    return q;
}

void quantizeLinear(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const DType yType = ctx.hasInput(2) ? ctx.input(2).dtype() : DType::U8;
    if (ctx.shapesOnly()) return ctx.setOutputShape(0, yType, x.shape());  // before reading the parameters
    QuantParams q = quantParams(ctx, x, 1, 2);
    Tensor y = Tensor::uninitialized(yType, x.shape());  // every element is written below
    visitNumeric(x.dtype(), [&]<typename T>() {
        const T* src = x.data<T>();
        visitQuantized(yType, [&]<typename Q>() {
            Q* dst = y.data<Q>();
            const int64_t n = x.numel(), run = q.runLength(n);
            for (int64_t start = 0; start < n; start += run) {
                const size_t ch = q.channelOf(start);
                const float scale = q.scale[ch];
                const double zero = static_cast<double>(q.zeroOf(ch));
                for (int64_t i = start, end = std::min(n, start + run); i < end; ++i) {
                    const float scaled = static_cast<float>(src[i]) / scale;
                    dst[i] = saturateRound<Q>(std::nearbyint(static_cast<double>(scaled)) + zero);
                }
            }
        }, "QuantizeLinear");
    }, "QuantizeLinear");
    ctx.setOutput(0, std::move(y));
}

void dequantizeLinear(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const DType yType = ctx.input(1).dtype();
    if (ctx.shapesOnly()) return ctx.setOutputShape(0, yType, x.shape());  // before reading the parameters
    QuantParams q = quantParams(ctx, x, 1, 2);
    Tensor y = Tensor::uninitialized(yType, x.shape());  // every element is written below
    visitInteger(x.dtype(), [&]<typename Q>() {
        const Q* src = x.data<Q>();
        visitFloat(yType, [&]<typename T>() {
            T* dst = y.data<T>();
            const int64_t n = x.numel(), run = q.runLength(n);
            for (int64_t start = 0; start < n; start += run) {
                const size_t ch = q.channelOf(start);
                const float scale = q.scale[ch];
                const int64_t zero = q.zeroOf(ch);
                for (int64_t i = start, end = std::min(n, start + run); i < end; ++i)
                    dst[i] = static_cast<T>(static_cast<float>(static_cast<int64_t>(src[i]) - zero) * scale);
            }
        }, "DequantizeLinear");
    }, "DequantizeLinear");
    ctx.setOutput(0, std::move(y));
}

// uint8 asymmetric quantization with a range that always includes zero.
void dynamicQuantizeLinear(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    std::vector<float> v = x.toFloatVector();
    float lo = 0.0f, hi = 0.0f;
    for (float f : v) {
        lo = std::min(lo, f);
        hi = std::max(hi, f);
    }
    const float scale = (hi - lo) / 255.0f;
    const uint8_t zero = scale == 0.0f ? 0 : saturateRound<uint8_t>(static_cast<double>((0.0f - lo) / scale));
    Tensor y(DType::U8, x.shape());
    uint8_t* dst = y.data<uint8_t>();
    for (size_t i = 0; i < v.size(); ++i) {
        const double scaled = scale == 0.0f ? 0.0 : std::nearbyint(static_cast<double>(v[i] / scale));
        dst[i] = saturateRound<uint8_t>(scaled + zero);
    }
    ctx.setOutput(0, std::move(y));
    ctx.setOutput(1, Tensor::scalar<float>(scale));
    ctx.setOutput(2, Tensor::scalar<uint8_t>(zero));
}

}  // namespace

NPUWB_KERNEL_SHAPES("QuantizeLinear", quantizeLinear);
NPUWB_KERNEL_SHAPES("DequantizeLinear", dequantizeLinear);
NPUWB_KERNEL("DynamicQuantizeLinear", dynamicQuantizeLinear);

}  // namespace npuwb::nn
