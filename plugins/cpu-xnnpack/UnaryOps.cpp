// Elementwise activations (layout-free, so run over the flat buffer) and Softmax (needs its reduced axis to be
// the innermost physical one).
#include "Layout.h"
#include "Ops.h"

namespace npuwb::xnn {

Capability supportsUnary(const NodeQuery& q) {
    if (Capability c = requireF32(q, {0}); !c.supported) return c;
    if (q.inputShapes.empty() || shapeNumel(q.inputShapes[0]) == 0) return Capability::no("empty tensor");
    if (q.node.opType == "Clip") {
        for (size_t i = 1; i < 3; ++i)
            if (hasInput(q, i) && !isConst(q, i)) return Capability::no("bounds are not constants");
        auto constantOf = [&](const std::string& name) -> const Tensor* {
            for (size_t i = 0; i < q.node.inputs.size(); ++i)
                if (q.node.inputs[i] == name) return q.constants[i];
            return nullptr;
        };
        float lo = 0, hi = 0;
        if (!activationBounds(q.node, constantOf, q.opset, lo, hi)) return Capability::no("unsupported bounds");
    }
    return Capability::yes();
}

void lowerUnary(LowerContext& ctx, const FusedGroup& g) {
    const Node& node = *g.main;
    const int x = ctx.read(node.inputs[0]);
    const int y = ctx.write(g.output);
    XnnSegment* seg = &ctx.segment();
    const auto n = static_cast<size_t>(shapeNumel(seg->value(x).shape));
    xnn_operator_t op = nullptr;
    const std::string& type = node.opType;
    xnn_status created;
    if (type == "Relu" || type == "Clip") {
        float lo = 0, hi = 0;
        if (!activationBounds(node, [&](const std::string& v) { return ctx.constant(v); }, ctx.opset(), lo, hi))
            failUnsupported("unsupported Clip bounds");
        created = xnn_create_clamp_nc_f32(n, n, n, std::max(lo, g.outputMin), std::min(hi, g.outputMax), 0, &op);
    } else if (type == "Sigmoid") {
        created = xnn_create_sigmoid_nc_f32(n, n, n, 0, &op);
    } else if (type == "HardSwish") {
        created = xnn_create_hardswish_nc_f32(n, n, n, 0, &op);
    } else {
        created = xnn_create_leaky_relu_nc_f32(n, n, n, node.attrFloat("alpha", 0.01f), 0, &op);
    }
    check(created, type + " " + g.nodeNames[0]);
    auto setup = type == "Relu" || type == "Clip" ? xnn_setup_clamp_nc_f32
                 : type == "Sigmoid"              ? xnn_setup_sigmoid_nc_f32
                 : type == "HardSwish"            ? xnn_setup_hardswish_nc_f32
                                                  : xnn_setup_leaky_relu_nc_f32;
    ctx.addStep(g, op, [=] { return setup(op, 1, seg->as<float>(x), seg->as<float>(y), seg->pool()); });
}

namespace {

/// Rows and row length of the softmax over `axis`, when each row is contiguous in the segment's layout.
bool softmaxRows(const Shape& shape, int64_t axis, int64_t opset, size_t& rows, size_t& row) {
    const auto rank = static_cast<int64_t>(shape.size());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return false;
    const bool nhwc = rank == 4;
    const auto total = static_cast<size_t>(shapeNumel(shape));
    if (opset >= 13) {  // one axis: must be the innermost physical one
        if (physicalAxis(static_cast<size_t>(axis), shape.size(), nhwc) != shape.size() - 1) return false;
        row = static_cast<size_t>(shape[static_cast<size_t>(axis)]);
    } else {  // flattened [prod(<axis), prod(>=axis)]: in NHWC only whole images (axis <= 1) stay contiguous
        if (nhwc && axis > 1) return false;
        row = 1;
        for (int64_t d = axis; d < rank; ++d) row *= static_cast<size_t>(shape[static_cast<size_t>(d)]);
    }
    if (row == 0) return false;
    rows = total / row;
    return true;
}

}  // namespace

Capability supportsSoftmax(const NodeQuery& q) {
    if (Capability c = requireF32(q, {0}); !c.supported) return c;
    size_t rows = 0, row = 0;
    if (q.inputShapes.empty() ||
        !softmaxRows(q.inputShapes[0], q.node.attrInt("axis", q.opset >= 13 ? -1 : 1), q.opset, rows, row))
        return Capability::no("softmax axis is not innermost in the segment layout");
    return Capability::yes();
}

void lowerSoftmax(LowerContext& ctx, const FusedGroup& g) {
    const int x = ctx.read(g.main->inputs[0]);
    const int y = ctx.write(g.output);
    XnnSegment* seg = &ctx.segment();
    size_t rows = 0, row = 0;
    if (!softmaxRows(seg->value(x).shape, g.main->attrInt("axis", ctx.opset() >= 13 ? -1 : 1), ctx.opset(), rows, row))
        failUnsupported("softmax axis is not innermost");
    xnn_operator_t op = nullptr;
    check(xnn_create_softmax_nc_f32(row, row, row, 0, &op), "softmax " + g.nodeNames[0]);
    ctx.addStep(g, op, [=] { return xnn_setup_softmax_nc_f32(op, rows, seg->as<float>(x), seg->as<float>(y), seg->pool()); });
}

}  // namespace npuwb::xnn
