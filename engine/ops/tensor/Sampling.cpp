// Ops that sample a feature map at fractional positions: GridSample (follows torch.nn.functional.grid_sample,
// which generated the ONNX expected outputs) and RoiAlign (follows the onnxruntime / Detectron reference).
#include <algorithm>
#include <array>
#include <cmath>

#include "ops/KernelUtil.h"
#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb {
namespace {

using namespace tensorops;

// ---- GridSample -------------------------------------------------------------------------------------------

struct GridOptions {
    std::string mode;     // bilinear | nearest | bicubic
    std::string padding;  // zeros | border | reflection
    bool alignCorners = false;
};

/// Grid value in [-1, 1] to a pixel coordinate.
double unnormalize(double coord, int64_t size, bool alignCorners) {
    double s = static_cast<double>(size);
    return alignCorners ? (coord + 1) / 2 * (s - 1) : ((coord + 1) * s - 1) / 2;
}

/// Mirrors `x` into [twiceLow/2, twiceHigh/2] (torch's reflect_coordinates).
double reflect(double x, double twiceLow, double twiceHigh) {
    if (twiceLow == twiceHigh) return 0.0;
    double low = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
    x = std::fabs(x - low);
    double extra = std::fmod(x, span);
    if (!std::isfinite(x)) return x;  // stays outside the image: padding decides what is read
    int64_t flips = saturatedInteger(std::floor(x / span));
    return flips % 2 == 0 ? extra + low : span - extra + low;
}

/// Applies the padding mode to a pixel coordinate (zeros leaves it alone; reads outside then give 0).
double applyPadding(double x, int64_t size, const GridOptions& o) {
    double hi = static_cast<double>(size - 1);
    if (o.padding == "border") return std::clamp(x, 0.0, hi);
    if (o.padding == "reflection") {
        double s = static_cast<double>(size);
        x = o.alignCorners ? reflect(x, 0, 2 * (s - 1)) : reflect(x, -1, 2 * s - 1);
        return std::clamp(x, 0.0, hi);
    }
    return x;
}

std::array<double, 4> cubicWeights(double t) {
    const double a = -0.75;  // torch's bicubic constant
    auto near = [&](double x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
    auto far = [&](double x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
    return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

/// Value of one channel plane (h x w) at the unnormalized grid position (gx, gy).
double samplePlane(const double* plane, int64_t h, int64_t w, double gx, double gy, const GridOptions& o) {
    auto at = [&](int64_t yy, int64_t xx) {  // reads outside the image give 0
        return (yy < 0 || yy >= h || xx < 0 || xx >= w) ? 0.0 : plane[yy * w + xx];
    };
    if (o.mode == "nearest") {
        double px = applyPadding(gx, w, o), py = applyPadding(gy, h, o);
        return at(static_cast<int64_t>(std::nearbyint(py)), static_cast<int64_t>(std::nearbyint(px)));
    }
    if (o.mode == "bilinear") {
        double px = applyPadding(gx, w, o), py = applyPadding(gy, h, o);
        double x0 = std::floor(px), y0 = std::floor(py);
        double tx = px - x0, ty = py - y0;
        auto xi = static_cast<int64_t>(x0), yi = static_cast<int64_t>(y0);
        return at(yi, xi) * (1 - tx) * (1 - ty) + at(yi, xi + 1) * tx * (1 - ty) + at(yi + 1, xi) * (1 - tx) * ty +
               at(yi + 1, xi + 1) * tx * ty;
    }
    // bicubic: the padding mode applies to each of the 4x4 taps, not to the centre.
    double x0 = std::floor(gx), y0 = std::floor(gy);
    auto wx = cubicWeights(gx - x0), wy = cubicWeights(gy - y0);
    double v = 0.0;
    for (size_t r = 0; r < 4; ++r) {
        double py = applyPadding(y0 - 1 + static_cast<double>(r), h, o);
        for (size_t k = 0; k < 4; ++k) {
            double px = applyPadding(x0 - 1 + static_cast<double>(k), w, o);
            v += wy[r] * wx[k] * at(static_cast<int64_t>(py), static_cast<int64_t>(px));
        }
    }
    return v;
}

void gridSample(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& grid = ctx.input(1);
    if (x.rank() != 4 || grid.rank() != 4 || grid.shape()[3] != 2 || grid.shape()[0] != x.shape()[0])
        ctx.fail("expects X (N,C,H,W) and grid (N,H_out,W_out,2)");
    if (!isFloat(x.dtype())) ctx.failUnsupported("X must be a floating-point tensor");
    GridOptions o{ctx.attrString("mode", "bilinear"), ctx.attrString("padding_mode", "zeros"),
                  ctx.attrInt("align_corners", 0) != 0};
    if (o.mode != "bilinear" && o.mode != "nearest" && o.mode != "bicubic")
        ctx.failUnsupported("mode '" + o.mode + "'");
    if (o.padding != "zeros" && o.padding != "border" && o.padding != "reflection")
        ctx.failUnsupported("padding_mode '" + o.padding + "'");
    int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
    int64_t oh = grid.shape()[1], ow = grid.shape()[2];
    std::vector<double> in = toDoubles(x), g = toDoubles(grid);
    std::vector<double> out(uz(n * c * oh * ow));
    for (int64_t b = 0; b < n; ++b)
        for (int64_t p = 0; p < oh * ow; ++p) {
            double gx = unnormalize(g[uz((b * oh * ow + p) * 2)], w, o.alignCorners);
            double gy = unnormalize(g[uz((b * oh * ow + p) * 2 + 1)], h, o.alignCorners);
            for (int64_t ch = 0; ch < c; ++ch)
                out[uz((b * c + ch) * oh * ow + p)] = samplePlane(in.data() + (b * c + ch) * h * w, h, w, gx, gy, o);
        }
    ctx.setOutput(0, fromDoubles(x.dtype(), {n, c, oh, ow}, out));
}

// ---- RoiAlign ---------------------------------------------------------------------------------------------

/// The four weighted corner values of a bilinear sample at (y, x) with the onnxruntime edge rules (all 0 far
/// outside the map, clamped near its border). "avg" sums them; "max" keeps the largest, as onnxruntime does.
std::array<double, 4> roiCorners(const double* plane, int64_t h, int64_t w, double y, double x) {
    if (y < -1.0 || y > static_cast<double>(h) || x < -1.0 || x > static_cast<double>(w)) return {0, 0, 0, 0};
    y = std::max(y, 0.0);
    x = std::max(x, 0.0);
    auto yl = static_cast<int64_t>(y), xl = static_cast<int64_t>(x);
    int64_t yh = yl + 1, xh = xl + 1;
    if (yl >= h - 1) { yh = yl = h - 1; y = static_cast<double>(yl); }
    if (xl >= w - 1) { xh = xl = w - 1; x = static_cast<double>(xl); }
    double ly = y - static_cast<double>(yl), lx = x - static_cast<double>(xl), hy = 1 - ly, hx = 1 - lx;
    auto v = [&](int64_t yy, int64_t xx) { return plane[yy * w + xx]; };
    return {hy * hx * v(yl, xl), hy * lx * v(yl, xh), ly * hx * v(yh, xl), ly * lx * v(yh, xh)};
}

/// One RoI in feature-map coordinates and its sampling grid per output bin.
struct RoiBins {
    double y0, x0, binH, binW;
    int64_t gridH, gridW;
};

/// Pools output bin (i, j) of one RoI over one channel plane.
double poolBin(const double* plane, int64_t h, int64_t w, const RoiBins& r, int64_t i, int64_t j, bool maxMode) {
    double acc = 0.0;
    bool first = true;
    for (int64_t iy = 0; iy < r.gridH; ++iy)
        for (int64_t ix = 0; ix < r.gridW; ++ix) {
            double fy = (static_cast<double>(iy) + 0.5) / static_cast<double>(r.gridH);  // position inside the bin
            double fx = (static_cast<double>(ix) + 0.5) / static_cast<double>(r.gridW);
            double y = r.y0 + (static_cast<double>(i) + fy) * r.binH;
            double x = r.x0 + (static_cast<double>(j) + fx) * r.binW;
            auto c = roiCorners(plane, h, w, y, x);
            if (!maxMode) {
                acc += c[0] + c[1] + c[2] + c[3];
                continue;
            }
            double v = std::max({c[0], c[1], c[2], c[3]});
            acc = first ? v : std::max(acc, v);
            first = false;
        }
    return maxMode ? acc : acc / static_cast<double>(std::max<int64_t>(r.gridH * r.gridW, 1));
}

void roiAlign(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& rois = ctx.input(1);
    const Tensor& batchIndices = ctx.input(2);
    if (x.rank() != 4 || rois.rank() != 2 || rois.shape()[1] != 4) ctx.fail("expects X (N,C,H,W) and rois (R,4)");
    if (!isFloat(x.dtype())) ctx.failUnsupported("X must be a floating-point tensor");
    int64_t r = rois.shape()[0], n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
    if (batchIndices.numel() != r) ctx.fail("batch_indices must have one entry per roi");
    std::string mode = ctx.attrString("mode", "avg");
    if (mode != "avg" && mode != "max") ctx.fail("unknown mode '" + mode + "'");
    int64_t ph = ctx.attrInt("output_height", 1), pw = ctx.attrInt("output_width", 1);
    int64_t samplingRatio = ctx.attrInt("sampling_ratio", 0);
    double scale = ctx.attrFloat("spatial_scale", 1.0f);
    // RoiAlign-10 had no coordinate_transformation_mode and behaved like "output_half_pixel".
    std::string defaultMode = ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel";
    bool halfPixel = ctx.attrString("coordinate_transformation_mode", defaultMode) == "half_pixel";
    double offset = halfPixel ? 0.5 : 0.0;
    std::vector<double> in = toDoubles(x), box = toDoubles(rois);
    std::vector<double> out(uz(r * c * ph * pw));
    for (int64_t k = 0; k < r; ++k) {
        int64_t b = batchIndices.elementAsInt(k);
        if (b < 0 || b >= n) ctx.fail("batch index " + std::to_string(b) + " is out of range");
        const double* roi = box.data() + k * 4;  // [x1, y1, x2, y2] in input-image coordinates
        double x0 = roi[0] * scale - offset, y0 = roi[1] * scale - offset;
        double roiW = roi[2] * scale - offset - x0, roiH = roi[3] * scale - offset - y0;
        if (!halfPixel) {  // legacy mode forces RoIs to be at least one pixel
            roiW = std::max(roiW, 1.0);
            roiH = std::max(roiH, 1.0);
        }
        double binH = roiH / static_cast<double>(ph), binW = roiW / static_cast<double>(pw);
        RoiBins bins{y0, x0, binH, binW, samplingRatio > 0 ? samplingRatio : integerFrom(std::ceil(binH), "RoiAlign's bin height"),
                     samplingRatio > 0 ? samplingRatio : integerFrom(std::ceil(binW), "RoiAlign's bin width")};
        for (int64_t ch = 0; ch < c; ++ch) {
            const double* plane = in.data() + (b * c + ch) * h * w;
            for (int64_t i = 0; i < ph; ++i)
                for (int64_t j = 0; j < pw; ++j)
                    out[uz(((k * c + ch) * ph + i) * pw + j)] = poolBin(plane, h, w, bins, i, j, mode == "max");
        }
    }
    ctx.setOutput(0, fromDoubles(x.dtype(), {r, c, ph, pw}, out));
}

}  // namespace

NPUWB_KERNEL("GridSample", gridSample);
NPUWB_KERNEL("RoiAlign", roiAlign);

}  // namespace npuwb
