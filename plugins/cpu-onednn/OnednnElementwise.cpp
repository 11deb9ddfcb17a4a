// fp32 elementwise and normalizing ops: binary with broadcasting, unary eltwise steps, Softmax, Resize,
// BatchNormalization and reductions.
#include "OnednnSegmentBuilder.h"

#include <cmath>

namespace npuwb::onednn {

void Builder::buildEltwise(const Node& n) {
    memory src = get(n.inputs[0]);
    bool first = true;
    for (auto [alg, alpha, beta] : eltwiseOf(n)) {  // later steps run in place on the first step's output
        dnnl::eltwise_forward::primitive_desc pd({dnnl::prop_kind::forward_inference, alg, src.get_desc(), alpha, beta},
                                                 eng);
        memory dst = first ? activation(pd.dst_desc()) : src;
        addPrimitive(pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, {nodeName(n)});
        src = dst;
        first = false;
    }
    mem[n.outputs[0]] = src;
}

void Builder::buildBinary(const Node& n) {
    using A = dnnl::algorithm;
    const std::string& op = n.opType;
    const Shape& y = desc(n.outputs[0]).shape;
    bool swap = desc(n.inputs[0]).shape != y;  // commutative ops only (checked by supportsNode)
    const std::string& full = n.inputs[swap ? 1 : 0];
    const std::string& other = n.inputs[swap ? 0 : 1];
    memory src0 = get(full);
    // Stored as plain (channels-last with one channel): seen as plain, the layout oneDNN vectorizes best.
    if (src0.get_desc() != plainDesc(y) && sameStorage(src0.get_desc(), plainDesc(y)))
        src0 = getAs(full, plainDesc(y), nodeName(n));
    memory src1;
    const Shape& os = desc(other).shape;
    if (os == y && !desc(other).constant) {
        src1 = getAs(other, src0.get_desc(), nodeName(n));
    } else {
        memory plain = getAs(other, plainDesc(os), nodeName(n));
        src1 = os.size() == y.size() ? plain : desc(other).constant ? constantMemory(other, *desc(other).constant, padRank(os, y.size()))
                                                                    : view(plain, padRank(os, y.size()));
    }
    A alg = op == "Add" ? A::binary_add : op == "Sub" ? A::binary_sub : op == "Mul" ? A::binary_mul
          : op == "Div" ? A::binary_div : op == "Max" ? A::binary_max : A::binary_min;
    dnnl::binary::primitive_desc pd({alg, src0.get_desc(), src1.get_desc(), src0.get_desc()}, eng);
    if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0 && src0.get_desc() != plainDesc(y)) {
        // No optimized kernel for this layout pair (e.g. a channel-padded blocked layout with a per-channel
        // operand runs oneDNN's reference loop, 30x slower): the plain layout has one.
        src0 = getAs(full, plainDesc(y), nodeName(n));
        if (os == y && !desc(other).constant) src1 = getAs(other, plainDesc(y), nodeName(n));
        pd = dnnl::binary::primitive_desc({alg, src0.get_desc(), src1.get_desc(), src0.get_desc()}, eng);
    }
    memory dst = activation(pd.dst_desc());
    addPrimitive(pd, {{DNNL_ARG_SRC_0, src0}, {DNNL_ARG_SRC_1, src1}, {DNNL_ARG_DST, dst}}, {nodeName(n)});
    mem[n.outputs[0]] = dst;
}

void Builder::buildResize(const Node& n) {
    const ResizeKind kind = *resizeAlgorithm(makeNodeQuery(q, indexOf(n)));
    if (kind == ResizeKind::LinearAlignCorners) return buildResizeAlignCorners(n);
    const Shape& y = desc(n.outputs[0]).shape;
    memory src = get(n.inputs[0]);
    const auto alg = kind == ResizeKind::Nearest ? dnnl::algorithm::resampling_nearest : dnnl::algorithm::resampling_linear;
    dnnl::resampling_forward::primitive_desc pd(
        {dnnl::prop_kind::forward_inference, alg, src.get_desc(), memory::desc(toDims(y), dt::f32, tag::any)}, eng);
    memory dst = activation(pd.dst_desc());
    addPrimitive(pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, {nodeName(n)});
    mem[n.outputs[0]] = dst;
}

void Builder::buildSoftmax(const Node& n) {
    const Shape& x = desc(n.inputs[0]).shape;
    int64_t axis = n.attrInt("axis", q.opset >= 13 ? -1 : 1);
    if (axis < 0) axis += static_cast<int64_t>(x.size());
    memory src = getAs(n.inputs[0], plainDesc(x), nodeName(n));
    dnnl::softmax_forward::primitive_desc pd(
        {dnnl::prop_kind::forward_inference, src.get_desc(), static_cast<int>(axis)}, eng);
    memory dst = activation(pd.dst_desc());
    addPrimitive(pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, {nodeName(n)});
    mem[n.outputs[0]] = dst;
}

void Builder::buildBatchNorm(const Node& n) {
    memory src = get(n.inputs[0]);
    using F = dnnl::normalization_flags;
    dnnl::batch_normalization_forward::primitive_desc pd(
        {dnnl::prop_kind::forward_inference, src.get_desc(), n.attrFloat("epsilon", 1e-5f),
         F::use_global_stats | F::use_scale | F::use_shift},
        eng);
    memory dst = activation(pd.dst_desc());
    addPrimitive(pd,
                 {{DNNL_ARG_SRC, src}, {DNNL_ARG_SCALE, get(n.inputs[1])}, {DNNL_ARG_SHIFT, get(n.inputs[2])},
                  {DNNL_ARG_MEAN, get(n.inputs[3])}, {DNNL_ARG_VARIANCE, get(n.inputs[4])}, {DNNL_ARG_DST, dst}},
                 {nodeName(n)});
    mem[n.outputs[0]] = dst;
}

/// ReduceMean/Sum/Max/Min over constant axes with oneDNN's reduction; keepdims=0 is a free view of the result.
void Builder::buildReduce(const Node& n) {
    using A = dnnl::algorithm;
    std::string why;
    auto axes = reduceAxes(makeNodeQuery(q, indexOf(n)), why);
    if (!axes) throw std::runtime_error(why);
    const Shape& x = desc(n.inputs[0]).shape;
    Shape kept = x;
    for (int64_t a : *axes) kept[static_cast<size_t>(a)] = 1;
    const std::string& op = n.opType;
    A alg = op == "ReduceMean" ? A::reduction_mean : op == "ReduceSum" ? A::reduction_sum
          : op == "ReduceMax" ? A::reduction_max : A::reduction_min;
    memory src = getAs(n.inputs[0], plainDesc(x), nodeName(n));
    dnnl::reduction::primitive_desc pd({alg, src.get_desc(), plainDesc(kept), 0.f, 0.f}, eng);
    memory dst = activation(pd.dst_desc());
    addPrimitive(pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, {nodeName(n)});
    const Shape& y = desc(n.outputs[0]).shape;
    mem[n.outputs[0]] = y == kept ? dst : view(dst, y);
}

}  // namespace npuwb::onednn
