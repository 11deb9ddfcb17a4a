// Resize (opset 10/11/13+) and Upsample (opset 7/9): nearest / linear / cubic interpolation, written to follow the
// ONNX reference implementation (onnx/backend/test/case/node/resize.py) step by step, because that code produced
// the expected outputs: every axis is interpolated separately, outer axes first, from a window of 2 (nearest,
// linear) or 4 (cubic) neighbours chosen in an edge-padded copy of the axis.
#include <cmath>

#include "npuwb/Limits.h"
#include "ops/KernelUtil.h"
#include "ops/Parallel.h"
#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb {
namespace {

using namespace tensorops;

struct ResizeOptions {
    std::string mode = "nearest";                       // nearest | linear | cubic
    std::string coordinateMode = "half_pixel";          // how an output coordinate maps into the input
    std::string nearestMode = "round_prefer_floor";
    double cubicA = -0.75;
    bool excludeOutside = false;
    double extrapolation = 0.0;
};

/// The taps of one output coordinate on one axis: input indices (already clamped, i.e. edge padding applied) and
/// their weights; `outside` means tf_crop_and_resize put the point outside the input (use the extrapolation value).
struct AxisTaps {
    bool outside = false;
    std::vector<int64_t> index;
    std::vector<double> weight;
};

std::vector<double> tapWeights(const ResizeOptions& o, double ratio) {
    if (o.mode == "linear") return {1.0 - ratio, ratio};
    if (o.mode == "cubic") {
        double a = o.cubicA, r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
        return {((a * r1 - 5 * a) * r1 + 8 * a) * r1 - 4 * a, ((a + 2) * ratio - (a + 3)) * ratio * ratio + 1,
                ((a + 2) * q - (a + 3)) * q * q + 1, ((a * q1 - 5 * a) * q1 + 8 * a) * q1 - 4 * a};
    }
    if (ratio == 1.0) return {0, 1};  // nearest: `ratio` is 1 exactly when the source coordinate is an integer
    const std::string& m = o.nearestMode;
    if (m == "round_prefer_floor") return {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0};
    if (m == "round_prefer_ceil") return {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
    if (m == "floor") return {1, 0};
    return {0, 1};  // ceil
}

AxisTaps axisTaps(const KernelContext& ctx, const ResizeOptions& o, int64_t x, int64_t inWidth, double scale,
                  double roiStart, double roiEnd) {
    double outWidth = scale * static_cast<double>(inWidth);  // not rounded: the reference uses it as is
    double xd = static_cast<double>(x), in1 = static_cast<double>(inWidth - 1);
    const std::string& cm = o.coordinateMode;
    double src = 0.0;
    AxisTaps taps;
    if (cm == "align_corners") {
        src = outWidth == 1.0 ? 0.0 : xd * in1 / (outWidth - 1);
    } else if (cm == "asymmetric") {
        src = xd / scale;
    } else if (cm == "tf_crop_and_resize") {
        src = outWidth == 1.0 ? (roiEnd - roiStart) * in1 / 2 : xd * (roiEnd - roiStart) * in1 / (outWidth - 1);
        src += roiStart * in1;
        if (src < 0 || src > in1) { taps.outside = true; return taps; }
    } else if (cm == "pytorch_half_pixel") {
        src = outWidth == 1.0 ? -0.5 : (xd + 0.5) / scale - 0.5;
    } else if (cm == "half_pixel") {
        src = (xd + 0.5) / scale - 0.5;
    } else if (cm == "tf_half_pixel_for_nn") {
        src = (xd + 0.5) / scale;
    } else {
        ctx.fail("unknown coordinate_transformation_mode '" + cm + "'");
    }
    double srcFloor = std::floor(src);
    double ratio = src == srcFloor ? 1.0 : src - srcFloor;  // in (0, 1]: prefer the left neighbour
    taps.weight = tapWeights(o, ratio);
    int64_t n = static_cast<int64_t>(taps.weight.size());
    // The n nearest indices of the edge-padded axis (pad = ceil(n/2)), ties to the smaller index: a window that
    // starts at ceil(src) - n/2, shifted to stay inside the padded axis.
    int64_t pad = (n + 1) / 2;
    int64_t paddedWidth = inWidth + 2 * pad;
    int64_t first = saturatedInteger(std::ceil(src + static_cast<double>(pad))) - n / 2;
    first = std::clamp<int64_t>(first, 0, std::max<int64_t>(paddedWidth - n, 0));
    double kept = 0.0;
    for (int64_t k = 0; k < n; ++k) {
        int64_t original = first + k - pad;
        if (o.excludeOutside && (original < 0 || original >= inWidth)) taps.weight[uz(k)] = 0.0;
        kept += taps.weight[uz(k)];
        taps.index.push_back(std::clamp<int64_t>(original, 0, inWidth - 1));
    }
    if (o.excludeOutside && kept != 0.0)
        for (double& w : taps.weight) w /= kept;
    return taps;
}

/// Interpolated value at output coordinate `coord`, axis by axis from the outermost (recursion on `axis`).
double interpolate(const std::vector<double>& data, const std::vector<std::vector<AxisTaps>>& taps,
                   const std::vector<int64_t>& strides, const std::vector<int64_t>& coord, size_t axis,
                   int64_t offset, double extrapolation) {
    if (axis == coord.size()) return data[uz(offset)];
    const AxisTaps& t = taps[axis][uz(coord[axis])];
    if (t.outside) return extrapolation;
    double sum = 0.0;
    for (size_t k = 0; k < t.index.size(); ++k) {
        if (t.weight[k] == 0.0) continue;  // most taps of nearest (and of unscaled axes) are exactly zero
        sum += t.weight[k] * interpolate(data, taps, strides, coord, axis + 1, offset + t.index[k] * strides[axis],
                                         extrapolation);
    }
    return sum;
}

/// Nearest neighbour (every tap set has one weight 1, nothing outside): a gather of whole elements, no arithmetic, on
/// kernelThreads() threads. Only for types a double holds exactly, so it matches the interpolation path bit for bit.
bool nearestGather(KernelContext& ctx, const Tensor& x, const Shape& outShape,
                   const std::vector<std::vector<AxisTaps>>& taps) {
    const DType t = x.dtype();
    if (t != DType::F32 && t != DType::F16 && t != DType::U8 && t != DType::I8 && t != DType::I32 && t != DType::U16 &&
        t != DType::I16)
        return false;
    const size_t rank = outShape.size();
    if (rank == 0 || shapeNumel(outShape) == 0) return false;
    const std::vector<int64_t> strides = stridesOf(x.shape());
    std::vector<std::vector<int64_t>> source(rank);  // per axis and output coordinate: the input offset
    for (size_t d = 0; d < rank; ++d)
        for (const AxisTaps& tap : taps[d]) {
            if (tap.outside) return false;
            int64_t pick = -1;
            for (size_t k = 0; k < tap.weight.size(); ++k) {
                if (tap.weight[k] == 0.0) continue;
                if (tap.weight[k] != 1.0 || pick >= 0) return false;
                pick = tap.index[k];
            }
            if (pick < 0) return false;
            source[d].push_back(pick * strides[d]);
        }
    Tensor out = Tensor::uninitialized(t, outShape);
    const int64_t inner = outShape.back(), rows = shapeNumel(outShape) / inner;
    visitAny(t, [&]<typename T>() {
        if constexpr (std::is_trivially_copyable_v<T>) {
            const T* in = x.data<T>();
            T* o = out.data<T>();
            parallelFor(rows, inner, [&](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) {
                    int64_t offset = 0;
                    for (int64_t rest = r, d = static_cast<int64_t>(rank) - 2; d >= 0; --d) {
                        offset += source[uz(d)][uz(rest % outShape[uz(d)])];
                        rest /= outShape[uz(d)];
                    }
                    const std::vector<int64_t>& last = source.back();
                    T* row = o + r * inner;
                    for (int64_t j = 0; j < inner; ++j) row[j] = in[offset + last[uz(j)]];
                }
            });
        }
    }, "Resize");
    ctx.setOutput(0, std::move(out));
    return true;
}

/// Output shape from scales (floor of in * scale) or sizes, then the interpolation itself.
void runResize(KernelContext& ctx, const ResizeOptions& o, std::vector<double> scales,
               const std::vector<int64_t>& sizes,
               const std::vector<double>& roi) {
    const Tensor& x = ctx.input(0);
    size_t rank = x.rank();
    Shape outShape(rank);
    if (!sizes.empty()) {
        if (sizes.size() != rank) ctx.fail("sizes must have one entry per input axis");
        scales.assign(rank, 1.0);
        for (size_t d = 0; d < rank; ++d) {
            outShape[d] = sizes[d];
            scales[d] = x.shape()[d] == 0 ? 1.0 : static_cast<double>(sizes[d]) / static_cast<double>(x.shape()[d]);
        }
    } else {
        if (scales.size() != rank) ctx.fail("scales must have one entry per input axis");
        for (size_t d = 0; d < rank; ++d) {
            if (scales[d] <= 0) ctx.fail("scales must be positive");
            const double size = scales[d] * static_cast<double>(x.shape()[d]);
            if (!(size < 0x1p62)) ctx.fail("scales give an output dimension too large to count");
            outShape[d] = static_cast<int64_t>(size);
        }
    }
    // The output and this kernel's double-precision work buffer, checked before the tap tables are built.
    const uint64_t outBytes = tensorByteSize(x.dtype(), outShape);
    const uint64_t workBytes = tensorByteSize(DType::F64, outShape);
    const uint64_t total = outBytes > UINT64_MAX - workBytes ? UINT64_MAX : outBytes + workBytes;
    if (!withinMemoryBudget(total))
        checkMemoryBudget(total, "the " + std::string(dtypeName(x.dtype())) + " output of shape " +
                                                    shapeToString(outShape) + " and its work buffer");
    if (o.coordinateMode == "tf_crop_and_resize" && roi.size() != 2 * rank)
        ctx.fail("tf_crop_and_resize needs roi with 2 entries per axis");

    std::vector<std::vector<AxisTaps>> taps(rank);
    for (size_t d = 0; d < rank; ++d) {
        double r0 = roi.size() == 2 * rank ? roi[d] : 0.0, r1 = roi.size() == 2 * rank ? roi[d + rank] : 1.0;
        for (int64_t c = 0; c < outShape[d]; ++c)
            taps[d].push_back(axisTaps(ctx, o, c, x.shape()[d], scales[d], r0, r1));
    }
    if (x.dtype() == DType::Bool || x.dtype() == DType::String) ctx.failUnsupported("Resize needs a numeric tensor");
    if (o.mode == "nearest" && nearestGather(ctx, x, outShape, taps)) return;
    std::vector<double> data = toDoubles(x);
    std::vector<int64_t> strides = stridesOf(x.shape());
    std::vector<double> out;
    out.reserve(uz(shapeNumel(outShape)));
    forEachCoord(outShape, [&](const std::vector<int64_t>& c) {
        if ((out.size() & 0xffff) == 0) checkRunLimits();  // a long kernel: cancel and time limit still apply
        out.push_back(interpolate(data, taps, strides, c, 0, 0, o.extrapolation));
    });
    ctx.setOutput(0, fromDoubles(x.dtype(), outShape, out));
}

void resize(KernelContext& ctx) {
    ResizeOptions o;
    o.mode = ctx.attrString("mode", "nearest");
    if (o.mode != "nearest" && o.mode != "linear" && o.mode != "cubic") ctx.failUnsupported("mode '" + o.mode + "'");
    if (ctx.opset() < 11) {  // Resize-10: inputs (X, scales); behaves like Upsample
        o.coordinateMode = "asymmetric";
        o.nearestMode = "floor";
        return runResize(ctx, o, toDoubles(ctx.input(1)), {}, {});
    }
    o.coordinateMode = ctx.attrString("coordinate_transformation_mode", "half_pixel");
    o.nearestMode = ctx.attrString("nearest_mode", "round_prefer_floor");
    o.cubicA = ctx.attrFloat("cubic_coeff_a", -0.75f);
    o.excludeOutside = ctx.attrInt("exclude_outside", 0) != 0;
    o.extrapolation = ctx.attrFloat("extrapolation_value", 0.0f);
    // roi, scales and sizes are optional inputs; an empty tensor also means "not given".
    auto optional = [&](size_t i) { return ctx.hasInput(i) && ctx.input(i).numel() > 0; };
    std::vector<double> roi = optional(1) ? toDoubles(ctx.input(1)) : std::vector<double>{};
    std::vector<double> scales = optional(2) ? toDoubles(ctx.input(2)) : std::vector<double>{};
    std::vector<int64_t> sizes = optional(3) ? ctx.input(3).toInt64Vector() : std::vector<int64_t>{};
    if (scales.empty() == sizes.empty()) ctx.fail("exactly one of scales and sizes must be given");
    if (ctx.attrInt("antialias", 0) != 0) ctx.failUnsupported("antialias is not supported");
    if (ctx.attrString("keep_aspect_ratio_policy", "stretch") != "stretch")
        ctx.failUnsupported("keep_aspect_ratio_policy other than 'stretch' is not supported");
    if (ctx.hasAttr("axes")) {  // Resize-18: roi/scales/sizes list only these axes; the others stay unchanged
        size_t rank = ctx.input(0).rank();
        std::vector<double> fullScales(rank, 1.0), fullRoi;
        std::vector<int64_t> fullSizes = ctx.input(0).shape();
        std::vector<int64_t> axes = ctx.attrInts("axes");
        if (!roi.empty()) {
            fullRoi.assign(rank, 0.0);
            fullRoi.resize(2 * rank, 1.0);
        }
        for (size_t i = 0; i < axes.size(); ++i) {
            size_t a = uz(normalizeAxis(axes[i], static_cast<int64_t>(rank)));
            if (!scales.empty() && i < scales.size()) fullScales[a] = scales[i];
            if (!sizes.empty() && i < sizes.size()) fullSizes[a] = sizes[i];
            if (!roi.empty() && i + axes.size() < roi.size()) {
                fullRoi[a] = roi[i];
                fullRoi[a + rank] = roi[i + axes.size()];
            }
        }
        if (!scales.empty()) scales = fullScales;
        if (!sizes.empty()) sizes = fullSizes;
        roi = fullRoi;
    }
    runResize(ctx, o, scales, sizes, roi);
}

void upsample(KernelContext& ctx) {
    ResizeOptions o;
    o.mode = ctx.attrString("mode", "nearest");
    if (o.mode == "bilinear") o.mode = "linear";  // Upsample-1 spelling
    if (o.mode != "nearest" && o.mode != "linear") ctx.failUnsupported("mode '" + o.mode + "'");
    o.coordinateMode = "asymmetric";
    o.nearestMode = "floor";
    std::vector<double> scales;
    if (ctx.opset() >= 9) {
        scales = toDoubles(ctx.input(1));
    } else {
        for (float s : ctx.attrFloats("scales")) scales.push_back(s);
    }
    runResize(ctx, o, scales, {}, {});
}

}  // namespace

NPUWB_KERNEL("Resize", resize);
NPUWB_KERNEL("Upsample", upsample);

}  // namespace npuwb
