// Add, Sub, Mul, Div with numpy broadcasting on XNNPACK's *_nd_f32 operators. Rank-4 operands are NHWC inside a
// segment, so both runtime operands of a rank-4 result must be rank 4 (their broadcast dims permute with the
// data); constant operands are padded to rank 4 and permuted to NHWC at compile time.
#include "Layout.h"
#include "Ops.h"

namespace npuwb::xnn {
namespace {

struct Operand {
    int id = -1;                 // runtime value, or -1 for a constant
    const float* constant = nullptr;
    std::vector<size_t> dims;
};

Operand operand(LowerContext& ctx, const std::string& name, size_t outRank) {
    Operand o;
    if (const Tensor* c = ctx.constant(name)) {
        if (outRank == 4) {
            o.constant = ctx.segment().keepConstant(constantToNhwc(*c, o.dims));
        } else {
            o.dims.assign(c->shape().begin(), c->shape().end());
            o.constant = ctx.segment().keepConstant(c->toFloatVector());
        }
    } else {
        o.id = ctx.read(name);
        const SegValue& v = ctx.segment().value(o.id);
        o.dims = physicalDims(v.shape, v.nhwc);
    }
    if (o.dims.empty()) o.dims = {1};
    return o;
}

}  // namespace

Capability supportsBinary(const NodeQuery& q) {
    if (Capability c = requireF32(q, {0, 1}); !c.supported) return c;
    if (q.inputShapes.size() != 2) return Capability::no("needs two inputs");
    const size_t outRank = std::max(q.inputShapes[0].size(), q.inputShapes[1].size());
    if (outRank > 6) return Capability::no("rank above 6 not supported");
    if (isConst(q, 0) && isConst(q, 1)) return Capability::no("both operands constant (constant folding's job)");
    for (size_t i = 0; i < 2; ++i) {
        if (isConst(q, i)) continue;
        const size_t rank = q.inputShapes[i].size();
        if ((rank == 4) != (outRank == 4))
            return Capability::no("broadcast between rank-4 and other-rank runtime tensors (NHWC inside segments)");
    }
    return Capability::yes();
}

void lowerBinary(LowerContext& ctx, const FusedGroup& g) {
    const Node& node = *g.main;
    const size_t outRank = ctx.desc(g.output).shape.size();
    const Operand a = operand(ctx, node.inputs[0], outRank);
    const Operand b = operand(ctx, node.inputs[1], outRank);
    const int y = ctx.write(g.output);
    xnn_operator_t op = nullptr;
    const std::string& type = node.opType;
    const xnn_status created =
        type == "Add"   ? xnn_create_add_nd_f32(g.outputMin, g.outputMax, 0, &op)
        : type == "Sub" ? xnn_create_subtract_nd_f32(g.outputMin, g.outputMax, 0, &op)
        : type == "Mul" ? xnn_create_multiply_nd_f32(g.outputMin, g.outputMax, 0, &op)
                        : xnn_create_divide_nd_f32(g.outputMin, g.outputMax, 0, &op);
    check(created, type + " " + g.nodeNames[0]);
    XnnSegment* seg = &ctx.segment();
    auto setup = type == "Add"   ? xnn_setup_add_nd_f32
                 : type == "Sub" ? xnn_setup_subtract_nd_f32
                 : type == "Mul" ? xnn_setup_multiply_nd_f32
                                 : xnn_setup_divide_nd_f32;
    ctx.addStep(g, op, [=] {
        const float* pa = a.id >= 0 ? seg->as<float>(a.id) : a.constant;
        const float* pb = b.id >= 0 ? seg->as<float>(b.id) : b.constant;
        return setup(op, a.dims.size(), a.dims.data(), b.dims.size(), b.dims.data(), pa, pb, seg->as<float>(y),
                     seg->pool());
    });
}

}  // namespace npuwb::xnn
