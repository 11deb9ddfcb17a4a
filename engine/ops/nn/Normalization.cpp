// Statistics-based normalizations: BatchNormalization (inference and training outputs), InstanceNormalization,
// LayerNormalization and GroupNormalization. Statistics are accumulated in double so float results match the
// numpy references to well within tolerance.
#include <cmath>
#include <string>
#include <vector>

#include "ops/Kernel.h"
#include "ops/KernelUtil.h"
#include "ops/nn/NnUtil.h"

namespace npuwb::nn {
namespace {

/// Mean and population variance of `count` values starting at `data`, every `stride` elements.
template <class T> void meanVariance(const T* data, int64_t count, double& mean, double& variance) {
    double sum = 0.0;
    for (int64_t i = 0; i < count; ++i) sum += static_cast<double>(data[i]);
    mean = count > 0 ? sum / static_cast<double>(count) : 0.0;
    double sq = 0.0;
    for (int64_t i = 0; i < count; ++i) {
        const double d = static_cast<double>(data[i]) - mean;
        sq += d * d;
    }
    variance = count > 0 ? sq / static_cast<double>(count) : 0.0;
}

/// A per-channel parameter input as doubles, checked to have `channels` values.
std::vector<double> channelParam(const KernelContext& ctx, size_t index, int64_t channels, const char* what) {
    const Tensor& t = ctx.input(index);
    if (t.numel() != channels)
        ctx.fail(std::string(what) + " has " + std::to_string(t.numel()) + " values, expected " +
                 std::to_string(channels));
    std::vector<double> v(static_cast<size_t>(channels));
    for (int64_t i = 0; i < channels; ++i) v[static_cast<size_t>(i)] = t.elementAsDouble(i);
    return v;
}

Tensor doublesAs(DType dtype, Shape shape, const std::vector<double>& v) {
    Tensor t(dtype, std::move(shape));
    visitFloat(dtype, [&]<typename T>() {
        T* dst = t.data<T>();
        for (size_t i = 0; i < v.size(); ++i) dst[i] = static_cast<T>(v[i]);
    });
    return t;
}

// Inputs: X [N, C, ...], scale, B, input_mean, input_var (all [C]).
void batchNormalization(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) ctx.fail("X must have rank >= 2");
    const int64_t n = x.shape()[0], channels = x.shape()[1];
    const int64_t plane = n * channels == 0 ? 0 : x.numel() / (n * channels);
    const double epsilon = ctx.attrFloat("epsilon", 1e-5f);
    const double momentum = ctx.attrFloat("momentum", 0.9f);
    std::vector<double> scale = channelParam(ctx, 1, channels, "scale");
    std::vector<double> bias = channelParam(ctx, 2, channels, "B");
    std::vector<double> runMean = channelParam(ctx, 3, channels, "input_mean");
    std::vector<double> runVar = channelParam(ctx, 4, channels, "input_var");
    // Opset 14+ asks explicitly; older opsets train when is_test is off and the statistics outputs are requested.
    const bool training = ctx.opset() >= 14 ? ctx.attrInt("training_mode", 0) != 0
                                            : ctx.attrInt("is_test", 0) == 0 && ctx.outputCount() > 1;
    std::vector<double> mean = runMean, var = runVar;
    Tensor y(x.dtype(), x.shape());
    visitFloat(x.dtype(), [&]<typename T>() {
        const T* src = x.data<T>();
        T* dst = y.data<T>();
        if (training) {
            for (int64_t c = 0; c < channels; ++c) {
                double sum = 0.0, sq = 0.0;
                for (int64_t b = 0; b < n; ++b)
                    for (int64_t i = 0; i < plane; ++i) sum += static_cast<double>(src[(b * channels + c) * plane + i]);
                const double count = static_cast<double>(n * plane);
                const double m = sum / count;
                for (int64_t b = 0; b < n; ++b)
                    for (int64_t i = 0; i < plane; ++i) {
                        const double d = static_cast<double>(src[(b * channels + c) * plane + i]) - m;
                        sq += d * d;
                    }
                mean[static_cast<size_t>(c)] = m;
                var[static_cast<size_t>(c)] = sq / count;
            }
        }
        for (int64_t b = 0; b < n; ++b)
            for (int64_t c = 0; c < channels; ++c) {
                const size_t ch = static_cast<size_t>(c);
                const double k = scale[ch] / std::sqrt(var[ch] + epsilon);
                const int64_t base = (b * channels + c) * plane;
                for (int64_t i = 0; i < plane; ++i)
                    dst[base + i] = static_cast<T>((static_cast<double>(src[base + i]) - mean[ch]) * k + bias[ch]);
            }
    }, "BatchNormalization");
    ctx.setOutput(0, std::move(y));
    if (!training) return;
    std::vector<double> newMean(runMean.size()), newVar(runVar.size());
    for (size_t c = 0; c < runMean.size(); ++c) {
        newMean[c] = runMean[c] * momentum + mean[c] * (1.0 - momentum);
        newVar[c] = runVar[c] * momentum + var[c] * (1.0 - momentum);
    }
    const DType statType = ctx.input(3).dtype();
    ctx.setOutput(1, doublesAs(statType, {channels}, newMean));
    ctx.setOutput(2, doublesAs(statType, {channels}, newVar));
    if (ctx.wantsOutput(3)) ctx.setOutput(3, doublesAs(statType, {channels}, mean));  // saved_mean (opset < 14)
    if (ctx.wantsOutput(4)) ctx.setOutput(4, doublesAs(statType, {channels}, var));   // saved_var (opset < 14)
}

/// Normalizes each of `groups` consecutive blocks of `blockSize` elements, then applies per-channel affine
/// parameters (channel = (element / channelSize) % channels). Shared by InstanceNorm and GroupNorm.
template <class T>
void normalizeBlocks(const T* src, T* dst, int64_t groups, int64_t blockSize, double epsilon, int64_t channelSize,
                     const std::vector<double>& scale, const std::vector<double>& bias) {
    const int64_t channels = static_cast<int64_t>(scale.size());
    for (int64_t gIdx = 0; gIdx < groups; ++gIdx) {
        const T* in = src + gIdx * blockSize;
        double mean = 0.0, var = 0.0;
        meanVariance(in, blockSize, mean, var);
        const double inv = 1.0 / std::sqrt(var + epsilon);
        for (int64_t i = 0; i < blockSize; ++i) {
            const int64_t flat = gIdx * blockSize + i;
            const size_t c = static_cast<size_t>((flat / channelSize) % channels);
            dst[flat] = static_cast<T>((static_cast<double>(in[i]) - mean) * inv * scale[c] + bias[c]);
        }
    }
}

void instanceNormalization(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 3) ctx.fail("input must have rank >= 3 ([N, C, spatial...])");
    const int64_t channels = x.shape()[1], planes = x.shape()[0] * channels;
    const int64_t plane = planes == 0 ? 0 : x.numel() / planes;
    std::vector<double> scale = channelParam(ctx, 1, channels, "scale");
    std::vector<double> bias = channelParam(ctx, 2, channels, "B");
    Tensor y(x.dtype(), x.shape());
    visitFloat(x.dtype(), [&]<typename T>() {
        normalizeBlocks(x.data<T>(), y.data<T>(), planes, plane, ctx.attrFloat("epsilon", 1e-5f), plane, scale, bias);
    }, "InstanceNormalization");
    ctx.setOutput(0, std::move(y));
}

// Opset 18 GroupNormalization: scale/bias per group (opset 18) or per channel (opset 21).
void groupNormalization(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) ctx.fail("input must have rank >= 2");
    const int64_t groups = ctx.attrInt("num_groups", 0), channels = x.shape()[1];
    if (groups <= 0 || channels % groups != 0) ctx.fail("num_groups must divide the channel count");
    const int64_t perChannel = x.numel() / std::max<int64_t>(1, x.shape()[0] * channels);
    const bool perGroup = ctx.input(1).numel() == groups && groups != channels;
    std::vector<double> scale = channelParam(ctx, 1, perGroup ? groups : channels, "scale");
    std::vector<double> bias = channelParam(ctx, 2, perGroup ? groups : channels, "bias");
    const int64_t blockSize = channels / groups * perChannel;
    Tensor y(x.dtype(), x.shape());
    visitFloat(x.dtype(), [&]<typename T>() {
        normalizeBlocks(x.data<T>(), y.data<T>(), x.shape()[0] * groups, blockSize, ctx.attrFloat("epsilon", 1e-5f),
                        perGroup ? blockSize : perChannel, scale, bias);
    }, "GroupNormalization");
    ctx.setOutput(0, std::move(y));
}

// Opset 17: normalizes over axes [axis, rank); Scale and B broadcast to those axes. Optional outputs Mean and
// InvStdDev keep X's rank with ones on the normalized axes.
void layerNormalization(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const int64_t rank = static_cast<int64_t>(x.rank());
    const int64_t axis = normalizeAxis(ctx.attrInt("axis", -1), rank);
    const double epsilon = ctx.attrFloat("epsilon", 1e-5f);
    const Shape normShape(x.shape().begin() + axis, x.shape().end());
    const int64_t cols = shapeNumel(normShape), rows = cols == 0 ? 0 : x.numel() / cols;
    auto paramIndex = [&](size_t input) {
        const Shape& s = ctx.input(input).shape();
        if (s.size() > normShape.size() || broadcastShapes({normShape, s}) != normShape)
            ctx.fail("input " + std::to_string(input) + " " + shapeToString(s) + " does not broadcast to " +
                     shapeToString(normShape));
        return BroadcastIndex(normShape, s).all();
    };
    const std::vector<int64_t> scaleIdx = paramIndex(1);
    const std::vector<float> scaleV = ctx.input(1).toFloatVector();
    std::vector<int64_t> biasIdx;
    std::vector<float> biasV;
    if (ctx.hasInput(2)) {
        biasIdx = paramIndex(2);
        biasV = ctx.input(2).toFloatVector();
    }
    std::vector<double> means(static_cast<size_t>(rows)), invStd(static_cast<size_t>(rows));
    Tensor y(x.dtype(), x.shape());
    visitFloat(x.dtype(), [&]<typename T>() {
        const T* src = x.data<T>();
        T* dst = y.data<T>();
        for (int64_t r = 0; r < rows; ++r) {
            double mean = 0.0, var = 0.0;
            meanVariance(src + r * cols, cols, mean, var);
            const double inv = 1.0 / std::sqrt(var + epsilon);
            means[static_cast<size_t>(r)] = mean;
            invStd[static_cast<size_t>(r)] = inv;
            for (int64_t i = 0; i < cols; ++i) {
                const size_t k = static_cast<size_t>(i);
                double v = (static_cast<double>(src[r * cols + i]) - mean) * inv * scaleV[static_cast<size_t>(scaleIdx[k])];
                if (!biasV.empty()) v += biasV[static_cast<size_t>(biasIdx[k])];
                dst[r * cols + i] = static_cast<T>(v);
            }
        }
    }, "LayerNormalization");
    ctx.setOutput(0, std::move(y));
    Shape statShape(x.shape().begin(), x.shape().begin() + axis);
    statShape.resize(x.rank(), 1);
    // stash_type 1 (the default) keeps the statistics in float; anything else uses X's type.
    const DType statType = ctx.attrInt("stash_type", 1) == 1 ? DType::F32 : x.dtype();
    if (ctx.wantsOutput(1)) ctx.setOutput(1, doublesAs(statType, statShape, means));
    if (ctx.wantsOutput(2)) ctx.setOutput(2, doublesAs(statType, statShape, invStd));
}

}  // namespace

NPUWB_KERNEL("BatchNormalization", batchNormalization);
NPUWB_KERNEL("InstanceNormalization", instanceNormalization);
NPUWB_KERNEL("GroupNormalization", groupNormalization);
NPUWB_KERNEL("LayerNormalization", layerNormalization);

}  // namespace npuwb::nn
