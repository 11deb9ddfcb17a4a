// MaxPool, AveragePool and GlobalAveragePool on XNNPACK's NHWC pooling operators.
#include <algorithm>

#include "Ops.h"
#include "Window.h"

namespace npuwb::xnn {
namespace {

/// XNNPACK rejects 1x1 windows, and its max pooling reads a padded position as the nearest edge pixel: right
/// only while that pixel is itself in the window, i.e. without dilation and with padding below the window size.
Capability windowLimits(const Window& w, bool paddingUnknown) {
    if (w.kernelH * w.kernelW == 1) return Capability::no("1x1 pooling window not supported by XNNPACK");
    const bool padded = w.padTop || w.padBottom || w.padLeft || w.padRight || paddingUnknown;
    if ((w.dilationH > 1 || w.dilationW > 1) && padded)  // measured wrong even when the padded axis is undilated
        return Capability::no("dilated pooling with padding not supported");
    if (w.padTop >= w.kernelH || w.padBottom >= w.kernelH || w.padLeft >= w.kernelW || w.padRight >= w.kernelW)
        return Capability::no("padding as large as the window not supported");
    return Capability::yes();
}

Capability supportsWindowPool(const NodeQuery& q, bool isMax) {
    if (Capability c = requireF32(q, {0}); !c.supported) return c;
    if (q.inputShapes.empty() || q.inputShapes[0].size() != 4) return Capability::no("only 2-D pooling is supported");
    if (q.node.outputs.size() > 1 && !q.node.outputs[1].empty()) return Capability::no("Indices output not supported");
    if (isMax && q.node.attrInt("storage_order", 0) != 0) return Capability::no("storage_order not supported");
    if (!isMax) {
        if (q.node.hasAttribute("dilations")) {
            for (int64_t d : q.node.attrInts("dilations"))
                if (d != 1) return Capability::no("dilated average pooling not supported");
        }
        // XNNPACK divides by the number of real (unpadded) pixels: ONNX count_include_pad=0.
        const std::vector<int64_t> pads = q.node.attrInts("pads", {0, 0, 0, 0});
        const bool padded = q.node.attrString("auto_pad", "NOTSET").rfind("SAME", 0) == 0 ||
                            std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p != 0; });
        if (padded && q.node.attrInt("count_include_pad", 0) != 0)
            return Capability::no("count_include_pad=1 with padding not supported");
        if (q.node.attrInt("ceil_mode", 0) != 0) return Capability::no("ceil_mode not supported for average pooling");
    }
    const Shape& x = q.inputShapes[0];
    const Shape out = q.outputShapes.empty() || q.outputShapes[0].size() != 4 ? Shape{x[0], x[1], -1, -1}
                                                                              : q.outputShapes[0];
    std::string why;
    const auto w = resolveWindow(q.node, x, out, 1, 1, isMax, why);
    if (!w) return Capability::no(why);
    const bool ceilUnknown = out[2] < 0 && isMax && q.node.attrInt("ceil_mode", 0) != 0;
    if (Capability c = windowLimits(*w, ceilUnknown); !c.supported) return c;
    return Capability::yes();
}

void lowerWindowPool(LowerContext& ctx, const FusedGroup& g, bool isMax) {
    const int x = ctx.read(g.main->inputs[0]);
    const int y = ctx.write(g.output);
    XnnSegment* seg = &ctx.segment();
    const Shape in = seg->value(x).shape;
    std::string why;
    const auto w = resolveWindow(*g.main, in, seg->value(y).shape, 1, 1, isMax, why);
    if (!w) failUnsupported(why);
    if (Capability limits = windowLimits(*w, false); !limits.supported) failUnsupported(limits.reason);
    const auto c = static_cast<size_t>(in[1]);
    xnn_operator_t op = nullptr;
    if (isMax) {
        check(xnn_create_max_pooling2d_nhwc_f32(w->padTop, w->padRight, w->padBottom, w->padLeft, w->kernelH,
                                                w->kernelW, w->strideH, w->strideW, w->dilationH, w->dilationW, c, c,
                                                c, g.outputMin, g.outputMax, 0, &op),
              "max pooling " + g.nodeNames[0]);
    } else {
        check(xnn_create_average_pooling2d_nhwc_f32(w->padTop, w->padRight, w->padBottom, w->padLeft, w->kernelH,
                                                    w->kernelW, w->strideH, w->strideW, c, c, c, g.outputMin,
                                                    g.outputMax, 0, &op),
              "average pooling " + g.nodeNames[0]);
    }
    const auto n = static_cast<size_t>(in[0]), h = static_cast<size_t>(in[2]), wd = static_cast<size_t>(in[3]);
    ctx.addStep(g, op, [=] {
        return isMax ? xnn_setup_max_pooling2d_nhwc_f32(op, n, h, wd, seg->as<float>(x), seg->as<float>(y), seg->pool())
                     : xnn_setup_average_pooling2d_nhwc_f32(op, n, h, wd, seg->as<float>(x), seg->as<float>(y),
                                                            seg->pool());
    });
}

}  // namespace

Capability supportsMaxPool(const NodeQuery& q) { return supportsWindowPool(q, true); }
void lowerMaxPool(LowerContext& ctx, const FusedGroup& g) { lowerWindowPool(ctx, g, true); }
Capability supportsAveragePool(const NodeQuery& q) { return supportsWindowPool(q, false); }
void lowerAveragePool(LowerContext& ctx, const FusedGroup& g) { lowerWindowPool(ctx, g, false); }

Capability supportsGlobalAveragePool(const NodeQuery& q) {
    if (Capability c = requireF32(q, {0}); !c.supported) return c;
    if (q.inputShapes.empty() || q.inputShapes[0].size() != 4) return Capability::no("only rank-4 input is supported");
    return Capability::yes();
}

/// NHWC [N, H*W, C] averaged over the middle axis gives [N, C], which is [N,C,1,1] in either layout.
void lowerGlobalAveragePool(LowerContext& ctx, const FusedGroup& g) {
    const int x = ctx.read(g.main->inputs[0]);
    const int y = ctx.write(g.output);
    XnnSegment* seg = &ctx.segment();
    const Shape in = seg->value(x).shape;
    const auto c = static_cast<size_t>(in[1]);
    xnn_operator_t op = nullptr;
    check(xnn_create_global_average_pooling_nwc_f32(c, c, c, g.outputMin, g.outputMax, 0, &op),
          "global average pooling " + g.nodeNames[0]);
    const auto n = static_cast<size_t>(in[0]), pixels = static_cast<size_t>(in[2] * in[3]);
    ctx.addStep(g, op, [=] {
        return xnn_setup_global_average_pooling_nwc_f32(op, n, pixels, seg->as<float>(x), seg->as<float>(y),
                                                        seg->pool());
    });
}

}  // namespace npuwb::xnn
