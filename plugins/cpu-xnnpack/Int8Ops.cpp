// The qs8 path of the XNNPACK backend. QDQ graphs are matched at lowering time, not rewritten in the user's graph:
//   DQ(x_q) -> Conv/Gemm/MatMul(W = folded DQ(w_s8), B = folded DQ(b_s32)) -> [Relu|Clip] -> Q  one qc8 convolution
//   QLinearConv / QLinearMatMul                                                               the same
//   DQ(a_q), DQ(b_q) -> Add -> [Relu|Clip] -> Q                                               xnn add_nd_qs8
//   DQ(x_q) -> MaxPool -> Q (same parameters)                                                 xnn max_pooling_s8
//   DQ(x_q) -> GlobalAveragePool -> Q                                                         xnn global avg pool qs8
//   DQ(a_q), DQ(b_q), ... -> Concat -> Q                                                     strided copies (inputs
//                                                                                             with other parameters
//                                                                                             requantized exactly)
//   Flatten/Reshape of DQ(x_q) without data movement                                          an int8 alias
// Gemm/MatMul run as 1x1 qc8 convolutions: this XNNPACK (Debian 0.0~git20220216) has per-channel int8 weights only in
// its convolution operator. DequantizeLinear is lazy (a convert step only when a float consumer reads it), and
// Q(DQ(x)) with the same real parameters is x itself. Everything else runs in float between exact Q/DQ steps.
#include <cmath>
#include <cstring>

#include "Layout.h"
#include "Ops.h"
#include "Window.h"

namespace npuwb::xnn {
namespace {

struct Int8Value {
    int id = -1;
    QuantInfo info;
};

/// The int8 value behind a dequantized float input, read by the current step.
std::optional<Int8Value> int8Input(LowerContext& ctx, const std::string& name) {
    const Dequantized* d = ctx.dequantized(name);
    if (!d) return std::nullopt;
    ctx.segment().touch(d->source, ctx.segment().nextStep());
    return Int8Value{d->source, d->info};
}

/// True when every named input is a dequantized int8 value (checked before anything is read).
bool allDequantized(const LowerContext& ctx, const std::vector<std::string>& names) {
    for (const std::string& n : names)
        if (n.empty() || !ctx.dequantized(n)) return false;
    return !names.empty();
}

/// The output clamp of a group (Relu/Clip folded into it) in stored int8 units of `y`; false for an empty range.
bool storedClamp(const FusedGroup& g, const QuantInfo& y, int8_t& lo, int8_t& hi) {
    lo = std::isinf(g.outputMin) ? int8_t{-128} : quantizeStored(g.outputMin, y);
    hi = std::isinf(g.outputMax) ? int8_t{127} : quantizeStored(g.outputMax, y);
    return lo < hi;  // XNNPACK needs a non-empty range
}

/// A qc8 convolution over NHWC int8 data (Gemm/MatMul: batch rows of 1x1 pixels). Weights OHWI, per-channel scales.
struct Qc8Conv {
    Window window;
    uint32_t groups = 1;
    size_t groupIn = 0, groupOut = 0;
    std::vector<int8_t> weights;
    std::vector<float> scales;
    std::vector<int32_t> bias;
    size_t batch = 0, height = 1, width = 1;
};

/// Creates the operator; nullptr when XNNPACK refuses the parameters (e.g. a requantization scale >= 256).
xnn_operator_t createQc8(const Qc8Conv& c, const QuantInfo& x, const QuantInfo& y, int8_t lo, int8_t hi) {
    for (float s : c.scales) {
        const float requant = x.scale * s / y.scale;
        if (!(requant >= 0x1.0p-32f && requant < 256.f)) return nullptr;
    }
    xnn_operator_t op = nullptr;
    const Window& w = c.window;
    const xnn_status status = xnn_create_convolution2d_nhwc_qc8(
        w.padTop, w.padRight, w.padBottom, w.padLeft, w.kernelH, w.kernelW, w.strideH, w.strideW, w.dilationH,
        w.dilationW, c.groups, c.groupIn, c.groupOut, c.groups * c.groupIn, c.groups * c.groupOut,
        static_cast<int8_t>(x.storedZero()), x.scale, c.scales.data(), c.weights.data(), c.bias.data(),
        static_cast<int8_t>(y.storedZero()), y.scale, lo, hi, 0, &op);
    return status == xnn_status_success ? op : nullptr;
}

void addQc8Step(LowerContext& ctx, const FusedGroup& g, xnn_operator_t op, const Qc8Conv& c, int x, int y) {
    XnnSegment* seg = &ctx.segment();
    const size_t batch = c.batch, height = c.height, width = c.width;
    ctx.addStep(g, op, [=] {
        return xnn_setup_convolution2d_nhwc_qc8(op, batch, height, width, seg->as<int8_t>(x), seg->as<int8_t>(y),
                                                seg->pool());
    });
}

/// OIHW -> OHWI, as the float convolution repacks.
std::vector<int8_t> toOhwi(std::span<const int8_t> oihw, size_t m, size_t cg, size_t khw) {
    std::vector<int8_t> out(oihw.size());
    for (size_t o = 0; o < m; ++o)
        for (size_t i = 0; i < cg; ++i)
            for (size_t k = 0; k < khw; ++k) out[(o * khw + k) * cg + i] = oihw[(o * cg + i) * khw + k];
    return out;
}

/// Conv geometry and repacked weights; false when the window does not resolve.
bool convGeometry(const Node& n, const Shape& xs, const Shape& ys, const Shape& ws, Int8Weights w, Qc8Conv& c) {
    std::string why;
    const auto window = resolveWindow(n, xs, ys, ws[2], ws[3], false, why);
    if (!window || xs.size() != 4) return false;
    const auto m = static_cast<size_t>(ws[0]), cg = static_cast<size_t>(ws[1]);
    c.window = *window;
    c.groups = static_cast<uint32_t>(n.attrInt("group", 1));
    c.groupIn = cg;
    c.groupOut = m / c.groups;
    c.weights = toOhwi(w.values, m, cg, static_cast<size_t>(ws[2] * ws[3]));
    c.scales = std::move(w.scales);
    c.batch = static_cast<size_t>(xs[0]), c.height = static_cast<size_t>(xs[2]), c.width = static_cast<size_t>(xs[3]);
    return true;
}

/// Matrix product geometry: [M,K] x [K,N] as M pixels of a 1x1 convolution; `kn` weights are transposed to [N,K].
void matmulGeometry(const Shape& xs, int64_t n, bool kn, Int8Weights w, Qc8Conv& c) {
    const auto rows = static_cast<size_t>(xs[0]), k = static_cast<size_t>(xs[1]), cols = static_cast<size_t>(n);
    c.groupIn = k, c.groupOut = cols, c.batch = rows;
    c.weights.assign(w.values.begin(), w.values.end());
    if (kn) {
        std::vector<int8_t> t(c.weights.size());
        for (size_t i = 0; i < k; ++i)
            for (size_t j = 0; j < cols; ++j) t[j * k + i] = c.weights[i * cols + j];
        c.weights = std::move(t);
    }
    c.scales = std::move(w.scales);
}

/// DQ(x) -> Conv/Gemm/MatMul -> [Relu|Clip] -> Q as one qc8 convolution.
bool lowerInt8Matmul(LowerContext& ctx, const FusedGroup& g) {
    const Node& n = *g.main;
    if (!g.quantize || g.batchNorm || n.inputs.size() < 2 || !allDequantized(ctx, {n.inputs[0]})) return false;
    const auto y = quantOf(ctx.query(), *g.quantize);
    const Tensor* wt = ctx.constant(n.inputs[1]);
    if (!y || !wt) return false;
    const Shape& xs = ctx.desc(n.inputs[0]).shape;
    const Shape& ws = wt->shape();
    const QuantInfo x = ctx.dequantized(n.inputs[0])->info;
    Qc8Conv c;
    if (n.opType == "Conv") {
        if (ws.size() != 4) return false;
        auto w = int8WeightsOf(ctx.query(), n.inputs[1], 0, ws[0]);
        if (!w || !convGeometry(n, xs, ctx.desc(g.output).shape, ws, std::move(*w), c)) return false;
    } else {
        if (xs.size() != 2 || ws.size() != 2) return false;
        if (n.opType == "Gemm" && (n.attrInt("transA", 0) || n.attrFloat("alpha", 1.f) != 1.f ||
                                   (n.inputs.size() > 2 && !n.inputs[2].empty() && n.attrFloat("beta", 1.f) != 1.f)))
            return false;
        const bool transB = n.opType == "Gemm" && n.attrInt("transB", 0);
        const int64_t cols = transB ? ws[0] : ws[1];
        if ((transB ? ws[1] : ws[0]) != xs[1]) return false;
        auto w = int8WeightsOf(ctx.query(), n.inputs[1], transB ? 0 : 1, cols);
        if (!w) return false;
        matmulGeometry(xs, cols, !transB, std::move(*w), c);
    }
    const std::string biasName = n.opType != "MatMul" && n.inputs.size() > 2 ? n.inputs[2] : std::string();
    if (!biasName.empty() && !ctx.constant(biasName)) return false;
    c.bias = accumulatorBias(ctx.query(), biasName, x.scale, c.scales);
    int8_t lo = 0, hi = 0;
    if (!storedClamp(g, *y, lo, hi)) return false;
    xnn_operator_t op = createQc8(c, x, *y, lo, hi);
    if (!op) return false;
    const int xid = int8Input(ctx, n.inputs[0])->id;
    addQc8Step(ctx, g, op, c, xid, ctx.write(g.output));
    return true;
}

/// DQ(a), DQ(b) -> Add -> [Relu|Clip] -> Q on XNNPACK's qs8 add (same shapes only).
bool lowerInt8Add(LowerContext& ctx, const FusedGroup& g) {
    const Node& n = *g.main;
    if (!g.quantize || n.inputs.size() != 2 || !allDequantized(ctx, n.inputs)) return false;
    const Shape& out = ctx.desc(g.output).shape;
    if (ctx.desc(n.inputs[0]).shape != out || ctx.desc(n.inputs[1]).shape != out) return false;
    const auto y = quantOf(ctx.query(), *g.quantize);
    int8_t lo = 0, hi = 0;
    if (!y || !storedClamp(g, *y, lo, hi)) return false;
    const QuantInfo a = ctx.dequantized(n.inputs[0])->info, b = ctx.dequantized(n.inputs[1])->info;
    xnn_operator_t op = nullptr;
    if (xnn_create_add_nd_qs8(static_cast<int8_t>(a.storedZero()), a.scale, static_cast<int8_t>(b.storedZero()),
                              b.scale, static_cast<int8_t>(y->storedZero()), y->scale, lo, hi, 0,
                              &op) != xnn_status_success)
        return false;  // scale ratios outside what XNNPACK's fixed-point add takes: float path
    const int ia = int8Input(ctx, n.inputs[0])->id, ib = int8Input(ctx, n.inputs[1])->id;
    const int iy = ctx.write(g.output);
    XnnSegment* seg = &ctx.segment();
    const size_t count = static_cast<size_t>(shapeNumel(out));
    ctx.addStep(g, op, [=] {
        return xnn_setup_add_nd_qs8(op, 1, &count, 1, &count, seg->as<int8_t>(ia), seg->as<int8_t>(ib),
                                    seg->as<int8_t>(iy), seg->pool());
    });
    return true;
}

/// DQ(x) -> MaxPool -> Q with the same parameters: max commutes with the quantization.
bool lowerInt8MaxPool(LowerContext& ctx, const FusedGroup& g) {
    const Node& n = *g.main;
    if (!g.quantize || !allDequantized(ctx, {n.inputs[0]})) return false;
    const auto y = quantOf(ctx.query(), *g.quantize);
    const QuantInfo x = ctx.dequantized(n.inputs[0])->info;
    int8_t lo = 0, hi = 0;
    if (!y || !x.sameStored(*y) || !storedClamp(g, *y, lo, hi)) return false;
    const Shape& in = ctx.desc(n.inputs[0]).shape;
    std::string why;
    const auto w = resolveWindow(n, in, ctx.desc(g.output).shape, 1, 1, true, why);
    if (!w) return false;  // (the float capability query already checked XNNPACK's window limits)
    const auto c = static_cast<size_t>(in[1]);
    xnn_operator_t op = nullptr;
    if (xnn_create_max_pooling2d_nhwc_s8(w->padTop, w->padRight, w->padBottom, w->padLeft, w->kernelH, w->kernelW,
                                         w->strideH, w->strideW, w->dilationH, w->dilationW, c, c, c, lo, hi, 0,
                                         &op) != xnn_status_success)
        return false;
    const int ix = int8Input(ctx, n.inputs[0])->id, iy = ctx.write(g.output);
    XnnSegment* seg = &ctx.segment();
    const auto b = static_cast<size_t>(in[0]), h = static_cast<size_t>(in[2]), wd = static_cast<size_t>(in[3]);
    ctx.addStep(g, op, [=] {
        return xnn_setup_max_pooling2d_nhwc_s8(op, b, h, wd, seg->as<int8_t>(ix), seg->as<int8_t>(iy), seg->pool());
    });
    return true;
}

/// DQ(x) -> GlobalAveragePool -> Q: XNNPACK sums in int32 and requantizes once.
bool lowerInt8GlobalAveragePool(LowerContext& ctx, const FusedGroup& g) {
    const Node& n = *g.main;
    if (!g.quantize || !allDequantized(ctx, {n.inputs[0]})) return false;
    const auto y = quantOf(ctx.query(), *g.quantize);
    const QuantInfo x = ctx.dequantized(n.inputs[0])->info;
    int8_t lo = 0, hi = 0;
    const Shape& in = ctx.desc(n.inputs[0]).shape;
    if (!y || in.size() != 4 || !storedClamp(g, *y, lo, hi)) return false;
    const auto c = static_cast<size_t>(in[1]);
    xnn_operator_t op = nullptr;
    if (xnn_create_global_average_pooling_nwc_qs8(c, c, c, static_cast<int8_t>(x.storedZero()), x.scale,
                                                  static_cast<int8_t>(y->storedZero()), y->scale, lo, hi, 0,
                                                  &op) != xnn_status_success)
        return false;
    const int ix = int8Input(ctx, n.inputs[0])->id, iy = ctx.write(g.output);
    XnnSegment* seg = &ctx.segment();
    const auto b = static_cast<size_t>(in[0]), pixels = static_cast<size_t>(in[2] * in[3]);
    ctx.addStep(g, op, [=] {
        return xnn_setup_global_average_pooling_nwc_qs8(op, b, pixels, seg->as<int8_t>(ix), seg->as<int8_t>(iy),
                                                        seg->pool());
    });
    return true;
}

/// Q(Concat(DQ(a), DQ(b), ...)): each input copied into its columns, requantized exactly when its parameters differ.
bool lowerInt8Concat(LowerContext& ctx, const FusedGroup& g) {
    const Node& n = *g.main;
    if (!g.quantize || !allDequantized(ctx, n.inputs)) return false;
    const auto y = quantOf(ctx.query(), *g.quantize);
    if (!y) return false;
    std::vector<Int8Value> inputs;
    for (const std::string& name : n.inputs) inputs.push_back(*int8Input(ctx, name));
    const int iy = ctx.write(g.output);
    XnnSegment* seg = &ctx.segment();
    const SegValue& out = seg->value(iy);
    const size_t rank = out.shape.size();
    int64_t axis = n.attrInt("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(rank);
    const size_t phys = physicalAxis(static_cast<size_t>(axis), rank, out.nhwc);
    const std::vector<size_t> outDims = physicalDims(out.shape, out.nhwc);
    size_t outer = 1, total = 1;
    for (size_t d = 0; d < rank; ++d) (d < phys ? outer : total) *= outDims[d];
    struct Part {
        int id;
        QuantInfo info;
        size_t inner, column;
        bool copy;
    };
    std::vector<Part> parts;
    size_t column = 0;
    for (const Int8Value& v : inputs) {
        const std::vector<size_t> dims = physicalDims(seg->value(v.id).shape, seg->value(v.id).nhwc);
        size_t inner = 1;
        for (size_t d = phys; d < rank; ++d) inner *= dims[d];
        parts.push_back({v.id, v.info, inner, column, v.info.sameStored(*y)});
        column += inner;
    }
    const QuantInfo yq = *y;
    ctx.addCodeStep(g, [=] {
        int8_t* dst = seg->as<int8_t>(iy);
        for (const Part& p : parts) {
            const int8_t* src = seg->as<int8_t>(p.id);
            for (size_t r = 0; r < outer; ++r) {
                if (p.copy) std::memcpy(dst + r * total + p.column, src + r * p.inner, p.inner);
                else requantizeStored(src + r * p.inner, dst + r * total + p.column, p.inner, p.info, yq);
            }
        }
    });
    return true;
}

/// Flatten/Reshape of a dequantized value that needs no data movement: the int8 value under a new shape.
bool lowerInt8Movement(LowerContext& ctx, const FusedGroup& g) {
    const Node& n = *g.main;
    const Dequantized* d = ctx.dequantized(n.inputs[0]);
    if (!d || g.quantize) return false;
    auto layoutFree = [](const Shape& s) { return s.size() != 4 || s[1] == 1 || s[2] * s[3] == 1; };
    const Shape& in = ctx.segment().value(d->source).shape;
    const Shape& outShape = ctx.desc(g.output).shape;
    if (!(layoutFree(in) && layoutFree(outShape)) && in != outShape) return false;
    const Dequantized source = *d;
    const int alias = ctx.segment().addAlias(g.output + "#int8", outShape, source.source);
    ctx.segment().touch(alias, ctx.segment().nextStep());
    ctx.defineDequantized(g.output, {alias, source.info, g.nodeNames[0]});
    return true;
}

}  // namespace

bool lowerInt8(LowerContext& ctx, const FusedGroup& g) {
    const std::string& op = g.main->opType;
    if (op == "Conv" || op == "Gemm" || op == "MatMul") return lowerInt8Matmul(ctx, g);
    if (op == "Add") return lowerInt8Add(ctx, g);
    if (op == "MaxPool") return lowerInt8MaxPool(ctx, g);
    if (op == "GlobalAveragePool") return lowerInt8GlobalAveragePool(ctx, g);
    if (op == "Concat") return lowerInt8Concat(ctx, g);
    if (op == "Flatten" || op == "Reshape") return lowerInt8Movement(ctx, g);
    return false;
}

void lowerDequantize(LowerContext& ctx, const FusedGroup& g) {
    const auto info = quantOf(ctx.query(), *g.main);
    if (!info) failUnsupported("DequantizeLinear " + g.nodeNames[0] + ": parameters are not constant per-tensor u8/s8");
    ctx.defineDequantized(g.output, {ctx.read(g.main->inputs[0]), *info, g.nodeNames[0]});
}

int materializeDequantized(LowerContext& ctx, const std::string& name) {
    const Dequantized d = *ctx.dequantized(name);
    XnnSegment* seg = &ctx.segment();
    seg->touch(d.source, seg->nextStep());
    const int y = ctx.write(name);
    const std::vector<size_t> dims = physicalDims(seg->value(y).shape, seg->value(y).nhwc);
    const size_t channels = dims.empty() ? 1 : std::max<size_t>(1, dims.back());
    const size_t rows = static_cast<size_t>(shapeNumel(seg->value(y).shape)) / channels;
    xnn_operator_t op = nullptr;
    check(xnn_create_convert_nc_qs8_f32(channels, channels, channels, d.info.scale,
                                        static_cast<int8_t>(d.info.storedZero()), 0, &op),
          "dequantize " + d.node);
    FusedGroup g;
    g.nodeNames = {d.node};
    const int x = d.source;
    ctx.addStep(g, op, [=] {
        return xnn_setup_convert_nc_qs8_f32(op, rows, seg->as<int8_t>(x), seg->as<float>(y), seg->pool());
    });
    return y;
}

/// QuantizeLinear on its own: nothing for Q(DQ(x)) with the same real parameters, an exact requantization when they
/// differ, else the float input quantized with the reference's arithmetic.
void lowerQuantize(LowerContext& ctx, const FusedGroup& g) {
    const auto out = quantOf(ctx.query(), *g.main);
    if (!out) failUnsupported("QuantizeLinear " + g.nodeNames[0] + ": parameters are not constant per-tensor u8/s8");
    const std::string& in = g.main->inputs[0];
    XnnSegment* seg = &ctx.segment();
    if (ctx.dequantized(in)) {
        const Int8Value x = *int8Input(ctx, in);
        if (x.info.sameStored(*out)) {
            const int y = ctx.alias(g.output, x.id);
            seg->value(y).u8AsS8 = out->type == DType::U8;  // its own boundary type; the stored bytes are shared
            return;
        }
        const int y = ctx.write(g.output);
        const QuantInfo from = x.info, to = *out;
        const size_t count = static_cast<size_t>(seg->value(y).bytes());
        ctx.addCodeStep(g, [=] { requantizeStored(seg->as<int8_t>(x.id), seg->as<int8_t>(y), count, from, to); });
        return;
    }
    const int x = ctx.read(in);
    const int y = ctx.write(g.output);
    const QuantInfo to = *out;
    const size_t count = static_cast<size_t>(shapeNumel(seg->value(y).shape));
    ctx.addCodeStep(g, [=] { quantizeToStored(seg->as<float>(x), seg->as<int8_t>(y), count, to); });
}

/// QLinearConv / QLinearMatMul: int8 in and out with their own constant parameters, one qc8 convolution.
void lowerQLinear(LowerContext& ctx, const FusedGroup& g) {
    const Node& n = *g.main;
    const bool conv = n.opType == "QLinearConv";
    auto param = [&](size_t scaleIndex, size_t zeroIndex) {
        auto p = scalarQuantParams(ctx.constant(n.inputs[scaleIndex]), ctx.constant(n.inputs[zeroIndex]));
        if (!p) failUnsupported(g.nodeNames[0] + ": scales and zero points must be constant per-tensor u8/s8");
        return QuantInfo{*p};
    };
    const QuantInfo x = param(1, 2), y = param(6, 7);
    const Tensor* w = ctx.constant(n.inputs[3]);
    std::string why;
    auto weights = qlinearWeights(w, ctx.constant(n.inputs[4]), ctx.constant(n.inputs[5]), conv, why);
    if (!weights) failUnsupported(g.nodeNames[0] + ": " + why);
    const int64_t channels = static_cast<int64_t>(weights->scales.size());
    Qc8Conv c;
    const Shape& xs = ctx.desc(n.inputs[0]).shape;
    if (conv) {
        if (!convGeometry(n, xs, ctx.desc(g.output).shape, w->shape(), std::move(*weights), c))
            failUnsupported(g.nodeNames[0] + ": window not supported");
    } else {
        if (w->shape()[0] != xs[1]) failUnsupported(g.nodeNames[0] + ": B does not match A");
        matmulGeometry(xs, channels, true, std::move(*weights), c);
    }
    c.bias.assign(static_cast<size_t>(channels), 0);
    if (conv && n.inputs.size() > 8 && !n.inputs[8].empty()) {
        const Tensor* b = ctx.constant(n.inputs[8]);
        if (!b || b->dtype() != DType::I32 || b->numel() != channels)
            failUnsupported(g.nodeNames[0] + ": bias must be a constant int32 per output channel");
        c.bias.assign(b->data<int32_t>(), b->data<int32_t>() + channels);
    }
    xnn_operator_t op = createQc8(c, x, y, -128, 127);
    if (!op) failUnsupported(g.nodeNames[0] + ": XNNPACK refused the int8 convolution (requantization scale >= 256?)");
    const int xid = ctx.read(n.inputs[0]);
    addQc8Step(ctx, g, op, c, xid, ctx.write(g.output));
}

}  // namespace npuwb::xnn
