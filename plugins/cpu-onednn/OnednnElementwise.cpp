// fp32 elementwise and normalizing ops: binary with broadcasting, unary eltwise steps, Softmax, Resize,
// BatchNormalization and reductions.
#include "OnednnBroadcastBinary.h"
#include "OnednnSegmentBuilder.h"

#include <algorithm>
#include <cmath>
#include <omp.h>

// Vector forms picked at load time; the default build targets baseline x86-64.
#define NPUWB_BN_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

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
    if (op == "Sub" && desc(n.inputs[0]).shape != y) {  // c - x, c a constant scalar (supportsNode): -1 * x + c
        const auto c = static_cast<float>(desc(n.inputs[0]).constant->elementAsDouble(0));
        memory src = get(n.inputs[1]);
        dnnl::eltwise_forward::primitive_desc pd(
            {dnnl::prop_kind::forward_inference, A::eltwise_linear, src.get_desc(), -1.f, c}, eng);
        memory dst = activation(pd.dst_desc());
        addPrimitive(pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, {nodeName(n)});
        mem[n.outputs[0]] = dst;
        return;
    }
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
    if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0) {
        // Still oneDNN's reference loop: a broadcast it has no kernel for (Swin's shifted-window mask, [1,64,3,49,49]
        // + [1,64,1,49,49]: 23 ms there, 0.2 ms in rows).
        src0 = getAs(full, plainDesc(y), nodeName(n));
        if (os == y && !desc(other).constant) src1 = getAs(other, plainDesc(y), nodeName(n));
        memory dst = activation(plainDesc(y));
        const BroadcastRows rows = broadcastRows(y, padRank(os, y.size()));
        const BinaryOp kind = op == "Add" ? BinaryOp::Add : op == "Sub" ? BinaryOp::Sub : op == "Mul" ? BinaryOp::Mul
                            : op == "Div" ? BinaryOp::Div : op == "Max" ? BinaryOp::Max : BinaryOp::Min;
        addKernel(
            [src0, src1, dst, rows, kind](dnnl::stream&) {
                broadcastBinary(kind, rows, static_cast<const float*>(src0.get_data_handle()),
                                static_cast<const float*>(src1.get_data_handle()), static_cast<float*>(dst.get_data_handle()));
            },
            {nodeName(n)}, {src0, src1, dst});
        seg.kernels.back().serial = dst.get_desc().get_size() < kSerialKernelBytes;
        mem[n.outputs[0]] = dst;
        return;
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

namespace {

/// y = x*scale[c] + shift[c], then max(y, 0) with a fused Relu, over rows [begin, end) of a dense tensor: with
/// inner == 1 a row is one position's channels (channels-last storage), else row r is channel r % channels of
/// `inner` contiguous values (plain storage).
template <bool Relu>
NPUWB_BN_CLONES void scaleShiftRows(const float* __restrict x, float* __restrict y, int64_t begin, int64_t end,
                                    int64_t channels, int64_t inner, const float* scale, const float* shift) {
    if (inner == 1) {
        for (int64_t r = begin; r < end; ++r)
            for (int64_t c = 0; c < channels; ++c) {
                const float v = x[r * channels + c] * scale[c] + shift[c];
                y[r * channels + c] = Relu ? std::max(v, 0.f) : v;
            }
        return;
    }
    for (int64_t r = begin; r < end; ++r) {
        const float s = scale[r % channels], b = shift[r % channels];
        for (int64_t i = 0; i < inner; ++i) {
            const float v = x[r * inner + i] * s + b;
            y[r * inner + i] = Relu ? std::max(v, 0.f) : v;
        }
    }
}

template <bool Relu>
void scaleShift(const float* x, float* y, int64_t outer, int64_t channels, int64_t inner, const float* scale,
                const float* shift, bool serial) {
    const int64_t rows = inner == 1 ? outer : outer * channels;
    if (serial) return scaleShiftRows<Relu>(x, y, 0, rows, channels, inner, scale, shift);
#pragma omp parallel
    {
        const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
        scaleShiftRows<Relu>(x, y, rows * t / threads, rows * (t + 1) / threads, channels, inner, scale, shift);
    }
}

}  // namespace

/// Inference BatchNormalization is a per-channel scale and shift, folded once from the constants. On plain or
/// channels-last input it runs here: oneDNN's batch normalization took twice ORT's time on resnet50-v2-7's
/// pre-activations. Blocked input goes to oneDNN.
void Builder::buildBatchNorm(const Node& n, const Node* relu) {
    const Shape& x = desc(n.inputs[0]).shape;
    memory src = get(n.inputs[0]);
    std::vector<std::string> names{nodeName(n)};
    if (relu) names.push_back(nodeName(*relu));
    const std::string& out = (relu ? *relu : n).outputs[0];
    const bool plain = sameStorage(src.get_desc(), plainDesc(x));
    const bool channelsLast = !plain && x.size() >= 3 && sameStorage(src.get_desc(), channelsLastDesc(x));
    if (plain || channelsLast) {
        const int64_t channels = x[1];
        int64_t inner = 1;
        if (plain)
            for (size_t d = 2; d < x.size(); ++d) inner *= x[d];
        const int64_t outer = channels * inner == 0 ? 0 : shapeNumel(x) / (channels * inner);
        auto gamma = desc(n.inputs[1]).constant->toFloatVector(), beta = desc(n.inputs[2]).constant->toFloatVector();
        auto mean = desc(n.inputs[3]).constant->toFloatVector(), var = desc(n.inputs[4]).constant->toFloatVector();
        const float eps = n.attrFloat("epsilon", 1e-5f);
        std::vector<float> scale(static_cast<size_t>(channels)), shift(scale.size());
        for (size_t c = 0; c < scale.size(); ++c) {
            scale[c] = gamma[c] / std::sqrt(var[c] + eps);
            shift[c] = beta[c] - mean[c] * scale[c];
        }
        const memory::desc params({channels}, dt::f32, tag::a);
        memory s = packedFloats(chainKey("batchnorm|scale", {indexOf(n)}), params, scale);
        memory b = packedFloats(chainKey("batchnorm|shift", {indexOf(n)}), params, shift);
        memory dst = activation(plain ? plainDesc(x) : channelsLastDesc(x));
        const bool fuseRelu = relu != nullptr, serial = src.get_desc().get_size() < kSerialKernelBytes;
        addKernel([src, dst, s, b, outer, channels, inner, fuseRelu, serial](dnnl::stream&) {
            const auto* in = static_cast<const float*>(src.get_data_handle());
            auto* o = static_cast<float*>(dst.get_data_handle());
            const auto* sp = static_cast<const float*>(s.get_data_handle());
            const auto* bp = static_cast<const float*>(b.get_data_handle());
            if (fuseRelu) scaleShift<true>(in, o, outer, channels, inner, sp, bp, serial);
            else scaleShift<false>(in, o, outer, channels, inner, sp, bp, serial);
        }, names, {src, dst});
        seg.kernels.back().serial = serial;
        mem[out] = dst;
        return;
    }
    using F = dnnl::normalization_flags;
    F flags = F::use_global_stats | F::use_scale | F::use_shift;
    if (relu) flags |= F::fuse_norm_relu;  // inference needs no workspace for it
    dnnl::batch_normalization_forward::primitive_desc pd(
        {dnnl::prop_kind::forward_inference, src.get_desc(), n.attrFloat("epsilon", 1e-5f), flags}, eng);
    memory dst = activation(pd.dst_desc());
    addPrimitive(pd,
                 {{DNNL_ARG_SRC, src}, {DNNL_ARG_SCALE, get(n.inputs[1])}, {DNNL_ARG_SHIFT, get(n.inputs[2])},
                  {DNNL_ARG_MEAN, get(n.inputs[3])}, {DNNL_ARG_VARIANCE, get(n.inputs[4])}, {DNNL_ARG_DST, dst}},
                 names);
    mem[out] = dst;
}

void Builder::buildLayerNorm(const Node& n) {
    const Shape& x = desc(n.inputs[0]).shape;
    int64_t axis = n.attrInt("axis", -1);
    if (axis < 0) axis += static_cast<int64_t>(x.size());
    const int64_t cols = shapeNumel(Shape(x.begin() + axis, x.end())), rows = shapeNumel(x) / cols;
    memory src = view(getAs(n.inputs[0], plainDesc(x), nodeName(n)), {rows, cols});
    const memory::desc params({cols}, dt::f32, tag::a);
    auto param = [&](size_t i, float absent) {
        if (i < n.inputs.size() && !n.inputs[i].empty())
            return constantMemory(n.inputs[i], *desc(n.inputs[i]).constant, {cols});
        return packedFloats(chainKey("layernorm|absent" + std::to_string(i), {indexOf(n)}), params,
                            std::vector<float>(static_cast<size_t>(cols), absent));
    };
    using F = dnnl::normalization_flags;
    const float epsilon = n.attrFloat("epsilon", 1e-5f);
    dnnl::layer_normalization_forward::primitive_desc pd(
        {dnnl::prop_kind::forward_inference, src.get_desc(), epsilon, F::use_scale | F::use_shift}, eng);
    memory dst = activation(pd.dst_desc());
    addPrimitive(pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_SCALE, param(1, 1.f)}, {DNNL_ARG_SHIFT, param(2, 0.f)},
                      {DNNL_ARG_DST, dst}}, {nodeName(n)});
    mem[n.outputs[0]] = view(dst, x);
}

namespace {

enum class ReduceKind { Mean, Sum, Max, Min };

/// out[o][i] = reduce over r of in[o][r][i]: one run of reduced axes with `inner` kept elements inside them. Rows of
/// `inner` are combined (vectorizes); with inner == 1 each output reduces `count` contiguous values (an OpenMP SIMD
/// reduction, partial sums in lanes).
void reduceRows(const float* in, float* out, int64_t outer, int64_t count, int64_t inner, ReduceKind kind) {
#pragma omp parallel for schedule(static)
    for (int64_t o = 0; o < outer; ++o) {
        const float* rows = in + o * count * inner;
        float* acc = out + o * inner;
        if (inner == 1) {
            float v = rows[0];
            if (kind == ReduceKind::Max) {
#pragma omp simd reduction(max : v)
                for (int64_t r = 1; r < count; ++r) v = std::max(v, rows[r]);
            } else if (kind == ReduceKind::Min) {
#pragma omp simd reduction(min : v)
                for (int64_t r = 1; r < count; ++r) v = std::min(v, rows[r]);
            } else {
#pragma omp simd reduction(+ : v)
                for (int64_t r = 1; r < count; ++r) v += rows[r];
            }
            acc[0] = kind == ReduceKind::Mean ? v / static_cast<float>(count) : v;
            continue;
        }
        std::copy(rows, rows + inner, acc);
        for (int64_t r = 1; r < count; ++r) {
            const float* row = rows + r * inner;
            if (kind == ReduceKind::Max) for (int64_t i = 0; i < inner; ++i) acc[i] = std::max(acc[i], row[i]);
            else if (kind == ReduceKind::Min) for (int64_t i = 0; i < inner; ++i) acc[i] = std::min(acc[i], row[i]);
            else for (int64_t i = 0; i < inner; ++i) acc[i] += row[i];
        }
        if (kind == ReduceKind::Mean)
            for (int64_t i = 0; i < inner; ++i) acc[i] /= static_cast<float>(count);
    }
}

}  // namespace

/// ReduceMean/Sum/Max/Min over constant axes; keepdims=0 is a free view of the result. One run of adjacent axes (the
/// usual case: spatial means) is reduced here, in the layout the producer left when that is channels-last and the
/// axes are H and W, since oneDNN's reduction took 0.45 ms for a mean over 7x7 of [1,1280,7,7] (its jit kernel) or
/// 150 us for LPRNet's over H of [1,68,4,18] (its reference loop). Other axis sets go to oneDNN.
void Builder::buildReduce(const Node& n) {
    using A = dnnl::algorithm;
    std::string why;
    auto axes = reduceAxes(makeNodeQuery(q, indexOf(n)), why);
    if (!axes) throw std::runtime_error(why);
    const Shape& x = desc(n.inputs[0]).shape;
    Shape kept = x;
    for (int64_t a : *axes) kept[static_cast<size_t>(a)] = 1;
    const std::string& op = n.opType;
    if (kept == x) {  // only axes of size 1: each output is its one input (oneDNN refuses a reduction of nothing)
        mem[n.outputs[0]] = reshaped(n.inputs[0], x, desc(n.outputs[0]).shape, dt::f32, nodeName(n));
        return;
    }
    const bool oneRun = axes->back() - axes->front() + 1 == static_cast<int64_t>(axes->size());
    memory dst;
    if (oneRun) {
        const ReduceKind kind = op == "ReduceMean"  ? ReduceKind::Mean
                                : op == "ReduceSum" ? ReduceKind::Sum
                                : op == "ReduceMax" ? ReduceKind::Max
                                                    : ReduceKind::Min;
        int64_t outer = 1, count = 1, inner = 1;
        const bool spatial = x.size() == 4 && *axes == std::vector<int64_t>{2, 3};
        memory src = get(n.inputs[0]);
        if (spatial && src.get_desc() == memory::desc(toDims(x), dt::f32, tag::acdb)) {
            outer = x[0], count = x[2] * x[3], inner = x[1];  // [N,H,W,C] storage: rows of C; out [N,C] is plain
        } else {
            src = getAs(n.inputs[0], plainDesc(x), nodeName(n));
            for (size_t d = 0; d < x.size(); ++d) {
                const auto axis = static_cast<int64_t>(d);
                (axis < axes->front() ? outer : axis > axes->back() ? inner : count) *= x[d];
            }
        }
        dst = activation(plainDesc(kept));
        addKernel([src, dst, outer, count, inner, kind](dnnl::stream&) {
            reduceRows(static_cast<const float*>(src.get_data_handle()), static_cast<float*>(dst.get_data_handle()),
                       outer, count, inner, kind);
        }, {nodeName(n)}, {src, dst});
        seg.kernels.back().serial = outer == 1 || src.get_desc().get_size() < kSerialKernelBytes;
    } else {
        A alg = op == "ReduceMean" ? A::reduction_mean : op == "ReduceSum" ? A::reduction_sum
              : op == "ReduceMax" ? A::reduction_max : A::reduction_min;
        memory src = getAs(n.inputs[0], plainDesc(x), nodeName(n));
        dnnl::reduction::primitive_desc pd({alg, src.get_desc(), plainDesc(kept), 0.f, 0.f}, eng);
        dst = activation(pd.dst_desc());
        addPrimitive(pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, {nodeName(n)});
    }
    const Shape& y = desc(n.outputs[0]).shape;
    mem[n.outputs[0]] = y == kept ? dst : view(dst, y);
}

}  // namespace npuwb::onednn
