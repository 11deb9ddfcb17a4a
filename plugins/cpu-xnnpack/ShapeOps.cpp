// Concat (strided copies into the output, one xnn copy operator per input) and Reshape/Flatten, which are free
// aliases unless the value moves between the NHWC (rank-4) and row-major worlds.
#include <memory>

#include "Layout.h"
#include "Ops.h"

namespace npuwb::xnn {

Capability supportsConcat(const NodeQuery& q) {
    if (q.inputShapes.empty()) return Capability::no("no inputs");
    for (size_t i = 0; i < q.inputShapes.size(); ++i) {
        if (q.inputTypes[i] != DType::F32) return Capability::no("only float32 is supported");
        if (isConst(q, i)) return Capability::no("constant inputs not supported");
        if (q.inputShapes[i].size() != q.inputShapes[0].size()) return Capability::no("ranks differ");
        if (shapeNumel(q.inputShapes[i]) == 0) return Capability::no("empty input");
    }
    return Capability::yes();
}

void lowerConcat(LowerContext& ctx, const FusedGroup& g) {
    XnnSegment* seg = &ctx.segment();
    std::vector<int> inputs;
    for (const std::string& name : g.main->inputs) inputs.push_back(ctx.read(name));
    const int y = ctx.write(g.output);
    const SegValue& out = seg->value(y);
    const size_t rank = out.shape.size();
    int64_t axis = g.main->attrInt("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(rank);
    const size_t phys = physicalAxis(static_cast<size_t>(axis), rank, out.nhwc);
    const std::vector<size_t> outDims = physicalDims(out.shape, out.nhwc);
    size_t outer = 1, innerTotal = 1;
    for (size_t d = 0; d < rank; ++d) (d < phys ? outer : innerTotal) *= outDims[d];

    // Each input is `outer` rows of `inner` floats, written at its column offset in rows of `innerTotal`.
    auto ops = std::shared_ptr<std::vector<xnn_operator_t>>(new std::vector<xnn_operator_t>, [](auto* v) {
        for (xnn_operator_t op : *v) xnn_delete_operator(op);
        delete v;
    });
    std::vector<size_t> columns;
    size_t column = 0;
    for (int id : inputs) {
        const std::vector<size_t> dims = physicalDims(seg->value(id).shape, seg->value(id).nhwc);
        size_t inner = 1;
        for (size_t d = phys; d < rank; ++d) inner *= dims[d];
        xnn_operator_t op = nullptr;
        check(xnn_create_copy_nc_x32(inner, inner, innerTotal, 0, &op), "concat copy " + g.nodeNames[0]);
        ops->push_back(op);
        columns.push_back(column);
        column += inner;
    }
    Step step;
    step.nodes = g.nodeNames;
    step.setup = [=] {
        for (size_t i = 0; i < ops->size(); ++i) {
            const xnn_status s = xnn_setup_copy_nc_x32((*ops)[i], outer, seg->as<float>(inputs[i]),
                                                       seg->as<float>(y) + columns[i], seg->pool());
            if (s != xnn_status_success) return s;
        }
        return xnn_status_success;
    };
    step.run = [=] {
        for (xnn_operator_t op : *ops) check(xnn_run_operator(op, seg->pool()), "concat copy");
    };
    seg->addStep(std::move(step));
}

Capability supportsReshape(const NodeQuery& q) {
    if (Capability c = requireF32(q, {0}); !c.supported) return c;
    if (q.node.opType == "Reshape" && !isConst(q, 1)) return Capability::no("shape is not a constant");
    return Capability::yes();
}

namespace {
/// True when the NHWC bytes of a rank-4 shape equal its NCHW bytes (or the shape is not rank 4).
bool layoutFree(const Shape& s) { return s.size() != 4 || s[1] == 1 || s[2] * s[3] == 1; }
}  // namespace

void lowerReshape(LowerContext& ctx, const FusedGroup& g) {
    XnnSegment* seg = &ctx.segment();
    const int x = ctx.read(g.main->inputs[0]);
    const Shape in = seg->value(x).shape;
    const Shape outShape = ctx.desc(g.output).shape;
    if ((layoutFree(in) && layoutFree(outShape)) || in == outShape) {
        ctx.alias(g.output, x);
        return;
    }
    // Rank-4 data moves through NCHW order; a 4-D -> 4-D reshape needs both transposes, via a scratch value.
    const bool fromNhwc = in.size() == 4 && !layoutFree(in), toNhwc = outShape.size() == 4 && !layoutFree(outShape);
    const int scratch = fromNhwc && toNhwc ? seg->addValue(g.output + "#nchw", DType::F32, in) : -1;
    if (scratch >= 0) seg->touch(scratch, seg->nextStep());
    const int y = ctx.write(g.output);
    ctx.addCodeStep(g, [=] {
        const size_t elem = sizeof(float);
        void* mid = scratch >= 0 ? seg->data(scratch) : seg->data(y);
        if (fromNhwc)
            nhwcToNchw(seg->data(x), mid, elem, static_cast<size_t>(in[0]), static_cast<size_t>(in[1]),
                       static_cast<size_t>(in[2] * in[3]), seg->pool());
        if (toNhwc)
            nchwToNhwc(fromNhwc ? mid : seg->data(x), seg->data(y), elem, static_cast<size_t>(outShape[0]),
                       static_cast<size_t>(outShape[1]), static_cast<size_t>(outShape[2] * outShape[3]), seg->pool());
    });
}

}  // namespace npuwb::xnn
