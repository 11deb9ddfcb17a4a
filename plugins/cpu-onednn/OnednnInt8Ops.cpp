// The int8 kernels of the segment builder (chains matched by OnednnInt8Plan.cpp), QuantizeLinear and the lazy
// DequantizeLinear.
#include "OnednnSegmentBuilder.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "npuwb/sdk/ReferenceKernels.h"

namespace npuwb::onednn {

namespace {

/// The size of an int8 layer as AMX sees it: tiles of 16 rows of 64 bytes multiply K = 64 input channels (x the
/// kernel window) into N = 16 output channels at a time.
struct Int8LayerSize {
    int64_t macs = 0, inputChannels = 0, outputChannels = 0;
};

/// Whether oneDNN's AMX int8 implementation `impl` beats its AVX-512 VNNI one. Measured per layer over the benchmark
/// corpus (AMX time / VNNI time, 1 and 2 threads): the brgemm kernels ("brgconv", "brg") 0.4-0.6 at every size; the
/// direct 1x1 kernel ("jit_1x1") 1.7-2.6 below 2^25 MACs, 1.25-1.5 up to 2^27, 0.63-0.74 above: it configures
/// tiles and packs per call; the direct kernel ("jit") 0.9-1.0 at 2^25 MACs, 0.7-0.8 at 2^26, 0.5 above, but
/// 1.2-1.7 with fewer than 64 input channels or output channels not a multiple of 16 (yolov5n's 3/16/32-channel
/// layers, its 255-channel heads): part of every tile is padding. Whole models: ch_ppocr cls 1.8 -> 0.7 ms.
/// NPUWB_ONEDNN_AMX=always|never overrides (A/B timing).
bool amxPays(const std::string& impl, const Int8LayerSize& size) {
    if (const char* force = std::getenv("NPUWB_ONEDNN_AMX"); force && *force) return std::strcmp(force, "never") != 0;
    if (impl.find("brg") != std::string::npos) return true;
    if (impl.find("jit_1x1") != std::string::npos) return size.macs >= int64_t{1} << 27;
    return size.macs >= int64_t{1} << 25 && size.inputChannels >= 64 && size.outputChannels % 16 == 0;
}

/// The primitive `make()` builds, or the first of oneDNN's later implementations that is neither an AMX one that
/// does not pay nor a reference one (none: the first).
template <class PrimitiveDesc, class Make>
PrimitiveDesc int8PrimitiveFor(const Make& make, const Int8LayerSize& size) {
    PrimitiveDesc pd = make();
    do {
        const std::string impl = pd.impl_info_str();
        if (impl.find("ref") != std::string::npos) break;
        if (impl.find("amx") == std::string::npos || amxPays(impl, size)) return pd;
    } while (pd.next_impl());
    return make();
}

}  // namespace

void Builder::buildInt8Movement(const Node& n) {
    auto columns = columnSliceQuant.find(indexOf(n));
    const auto [source, info] = columns != columnSliceQuant.end()
                                    ? std::make_pair(int8Name(n.inputs[0]), columns->second)
                                    : dequantizedFrom.at(n.inputs[0]);
    const std::string out = int8Name(n.outputs[0]);
    const dt type = dnnlType(info.type);
    if (n.opType == "Transpose") {
        buildTranspose(n, source, out, type);
    } else if (n.opType == "Slice") {
        buildSlice(n, source, out, type);
    } else {
        mem[out] = reshaped(source, desc(n.inputs[0]).shape, desc(n.outputs[0]).shape, type, nodeName(n));
    }
    lazyDequantize(n.outputs[0], out, info, nodeName(n));
}

void Builder::buildInt8Chain(const std::vector<size_t>& chain) {
    const std::string& op = node(chain[0]).opType;
    if (isTableOp(node(chain[0]))) return buildInt8Table(chain);  // before Add/Mul: those of a constant are tables
    if (auto perChannel = op == "Add" || op == "Mul" ? channelBroadcastInput(node(chain[0])) : std::nullopt)
        return buildInt8ChannelBroadcast(chain, *perChannel);
    if (op == "Add" || op == "Mul") return buildInt8Binary(chain);
    if (op == "MaxPool") return buildInt8MaxPool(chain);
    if (op == "GlobalAveragePool") return buildInt8GlobalAveragePool(chain);
    if (op == "Concat") return buildInt8Concat(chain);
    return buildInt8Matmul(chain);
}

void Builder::buildInt8Matmul(const std::vector<size_t>& chain) {
    const Node& n = node(chain[0]);
    const bool qlinear = isQLinearOp(n.opType);
    const bool conv = n.opType == "Conv" || n.opType == "QLinearConv";
    const Node& last = node(chain.back());
    std::string source, weightValue = n.inputs[qlinear ? 3 : 1];
    QuantInfo x;
    Int8Weights w;
    std::optional<QuantInfo> y;
    const std::vector<QuantInfo>* perColumn = nullptr;  // y per output column (Slices quantized apart)
    std::vector<float> bias;
    if (qlinear) {
        std::string why;
        auto p = qlinearParams(q, n, why);
        if (!p) throw std::runtime_error(why);
        source = n.inputs[0], x = p->x, y = p->y, w = std::move(p->w), bias = std::move(p->bias);
    } else {
        std::tie(source, x) = *dequantizedInput(n.inputs[0]);
        w = *int8Weights(n);
        if (last.opType == "QuantizeLinear") y = quantParamsOf(q, last);
        if (auto moved = quantizedThroughMovement.find(chain[0]); moved != quantizedThroughMovement.end())
            y = quantParamsOf(q, node(moved->second));
        if (auto columns = quantizedPerColumn.find(chain[0]); columns != quantizedPerColumn.end())
            perColumn = &columns->second, y = perColumn->front();
        std::string biasValue = n.inputs.size() > 2 ? n.inputs[2] : std::string();
        if (chain.size() > 1 && node(chain[1]).opType == "Add") {  // MatMul's bias, planned by biasAddAfter
            const Node& add = node(chain[1]);
            biasValue = add.inputs[0] == n.outputs[0] ? add.inputs[1] : add.inputs[0];
        }
        bias = accumulatorBias(q, biasValue, x.scale, w.scales);
    }
    const size_t channels = w.scales.size();
    // SiLU is not linear: it sees the real value (output scale x_scale * w_scale), then a linear step goes to y's
    // units. Relu and Clip see y's units directly.
    const bool silu = std::any_of(chain.begin(), chain.end(), [&](size_t k) { return node(k).opType == "Sigmoid"; });
    std::vector<float> scales(channels);
    for (size_t c = 0; c < channels; ++c)
        scales[c] = x.scale * w.scales[c] / (perColumn ? (*perColumn)[c].scale : y && !silu ? y->scale : 1.f);
    if (perColumn && perColumn->size() != channels) throw std::runtime_error("column parameters do not match N");
    const bool zeroPerColumn = perColumn && std::any_of(perColumn->begin(), perColumn->end(), [&](const QuantInfo& c) {
                                   return c.zero != perColumn->front().zero;
                               });

    dnnl::primitive_attr attr;
    attr.set_output_scales(1 << 1, scales);  // dim 1 of dst: output channels (Conv) or N (Gemm)
    // Zero points as run-time arguments: the form oneDNN 2.x's int8 convolutions implement.
    std::unordered_map<int, memory> zeroArgs;
    auto zeroPoint = [&](int arg, int32_t value) {
        attr.set_zero_points(arg, 0, {DNNL_RUNTIME_S32_VAL});
        memory m(memory::desc({1}, dt::s32, tag::a), eng);
        *static_cast<int32_t*>(m.get_data_handle()) = value;
        zeroArgs[DNNL_ARG_ATTR_ZERO_POINTS | arg] = m;
    };
    if (x.zero != 0) zeroPoint(DNNL_ARG_SRC, x.zero);
    if (y && y->zero != 0) zeroPoint(DNNL_ARG_DST, y->zero);
    dnnl::post_ops ops;
    if (silu) {
        ops.append_eltwise(1.f, dnnl::algorithm::eltwise_swish, 1.f, 0.f);  // x * sigmoid(1 * x)
        if (y) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, 1.f / y->scale, 0.f);
    }
    for (size_t k = 1; k < chain.size(); ++k) {
        const Node& a = node(chain[k]);
        if (a.opType == "Relu") ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
        if (a.opType == "Clip") {  // post-ops see the scaled value, in units of y's scale
            auto b = clipBounds(makeNodeQuery(q, indexOf(a)));
            const float unit = y ? y->scale : 1.f;
            ops.append_eltwise(1.f, dnnl::algorithm::eltwise_clip_v2, b->first / unit, b->second / unit);
        }
    }
    // Round to an integer before the zero point is added, as ONNX's QuantizeLinear and ORT's requantization do:
    // oneDNN adds it to the scaled float first, and rounding 74.5 + 129 or 6.499993 + 129 (135.5 in float) gave
    // one more than rint(v) + zero point. One flip in 10^5 at a first layer grew to a 0.9989 output cosine
    // against ORT on PP-OCRv4 det.
    if (y) ops.append_eltwise(1.f, dnnl::algorithm::eltwise_round, 0.f, 0.f);
    // Zero points per column (oneDNN's destination zero point is one value): the first column's as that value, the
    // others' differences in the bias, in accumulator units. Adding them before the rounding can move a value within
    // float precision of .5 by one step (a binary post-op after it would be exact but costs a third of the GEMM).
    if (zeroPerColumn)
        for (size_t c = 0; c < channels; ++c) bias[c] += float((*perColumn)[c].zero - y->zero) / scales[c];
    attr.set_post_ops(ops);
    const dt srcType = dnnlType(x.type), dstType = y ? dnnlType(y->type) : dt::f32;
    const Shape& yShape = desc(n.outputs[0]).shape;
    const int64_t oc = static_cast<int64_t>(channels);
    memory::desc biasDesc = conv ? memory::desc({oc}, dt::f32, tag::a) : memory::desc({1, oc}, dt::f32, tag::ab);
    memory::dims wdims;
    tag wtag;
    dnnl::primitive_desc_base pd;
    memory::desc srcDesc, wDesc, dstDesc;
    std::string implInfo;
    const std::vector<std::string> names = namesOf(chain);
    if (conv) {
        const ValueDesc& xd = desc(n.inputs[0]);
        const Shape& ws = desc(weightValue).shape;
        const int64_t group = n.attrInt("group", 1);
        std::string why;
        auto win = resolveWindow(n, xd.shape, yShape, {ws[2], ws[3]}, why);
        if (!win) throw std::runtime_error(why);
        wdims = group > 1 ? memory::dims{group, oc / group, ws[1], ws[2], ws[3]} : toDims(ws);
        wtag = group > 1 ? tag::goihw : tag::oihw;
        dnnl::convolution_forward::desc d(
            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
            memory::desc(toDims(xd.shape), srcType, tag::any), memory::desc(wdims, dt::s8, tag::any), biasDesc,
            memory::desc(toDims(yShape), dstType, tag::any), toDims(win->strides),
            {win->dilations[0] - 1, win->dilations[1] - 1}, toDims(win->padsBegin), toDims(win->padsEnd));
        const Int8LayerSize size{.macs = shapeNumel(yShape) * ws[1] * ws[2] * ws[3], .inputChannels = ws[1],
                                 .outputChannels = oc / group};
        auto convPd = int8PrimitiveFor<dnnl::convolution_forward::primitive_desc>(
            [&] { return dnnl::convolution_forward::primitive_desc(d, attr, eng); }, size);
        srcDesc = convPd.src_desc(), wDesc = convPd.weights_desc(), dstDesc = convPd.dst_desc();
        implInfo = convPd.impl_info_str();
        pd = convPd;
    } else {
        const Shape& a = desc(n.inputs[0]).shape;
        const int64_t k = a.back(), rows = shapeNumel(a) / std::max<int64_t>(1, k);
        // ONNX B is [K,N], or [N,K] with transB: either way oneDNN reads it as [K,N] (a strided view when transposed).
        const bool transB = n.opType == "Gemm" && n.attrInt("transB", 0);
        if (desc(weightValue).shape[0] != (transB ? oc : k)) throw std::runtime_error("B does not match A");
        wdims = {k, oc};
        wtag = transB ? tag::ba : tag::ab;
        dnnl::matmul::desc d(memory::desc({rows, k}, srcType, tag::ab), memory::desc(wdims, dt::s8, tag::any),
                             biasDesc, memory::desc({rows, oc}, dstType, tag::ab));
        auto matmulPd = int8PrimitiveFor<dnnl::matmul::primitive_desc>(
            [&] { return dnnl::matmul::primitive_desc(d, attr, eng); },
            Int8LayerSize{.macs = rows * k * oc, .inputChannels = k, .outputChannels = oc});
        srcDesc = matmulPd.src_desc(), wDesc = matmulPd.weights_desc(), dstDesc = matmulPd.dst_desc();
        implInfo = matmulPd.impl_info_str();
        pd = matmulPd;
    }
    // Weights and bias are packed once, here (the reorder adds oneDNN's s8 compensation when the layout asks).
    // The reorder reads the model's int8 constant in place.
    const std::string key = chainKey("int8", chain);
    memory wPacked = packed(key + "|w", wDesc, [&](memory& to) {
        convertNow(memory(memory::desc(wdims, dt::s8, wtag), eng, const_cast<int8_t*>(w.values.data())), to);
    });
    memory b = packedFloats(key + "|b", biasDesc, bias);
    const Shape& aShape = desc(n.inputs[0]).shape;
    const bool collapsed = !conv && aShape.size() > 2;  // A's rows as one [rows, K] matrix, the output likewise
    memory src;
    if (collapsed) {
        src = reshaped(source, aShape, {srcDesc.dims()[0], srcDesc.dims()[1]}, srcType, names[0]);
        if (src.get_desc() != srcDesc) {
            memory plain = activation(srcDesc);
            addPrimitive(dnnl::reorder::primitive_desc(src, plain), {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, plain}}, names);
            src = plain;
        }
    } else {
        src = getAs(source, srcDesc, names[0]);
    }
    memory dst = activation(dstDesc);
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wPacked}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dst}};
    args.insert(zeroArgs.begin(), zeroArgs.end());
    addPrimitive(pd, args, names);
    if (std::getenv("NPUWB_ONEDNN_VERBOSE")) std::fprintf(stderr, "cpu-onednn int8 %s: %s\n", names[0].c_str(), implInfo.c_str());
    memory out = collapsed ? view(dst, yShape, dstType) : dst;
    if (perColumn) {  // bytes under their own name, read only by the Slices (each knows its parameters)
        mem[int8Name(last.outputs[0])] = out;
        return;
    }
    if (quantizedThroughMovement.count(chain[0])) {  // bytes under their own name; the float value is their image
        mem[int8Name(last.outputs[0])] = out;
        lazyDequantize(last.outputs[0], int8Name(last.outputs[0]), *y, names.back());
        return;
    }
    mem[last.outputs[0]] = out;
}

std::pair<float, float> Builder::chainActivationBounds(const std::vector<size_t>& chain) const {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    if (chain.size() == 3) {  // op -> Relu|Clip -> Q
        const Node& act = node(chain[1]);
        if (act.opType == "Relu") lo = 0.f;
        else std::tie(lo, hi) = *clipBounds(makeNodeQuery(q, indexOf(act)));
    }
    return {lo, hi};
}

void Builder::buildInt8Binary(const std::vector<size_t>& chain) {
    const Node& n = node(chain[0]);
    auto [sourceA, a] = *dequantizedInput(n.inputs[0]);
    auto [sourceB, b] = *dequantizedInput(n.inputs[1]);
    const QuantizedBinary op = n.opType == "Mul" ? QuantizedBinary::Multiply : QuantizedBinary::Add;
    if (node(chain.back()).opType != "QuantizeLinear") {  // the float result, from the bytes
        memory ma = get(sourceA);
        memory mb = getAs(sourceB, withType(ma.get_desc(), dnnlType(b.type)), nodeName(n));
        memory dst = activation(withType(ma.get_desc(), dt::f32));
        const size_t count = ma.get_desc().get_size() / memory::data_type_size(ma.get_desc().data_type());
        auto alongside = quantizedAlongside.find(chain[0]);
        if (alongside == quantizedAlongside.end()) {
            addKernel([op, ma, mb, dst, count, a, b](dnnl::stream&) {
                binaryDequantizedBuffers(op, ma.get_data_handle(), mb.get_data_handle(),
                                         static_cast<float*>(dst.get_data_handle()), count, a, b);
            }, namesOf(chain), {ma, mb, dst});
        } else {  // and its QuantizeLinear's bytes (that node then builds nothing)
            const Node& quantize = node(alongside->second);
            const QuantInfo y = *quantParamsOf(q, quantize);
            memory bytes = activation(withType(ma.get_desc(), dnnlType(y.type)));
            addKernel([op, ma, mb, dst, bytes, count, a, b, y](dnnl::stream&) {
                binaryDequantizedBuffers(op, ma.get_data_handle(), mb.get_data_handle(),
                                         static_cast<float*>(dst.get_data_handle()), count, a, b, y,
                                         bytes.get_data_handle());
            }, {nodeName(n), nodeName(quantize)}, {ma, mb, dst, bytes});
            mem[quantize.outputs[0]] = bytes;
        }
        mem[n.outputs[0]] = dst;
        return;
    }
    QuantInfo y = *quantParamsOf(q, node(chain.back()));
    const std::pair<float, float> bounds = chainActivationBounds(chain);
    const float lo = bounds.first, hi = bounds.second;
    const std::vector<std::string> names = namesOf(chain);
    memory ma = get(sourceA);
    memory mb = getAs(sourceB, withType(ma.get_desc(), dnnlType(b.type)), names[0]);
    memory dst = activation(withType(ma.get_desc(), dnnlType(y.type)));
    const size_t count = ma.get_desc().get_size() / memory::data_type_size(ma.get_desc().data_type());
    addKernel([op, ma, mb, dst, count, a, b, y, lo, hi](dnnl::stream&) {
        binaryQuantizedBuffers(op, ma.get_data_handle(), mb.get_data_handle(), dst.get_data_handle(), count, a, b, y,
                               lo, hi);
    }, names, {ma, mb, dst});
    mem[node(chain.back()).outputs[0]] = dst;
}

void Builder::buildInt8ChannelBroadcast(const std::vector<size_t>& chain, size_t perChannelInput) {
    const Node& n = node(chain[0]);
    auto [sourceX, x] = *dequantizedInput(n.inputs[1 - perChannelInput]);
    auto [sourceS, s] = *dequantizedInput(n.inputs[perChannelInput]);
    const QuantInfo y = *quantParamsOf(q, node(chain.back()));
    const std::pair<float, float> bounds = chainActivationBounds(chain);
    const float lo = bounds.first, hi = bounds.second;
    const std::vector<std::string> names = namesOf(chain);
    const Shape& xs = desc(n.outputs[0]).shape;
    const Shape& ss = desc(n.inputs[perChannelInput]).shape;
    memory mx = get(sourceX);
    auto layout = channelLayoutOf(mx.get_desc());
    if (!layout) {  // another layout: to plain once
        mx = getAs(sourceX, plainDesc(xs, dnnlType(x.type)), names[0]);
        layout = channelLayoutOf(mx.get_desc());
    }
    memory ms = getAs(sourceS, plainDesc(ss, dnnlType(s.type)), names[0]);
    memory dst = activation(withType(mx.get_desc(), dnnlType(y.type)));
    const bool batched = padRank(ss, xs.size())[0] != 1;
    const QuantizedBinary op = n.opType == "Mul" ? QuantizedBinary::Multiply : QuantizedBinary::Add;
    const ChannelLayout l = *layout;
    addKernel([op, mx, ms, dst, l, batched, x, s, y, lo, hi](dnnl::stream&) {
        channelBroadcastQuantized(op, mx.get_data_handle(), ms.get_data_handle(), dst.get_data_handle(), l, batched, x,
                                  s, y, lo, hi);
    }, names, {mx, ms, dst});
    mem[node(chain.back()).outputs[0]] = dst;
}

void Builder::buildInt8Table(const std::vector<size_t>& chain) {
    const Node& n = node(chain[0]);
    const std::string& variable = n.inputs[*tableInput(n)];
    auto [source, x] = *dequantizedInput(variable);
    const QuantInfo y = *quantParamsOf(q, node(chain.back()));
    std::array<uint8_t, 256> bytes{}, table{};
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i);
    Tensor inputs(DType::F32, {256});
    dequantizeBuffer(bytes.data(), inputs.data<float>(), 256, x);
    std::map<std::string, Value> values{{variable, Value(inputs)}};
    for (size_t k = 0; k + 1 < chain.size(); ++k) {
        const Node& op = node(chain[k]);
        std::vector<const Value*> in;
        for (const auto& name : op.inputs) {
            if (name.empty()) {
                in.push_back(nullptr);
                continue;
            }
            if (!values.count(name) && desc(name).constant) values[name] = Value(*desc(name).constant);  // Clip's bounds
            in.push_back(&values.at(name));
        }
        values[op.outputs[0]] = runReferenceNode(op, q.opset, in).at(0);
    }
    const Value& last = values.at(node(chain[chain.size() - 2]).outputs[0]);
    if (!last.isTensor() || last.tensor.dtype() != DType::F32 || last.tensor.numel() != 256)
        throw std::runtime_error(n.opType + " is not elementwise here");
    quantizeBuffer(last.tensor.data<float>(), table.data(), 256, y);
    memory src = get(source);
    memory dst = activation(withType(src.get_desc(), dnnlType(y.type)));
    const size_t count = src.get_desc().get_size();  // one byte per element
    addKernel([table, src, dst, count](dnnl::stream&) {
        lookUpBuffer(table, src.get_data_handle(), dst.get_data_handle(), count);
    }, namesOf(chain), {src, dst});
    mem[node(chain.back()).outputs[0]] = dst;
}

void Builder::buildInt8MaxPool(const std::vector<size_t>& chain) {
    const Node& n = node(chain[0]);
    auto [source, x] = *dequantizedInput(n.inputs[0]);
    const Shape& xs = desc(n.inputs[0]).shape;
    const Shape& ys = desc(n.outputs[0]).shape;
    std::string why;
    auto win = resolveWindow(n, xs, ys, n.attrInts("kernel_shape"), why);
    if (!win) throw std::runtime_error(why);
    memory src = get(source);
    dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, src.get_desc(),
                                     memory::desc(toDims(ys), dnnlType(x.type), tag::any), toDims(win->strides),
                                     toDims(win->kernel), {win->dilations[0] - 1, win->dilations[1] - 1},
                                     toDims(win->padsBegin), toDims(win->padsEnd));
    dnnl::pooling_v2_forward::primitive_desc pd(d, eng);
    memory dst = activation(pd.dst_desc());
    addPrimitive(pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, namesOf(chain));
    mem[node(chain.back()).outputs[0]] = dst;
}

void Builder::buildInt8GlobalAveragePool(const std::vector<size_t>& chain) {
    const Node& n = node(chain[0]);
    auto [source, x] = *dequantizedInput(n.inputs[0]);
    const QuantInfo y = *quantParamsOf(q, node(chain.back()));
    const Shape& xs = desc(n.inputs[0]).shape;
    const size_t planes = static_cast<size_t>(xs[0] * xs[1]);
    const size_t pixels = static_cast<size_t>(shapeNumel(xs)) / std::max<size_t>(planes, 1);
    // NHWC (what oneDNN's int8 convolutions write) or nChw16c is summed in place: a reorder to NCHW cost 10x the
    // pool.
    memory src = get(source);
    auto layout = channelLayoutOf(src.get_desc());
    if (!layout) {
        src = getAs(source, plainDesc(xs, dnnlType(x.type)), nodeName(n));
        layout = ChannelLayout{static_cast<size_t>(xs[0]), static_cast<size_t>(xs[1]), pixels};
    }
    memory dst = activation(plainDesc(desc(n.outputs[0]).shape, dnnlType(y.type)));
    const ChannelLayout l = *layout;
    addKernel([src, dst, l, x, y](dnnl::stream&) {
        averagePoolQuantized(src.get_data_handle(), dst.get_data_handle(), l, x, y);
    }, namesOf(chain), {src, dst});
    mem[node(chain.back()).outputs[0]] = dst;
}

void Builder::buildInt8Concat(const std::vector<size_t>& chain) {
    const Node& n = node(chain[0]);
    const QuantInfo y = *quantParamsOf(q, node(chain.back()));
    const std::vector<std::string> names = namesOf(chain);
    std::vector<memory> srcs;
    std::vector<memory::desc> mds;
    for (const auto& in : n.inputs) {
        auto [source, info] = *dequantizedInput(in);
        memory m = get(source);
        if (!(info == y)) {
            memory r = activation(withType(m.get_desc(), dnnlType(y.type)));
            const size_t count = m.get_desc().get_size() / memory::data_type_size(m.get_desc().data_type());
            QuantInfo from = info;
            addKernel([m, r, count, from, y](dnnl::stream&) {
                requantizeBuffer(m.get_data_handle(), r.get_data_handle(), count, from, y);
            }, names, {m, r});
            m = r;
        }
        srcs.push_back(m);
        mds.push_back(m.get_desc());
    }
    const Shape& ys = desc(n.outputs[0]).shape;
    int64_t axis = n.attrInt("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(ys.size());
    dnnl::concat::primitive_desc pd(memory::desc(toDims(ys), dnnlType(y.type), tag::any), static_cast<int>(axis), mds, eng);
    memory dst = activation(pd.dst_desc());
    std::unordered_map<int, memory> args{{DNNL_ARG_DST, dst}};
    for (size_t i = 0; i < srcs.size(); ++i) args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = srcs[i];
    addPrimitive(pd, args, names);
    mem[node(chain.back()).outputs[0]] = dst;
}

void Builder::buildDequantize(const Node& n) {
    lazyDequantize(n.outputs[0], n.inputs[0], *quantParamsOf(q, n), nodeName(n));
}

void Builder::lazyDequantize(const std::string& out, const std::string& source, const QuantInfo& info, const std::string& name) {
    dequantizedFrom[out] = {source, info};
    lazy[out] = [this, source, out, info, name] {
        memory s = get(source);
        memory d = activation(withType(s.get_desc(), dt::f32));
        const size_t count = s.get_desc().get_size() / memory::data_type_size(s.get_desc().data_type());
        addKernel([s, d, count, info](dnnl::stream&) {
            dequantizeBuffer(s.get_data_handle(), static_cast<float*>(d.get_data_handle()), count, info);
        }, {name}, {s, d});
        mem[out] = d;
    };
}

void Builder::buildQuantize(const Node& n) {
    if (mem.count(n.outputs[0])) return;  // written by its input's kernel (quantizedAlongside)
    const QuantInfo out = *quantParamsOf(q, n);
    const std::string& in = n.inputs[0];
    const std::string name = nodeName(n);
    auto dq = dequantizedFrom.find(in);
    if (dq != dequantizedFrom.end()) {
        const auto& [source, info] = dq->second;
        memory s = get(source);
        if (info == out) {
            mem[n.outputs[0]] = s;
            return;
        }
        memory d = activation(withType(s.get_desc(), dnnlType(out.type)));
        const size_t count = s.get_desc().get_size() / memory::data_type_size(s.get_desc().data_type());
        QuantInfo from = info;
        addKernel([s, d, count, from, out](dnnl::stream&) {
            requantizeBuffer(s.get_data_handle(), d.get_data_handle(), count, from, out);
        }, {name}, {s, d});
        mem[n.outputs[0]] = d;
        return;
    }
    memory s = get(in);
    memory d = activation(withType(s.get_desc(), dnnlType(out.type)));
    const size_t count = s.get_desc().get_size() / sizeof(float);
    addKernel([s, d, count, out](dnnl::stream&) {
        quantizeBuffer(static_cast<const float*>(s.get_data_handle()), d.get_data_handle(), count, out);
    }, {name}, {s, d});
    mem[n.outputs[0]] = d;
}

}  // namespace npuwb::onednn
