// Conv (incl. grouped/depthwise) and BatchNormalization on xnn_convolution2d_nhwc_f32. Weights are repacked
// OIHW -> OHWI, a following BatchNormalization is folded into them, and a following Relu/Clip becomes the
// operator's output clamp; XNNPACK then packs the result once, at compile time.
#include <cmath>

#include "Ops.h"
#include "Window.h"

namespace npuwb::xnn {
namespace {

/// Scales output channel m of OHWI `weights` (M rows) and shifts `bias` as BatchNormalization `bn` would.
void foldBatchNorm(LowerContext& ctx, const Node& bn, std::vector<float>& weights, std::vector<float>& bias) {
    const size_t m = bias.size();
    std::vector<float> scale = ctx.constant(bn.inputs[1])->toFloatVector();
    const std::vector<float> shift = ctx.constant(bn.inputs[2])->toFloatVector();
    const std::vector<float> mean = ctx.constant(bn.inputs[3])->toFloatVector();
    const std::vector<float> var = ctx.constant(bn.inputs[4])->toFloatVector();
    if (scale.size() != m || shift.size() != m || mean.size() != m || var.size() != m)
        failUnsupported("BatchNormalization parameters do not match the channel count");
    const double eps = bn.attrFloat("epsilon", 1e-5f);
    const size_t perChannel = weights.size() / m;
    for (size_t c = 0; c < m; ++c) {
        const double s = scale[c] / std::sqrt(static_cast<double>(var[c]) + eps);
        for (size_t k = 0; k < perChannel; ++k) weights[c * perChannel + k] = static_cast<float>(weights[c * perChannel + k] * s);
        bias[c] = static_cast<float>((bias[c] - mean[c]) * s + shift[c]);
    }
}

void addConvolution(LowerContext& ctx, const FusedGroup& g, int x, int y, const Window& w, uint32_t groups,
                    size_t groupIn, size_t groupOut, const std::vector<float>& weights, const std::vector<float>& bias) {
    xnn_operator_t op = nullptr;
    check(xnn_create_convolution2d_nhwc_f32(w.padTop, w.padRight, w.padBottom, w.padLeft, w.kernelH, w.kernelW,
                                            w.strideH, w.strideW, w.dilationH, w.dilationW, groups, groupIn, groupOut,
                                            groups * groupIn, groups * groupOut, weights.data(), bias.data(),
                                            g.outputMin, g.outputMax, 0, &op),
          "convolution " + g.nodeNames[0]);
    XnnSegment* seg = &ctx.segment();
    const Shape in = seg->value(x).shape;
    ctx.addStep(g, op, [=] {
        return xnn_setup_convolution2d_nhwc_f32(op, static_cast<size_t>(in[0]), static_cast<size_t>(in[2]),
                                                static_cast<size_t>(in[3]), seg->as<float>(x), seg->as<float>(y),
                                                seg->pool());
    });
}

}  // namespace

Capability supportsConv(const NodeQuery& q) {
    if (Capability c = requireF32(q, {0, 1, 2}); !c.supported) return c;
    if (q.inputShapes.size() < 2 || q.inputShapes[0].size() != 4 || q.inputShapes[1].size() != 4)
        return Capability::no("only 2-D convolution (rank-4 input and weights) is supported");
    if (!isConst(q, 1)) return Capability::no("weights are not a constant");
    if (hasInput(q, 2) && !isConst(q, 2)) return Capability::no("bias is not a constant");
    const Shape& x = q.inputShapes[0];
    const Shape& w = q.inputShapes[1];
    // Anything but one bias value per output channel goes to the reference kernel, which refuses it (or
    // broadcasts a single value) exactly as the spec says; the packing below would read past a short bias.
    if (hasInput(q, 2) && shapeNumel(q.inputShapes[2]) != w[0])
        return Capability::no("bias does not have one value per output channel");
    const int64_t groups = q.node.attrInt("group", 1);
    if (groups < 1 || x[1] % groups != 0 || w[0] % groups != 0 || w[1] * groups != x[1])
        return Capability::no("channel count does not match group");
    std::string why;
    if (!resolveWindow(q.node, x, {x[0], w[0], -1, -1}, w[2], w[3], false, why)) return Capability::no(why);
    return Capability::yes();
}

void lowerConv(LowerContext& ctx, const FusedGroup& g) {
    const Node& node = *g.main;
    const Tensor& wt = *ctx.constant(node.inputs[1]);
    const Shape& ws = wt.shape();
    const auto m = static_cast<size_t>(ws[0]), cg = static_cast<size_t>(ws[1]);
    const auto kh = static_cast<size_t>(ws[2]), kw = static_cast<size_t>(ws[3]);
    const auto groups = static_cast<uint32_t>(node.attrInt("group", 1));
    // OIHW -> OHWI (XNNPACK's [groups][group_out][kh][kw][group_in])
    const std::vector<float> oihw = wt.toFloatVector();
    std::vector<float> weights(oihw.size());
    for (size_t o = 0; o < m; ++o)
        for (size_t i = 0; i < cg; ++i)
            for (size_t k = 0; k < kh * kw; ++k) weights[(o * kh * kw + k) * cg + i] = oihw[(o * cg + i) * kh * kw + k];
    std::vector<float> bias(m, 0.0f);
    if (const Tensor* b = node.inputs.size() > 2 ? ctx.constant(node.inputs[2]) : nullptr) bias = b->toFloatVector();
    if (g.batchNorm) foldBatchNorm(ctx, *g.batchNorm, weights, bias);

    const int x = ctx.read(node.inputs[0]);
    const int y = ctx.write(g.output);
    std::string why;
    const auto window = resolveWindow(node, ctx.segment().value(x).shape, ctx.segment().value(y).shape,
                                      static_cast<int64_t>(kh), static_cast<int64_t>(kw), false, why);
    if (!window) failUnsupported(why);
    addConvolution(ctx, g, x, y, *window, groups, cg, m / groups, weights, bias);
}

Capability supportsBatchNorm(const NodeQuery& q) {
    if (Capability c = requireF32(q, {0, 1, 2, 3, 4}); !c.supported) return c;
    if (q.inputShapes.empty() || q.inputShapes[0].size() != 4) return Capability::no("only rank-4 input is supported");
    for (size_t i = 1; i < 5; ++i)
        if (!isConst(q, i)) return Capability::no("statistics are not constants");
    if (q.node.attrInt("training_mode", 0) != 0) return Capability::no("training_mode not supported");
    for (size_t i = 1; i < q.node.outputs.size(); ++i)
        if (!q.node.outputs[i].empty()) return Capability::no("running statistics outputs not supported");
    return Capability::yes();
}

/// A BatchNormalization on its own is a 1x1 depthwise convolution with the folded scale and shift.
void lowerBatchNorm(LowerContext& ctx, const FusedGroup& g) {
    const int x = ctx.read(g.main->inputs[0]);
    const auto c = static_cast<size_t>(ctx.segment().value(x).shape[1]);
    std::vector<float> weights(c, 1.0f), bias(c, 0.0f);
    foldBatchNorm(ctx, *g.main, weights, bias);
    const int y = ctx.write(g.output);
    addConvolution(ctx, g, x, y, Window{}, static_cast<uint32_t>(c), 1, 1, weights, bias);
}

}  // namespace npuwb::xnn
