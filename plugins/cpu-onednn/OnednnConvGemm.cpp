// fp32 lowering of the compute-heavy ops: Conv chains (Winograd where it pays), ConvTranspose, pooling, Gemm
// (MatMul: OnednnMatmulChain.cpp).
#include "OnednnSegmentBuilder.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace npuwb::onednn {

/// Winograd F(2x2,3x3) for a 3x3, stride 1, undilated, ungrouped Conv: about 0.55x the time of the direct kernel
/// (resnet18 at 2 threads: 0.59 vs 1.0 ms for 64->64 at 56x56), but its weight transform at creation is slow and
/// grows with IC*OC while the saving grows with the output size. Measured (transform once / saving per run): 64x64
/// at 56x56 0.8 ms / 0.46 ms, 256x256 at 14x14 10 ms / 0.38 ms, 512x512 at 7x7 39 ms / 0.23 ms. Taken where the
/// transform costs at most a few runs' saving. F(4x4,3x3), which oneDNN prefers for some shapes, is refused: its
/// error reached 1.07e-4 on the differential cases (128->128 at 28x28), above the 1e-4 tolerance.
bool winogradPays(const Shape& weights, int64_t group, const Window& win, const Shape& y) {
    constexpr int64_t kMinOutputPixels = 28 * 28, kMaxChannelProduct = 128 * 128;
    if (group != 1 || weights.size() != 4 || y.size() != 4 || weights[2] != 3 || weights[3] != 3) return false;
    for (size_t i = 0; i < 2; ++i)
        if (win.strides[i] != 1 || win.dilations[i] != 1) return false;
    return y[2] * y[3] >= kMinOutputPixels && weights[0] * weights[1] <= kMaxChannelProduct;
}

void Builder::buildConvChain(const std::vector<size_t>& chain) {
    const Node& conv = node(chain[0]);
    const ValueDesc& x = desc(conv.inputs[0]);
    const ValueDesc& w = desc(conv.inputs[1]);
    const Shape& y = desc(conv.outputs[0]).shape;
    const int64_t group = conv.attrInt("group", 1), oc = w.shape[0];
    std::string why;
    const std::vector<int64_t> kernel(w.shape.begin() + 2, w.shape.end());  // 1-D (Conv1d) or 2-D
    auto win = resolveWindow(conv, x.shape, y, kernel, why);
    if (!win) throw std::runtime_error(why);
    int64_t taps = 1;
    for (int64_t k : kernel) taps *= k;

    // Post-ops first: what folds into the weights decides whether they are read in place.
    dnnl::post_ops ops;
    std::string residual;
    const Node* batchNorm = nullptr;
    std::vector<EltwiseStep> steps;
    for (size_t k = 1; k < chain.size(); ++k) {
        const Node& n = node(chain[k]);
        if (auto d = decomposedAt.find(chain[k]); d != decomposedAt.end()) {  // HardSwish or SiLU as several nodes
            appendStep(steps, d->second.first);
            k += d->second.second - 1;
        } else if (n.opType == "BatchNormalization") {
            batchNorm = &n;
        } else if (n.opType == "Add" && !isScalarAffine(n, node(chain[k - 1]).outputs[0])) {
            const std::string& prev = node(chain[k - 1]).outputs[0];
            residual = n.inputs[0] == prev ? n.inputs[1] : n.inputs[0];
            ops.append_sum(1.f);
        } else {
            for (const EltwiseStep& step : eltwiseOf(n)) appendStep(steps, step);
        }
    }
    // A linear step straight after the Conv (and its BatchNormalization) is a*conv + b: it folds as well (planFusion
    // kept one more linear step at most, see postOpsSupported).
    std::optional<EltwiseStep> leadingLinear;
    if (residual.empty() && !steps.empty() && std::get<0>(steps.front()) == dnnl::algorithm::eltwise_linear) {
        leadingLinear = steps.front();
        steps.erase(steps.begin());
    }
    // Float weights are read in place unless something folds into them (no copy of the model's weights).
    const bool inPlace = !batchNorm && !leadingLinear && w.constant->dtype() == DType::F32;
    std::vector<float> weights = inPlace ? std::vector<float>{} : w.constant->toFloatVector();
    std::vector<float> bias(static_cast<size_t>(oc), 0.f);
    if (conv.inputs.size() > 2 && !conv.inputs[2].empty()) bias = desc(conv.inputs[2]).constant->toFloatVector();
    const size_t per = weights.size() / static_cast<size_t>(oc);
    if (batchNorm) {  // w' = w*s, b' = (b-mean)*s + beta, s = gamma/sqrt(var+eps)
        const Node& n = *batchNorm;
        auto gamma = desc(n.inputs[1]).constant->toFloatVector(), beta = desc(n.inputs[2]).constant->toFloatVector();
        auto mean = desc(n.inputs[3]).constant->toFloatVector(), var = desc(n.inputs[4]).constant->toFloatVector();
        const float eps = n.attrFloat("epsilon", 1e-5f);
        for (size_t o = 0; o < static_cast<size_t>(oc); ++o) {
            float s = gamma[o] / std::sqrt(var[o] + eps);
            for (size_t i = 0; i < per; ++i) weights[o * per + i] *= s;
            bias[o] = (bias[o] - mean[o]) * s + beta[o];
        }
    }
    if (leadingLinear) {  // w' = a*w, b' = a*b + c
        const auto [alg, a, c] = *leadingLinear;
        for (float& v : weights) v *= a;
        for (float& v : bias) v = a * v + c;
    }
    // The parts: the whole input, or each input of a Concat the Conv absorbed (planConcatIntoConv), on its slice of
    // the input channels; every part after the first adds onto the output.
    struct Part {
        std::string input;
        int64_t channelBegin, channels;
    };
    std::vector<Part> parts;
    std::vector<std::string> names = namesOf(chain);
    std::vector<size_t> readers = chain;  // the nodes this Conv's kernels stand for
    if (auto cat = concatInto.find(chain[0]); cat != concatInto.end()) {
        readers.insert(readers.begin(), cat->second);
        int64_t at = 0;
        for (const auto& in : node(cat->second).inputs) {
            parts.push_back({in, at, desc(in).shape[1]});
            at += desc(in).shape[1];
        }
        names.insert(names.begin(), nodeName(node(cat->second)));
        if (inPlace) weights = w.constant->toFloatVector();
    } else {
        parts.push_back({conv.inputs[0], 0, w.shape[1]});
    }
    const bool split = parts.size() > 1;
    auto any = [](const memory::dims& d) { return memory::desc(d, dt::f32, tag::any); };
    memory::dims dil;
    for (int64_t d : win->dilations) dil.push_back(d - 1);  // oneDNN counts the taps skipped
    const std::string key = chainKey("conv", chain);
    memory dst;
    for (size_t p = 0; p < parts.size(); ++p) {
        const Part& part = parts[p];
        dnnl::post_ops partOps = p == 0 ? ops : dnnl::post_ops{};
        if (p > 0) partOps.append_sum(1.f);
        if (p + 1 == parts.size())
            for (auto [alg, alpha, beta] : steps) partOps.append_eltwise(1.f, alg, alpha, beta);
        dnnl::primitive_attr attr;
        attr.set_post_ops(partOps);
        memory::dims wdims = group > 1 ? memory::dims{group, oc / group, w.shape[1]} : memory::dims{oc, part.channels};
        wdims.insert(wdims.end(), kernel.begin(), kernel.end());
        const bool oneD = kernel.size() == 1;
        const tag plainTag = group > 1 ? (oneD ? tag::goiw : tag::goihw) : (oneD ? tag::oiw : tag::oihw);
        memory::dims srcDims = toDims(x.shape);
        srcDims[1] = split ? part.channels : srcDims[1];
        const memory::desc dstDesc = p == 0 ? any(toDims(y)) : dst.get_desc();
        auto convDesc = [&](dnnl::algorithm algorithm) {
            if (p > 0)  // the bias went in with the first part
                return dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm, any(srcDims),
                                                       any(wdims), dstDesc, toDims(win->strides), dil,
                                                       toDims(win->padsBegin), toDims(win->padsEnd));
            return dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algorithm, any(srcDims),
                                                   any(wdims), memory::desc({oc}, dt::f32, tag::a), dstDesc,
                                                   toDims(win->strides), dil, toDims(win->padsBegin),
                                                   toDims(win->padsEnd));
        };
        dnnl::convolution_forward::primitive_desc pd;
        if (!split && winogradPays(w.shape, group, *win, y)) {
            try {  // oneDNN takes Winograd for some shapes only: direct otherwise
                pd = dnnl::convolution_forward::primitive_desc(convDesc(dnnl::algorithm::convolution_winograd), attr,
                                                               eng);
                while (std::string(pd.impl_info_str()).find("wino_2x3") == std::string::npos)
                    if (!pd.next_impl()) {
                        pd = {};
                        break;
                    }
            } catch (const dnnl::error&) {
            }
        }
        if (!pd) pd = dnnl::convolution_forward::primitive_desc(convDesc(dnnl::algorithm::convolution_direct), attr, eng);

        // Weights (a part's: its input channels of every output channel) and bias are packed once, here.
        memory wPacked = packed(split ? key + "|w" + std::to_string(p) : key + "|w", pd.weights_desc(),
                                [&](memory& to) {
            if (!split) {
                convertNow(plainWeights(memory::desc(wdims, dt::f32, plainTag), inPlace ? w.constant : nullptr, weights),
                           to);
                return;
            }
            const int64_t icAll = w.shape[1];
            std::vector<float> slice(static_cast<size_t>(oc * part.channels * taps));
            for (int64_t o = 0; o < oc; ++o)
                std::copy_n(weights.begin() + (o * icAll + part.channelBegin) * taps, part.channels * taps,
                            slice.begin() + o * part.channels * taps);
            convertNow(plainWeights(memory::desc(wdims, dt::f32, plainTag), nullptr, slice), to);
        });
        memory src = getAs(part.input, pd.src_desc(), names[0]);
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wPacked}};
        if (p == 0) {
            args[DNNL_ARG_BIAS] = packedFloats(key + "|b", memory::desc({oc}, dt::f32, tag::a), bias);
            // The sum post-op adds what dst holds: the residual's own buffer when nothing reads it later (no copy),
            // else a copy of it (resnet50-v2-7: 0.3 ms per 256x56x56 residual).
            if (residual.empty()) {
                dst = activation(pd.dst_desc());
            } else if (memory r = get(residual); r.get_desc() == pd.dst_desc() && overwritable(residual, readers)) {
                dst = r;
            } else {
                dst = activation(pd.dst_desc());
                addPrimitive(dnnl::reorder::primitive_desc(r, dst), {{DNNL_ARG_FROM, r}, {DNNL_ARG_TO, dst}}, names);
            }
        }
        args[DNNL_ARG_DST] = dst;
        addPrimitive(pd, args, names);
    }
    mem[node(chain.back()).outputs[0]] = dst;
}

/// ConvTranspose as oneDNN deconvolution; ONNX weights [IC, OC/g, kH, kW] are oneDNN's iohw / giohw. A following
/// BatchNormalization folds into the weights and bias, activations become post-ops (PP-OCRv4 det's head).
void Builder::buildDeconv(const std::vector<size_t>& chain) {
    const Node& n = node(chain[0]);
    const ValueDesc& x = desc(n.inputs[0]);
    const ValueDesc& w = desc(n.inputs[1]);
    const Shape& y = desc(n.outputs[0]).shape;
    const std::vector<std::string> names = namesOf(chain);
    const int64_t group = n.attrInt("group", 1), oc = y[1], ic = x.shape[1];
    std::string why;
    auto win = resolveDeconvWindow(n, x.shape, w.shape, y, why);
    if (!win) throw std::runtime_error(why);
    std::vector<float> bias(static_cast<size_t>(oc), 0.f);
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) bias = desc(n.inputs[2]).constant->toFloatVector();
    std::vector<float> weights = w.constant->toFloatVector();  // packed once, below
    dnnl::post_ops ops;
    std::vector<EltwiseStep> steps;  // at most one linear (planFusion)
    for (size_t k = 1; k < chain.size(); ++k) {
        const Node& next = node(chain[k]);
        if (next.opType == "BatchNormalization") {  // w' = w*s, b' = (b-mean)*s + beta per output channel
            auto gamma = desc(next.inputs[1]).constant->toFloatVector(), beta = desc(next.inputs[2]).constant->toFloatVector();
            auto mean = desc(next.inputs[3]).constant->toFloatVector(), var = desc(next.inputs[4]).constant->toFloatVector();
            const float eps = next.attrFloat("epsilon", 1e-5f);
            std::vector<float> s(static_cast<size_t>(oc));
            for (size_t o = 0; o < s.size(); ++o) {
                s[o] = gamma[o] / std::sqrt(var[o] + eps);
                bias[o] = (bias[o] - mean[o]) * s[o] + beta[o];
            }
            // ONNX layout [IC, OC/g, kH, kW]: input channel i is in group i / (IC/g).
            const int64_t ocg = oc / group, icg = ic / group, taps = w.shape[2] * w.shape[3];
            for (int64_t i = 0; i < ic; ++i)
                for (int64_t o = 0; o < ocg; ++o)
                    for (int64_t t = 0; t < taps; ++t)
                        weights[static_cast<size_t>((i * ocg + o) * taps + t)] *= s[static_cast<size_t>((i / icg) * ocg + o)];
        } else {
            for (const EltwiseStep& step : eltwiseOf(next)) appendStep(steps, step);
        }
    }
    for (auto [alg, alpha, beta] : steps) ops.append_eltwise(1.f, alg, alpha, beta);
    if (deconvIsPixelShuffle(n, *win, x.shape, y)) return buildDeconvAsMatmul(chain, *win, weights, bias, ops);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    const int64_t kh = w.shape[2], kw = w.shape[3];
    memory::dims wdims = group > 1 ? memory::dims{group, oc / group, ic / group, kh, kw} : memory::dims{oc, ic, kh, kw};
    auto any = [](const memory::dims& d) { return memory::desc(d, dt::f32, tag::any); };
    // A few output channels (PP-OCRv4 det's probability map, oc 1): a 16-channel block would be mostly padding,
    // 16x the writes; plain NCHW is what the consumer wants anyway.
    const memory::desc smallOutput = oc < 8 && y.size() == 4 ? memory::desc(toDims(y), dt::f32, tag::nchw) : any(toDims(y));
    dnnl::deconvolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct,
                                        any(toDims(x.shape)), any(wdims), memory::desc({oc}, dt::f32, tag::a),
                                        smallOutput, toDims(win->strides),
                                        {win->dilations[0] - 1, win->dilations[1] - 1}, toDims(win->padsBegin),
                                        toDims(win->padsEnd));
    dnnl::deconvolution_forward::primitive_desc pd(d, attr, eng);

    const std::string key = chainKey("deconv", chain);
    memory wPacked = packed(key + "|w", pd.weights_desc(), [&](memory& to) {
        memory wPlain(memory::desc(wdims, dt::f32, group > 1 ? tag::giohw : tag::iohw), eng);
        std::memcpy(wPlain.get_data_handle(), weights.data(), weights.size() * sizeof(float));
        convertNow(wPlain, to);
    });
    memory b = packedFloats(key + "|b", memory::desc({oc}, dt::f32, tag::a), bias);
    memory src = getAs(n.inputs[0], pd.src_desc(), names[0]);
    memory dst = activation(pd.dst_desc());
    addPrimitive(pd,
                 {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wPacked}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dst}}, names);
    mem[node(chain.back()).outputs[0]] = dst;
}

void Builder::buildPool(const Node& n) {
    const Shape& x = desc(n.inputs[0]).shape;
    const Shape& y = desc(n.outputs[0]).shape;
    Window win;
    using A = dnnl::algorithm;
    A alg = A::pooling_max;
    if (n.opType == "GlobalAveragePool" || n.opType == "GlobalMaxPool") {
        win = {{x[2], x[3]}, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
        if (n.opType == "GlobalAveragePool") alg = A::pooling_avg_exclude_padding;
    } else {
        std::string why;
        auto w = resolveWindow(n, x, y, n.attrInts("kernel_shape"), why);
        if (!w) throw std::runtime_error(why);
        win = *w;
        if (n.opType == "AveragePool")
            alg = n.attrInt("count_include_pad", 0) ? A::pooling_avg_include_padding : A::pooling_avg_exclude_padding;
    }
    memory src = get(n.inputs[0]);
    auto describe = [&](const memory::desc& from) {
        return dnnl::pooling_v2_forward::primitive_desc(
            {dnnl::prop_kind::forward_inference, alg, from, memory::desc(toDims(y), dt::f32, tag::any),
             toDims(win.strides), toDims(win.kernel), {win.dilations[0] - 1, win.dilations[1] - 1},
             toDims(win.padsBegin), toDims(win.padsEnd)},
            eng);
    };
    dnnl::pooling_v2_forward::primitive_desc pd = describe(src.get_desc());
    // A source in a layout oneDNN has no optimized pooling for (LPRNet's channel-wise MaxPool reads a Transpose's
    // output in its permuted storage order) runs its reference loop, 10x slower than a reorder into one it has.
    for (tag t : {tag::nchw, tag::nhwc, tag::nChw16c}) {
        if (std::string(pd.impl_info_str()).rfind("ref", 0) != 0) break;
        memory::desc want(toDims(x), dt::f32, t);
        auto candidate = describe(want);
        if (std::string(candidate.impl_info_str()).rfind("ref", 0) == 0) continue;
        src = getAs(n.inputs[0], want, nodeName(n));
        pd = candidate;
    }
    memory dst = activation(pd.dst_desc());
    addPrimitive(pd, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}}, {nodeName(n)});
    mem[n.outputs[0]] = dst;
}

void Builder::buildGemm(const Node& n) {
    const Shape& a = desc(n.inputs[0]).shape;
    const Shape& y = desc(n.outputs[0]).shape;
    const int64_t m = a[0], k = a[1], nOut = y[1];
    const float alpha = n.attrFloat("alpha", 1.f), beta = n.attrFloat("beta", 1.f);
    const Tensor& bConst = *desc(n.inputs[1]).constant;
    const bool transB = n.attrInt("transB", 0) != 0;
    // B^T with alpha 1 (torchvision's classifier) is already [N,K]: packed straight from the model's tensor.
    const bool inPlace = transB && alpha == 1.f && bConst.dtype() == DType::F32;
    std::vector<float> w;  // otherwise [N,K] as inner product wants, alpha folded in
    if (!inPlace) {
        std::vector<float> bv = bConst.toFloatVector();
        w.resize(static_cast<size_t>(nOut * k));
        for (int64_t o = 0; o < nOut; ++o)
            for (int64_t i = 0; i < k; ++i)
                w[static_cast<size_t>(o * k + i)] = alpha * bv[static_cast<size_t>(transB ? o * k + i : i * nOut + o)];
    }
    std::vector<float> bias(static_cast<size_t>(nOut), 0.f);
    if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
        auto c = desc(n.inputs[2]).constant->toFloatVector();
        for (size_t o = 0; o < bias.size(); ++o) bias[o] = beta * c[c.size() == 1 ? 0 : o];
    }
    dnnl::inner_product_forward::desc d(dnnl::prop_kind::forward_inference, memory::desc({m, k}, dt::f32, tag::any),
                                        memory::desc({nOut, k}, dt::f32, tag::any),
                                        memory::desc({nOut}, dt::f32, tag::a), memory::desc({m, nOut}, dt::f32, tag::ab));
    dnnl::inner_product_forward::primitive_desc pd(d, eng);
    const std::string key = chainKey("gemm", {indexOf(n)});
    memory wPacked = packed(key + "|w", pd.weights_desc(), [&](memory& to) {
        convertNow(plainWeights(memory::desc({nOut, k}, dt::f32, tag::ab), inPlace ? &bConst : nullptr, w), to);
    });
    memory b = packedFloats(key + "|b", memory::desc({nOut}, dt::f32, tag::a), bias);
    memory src = getAs(n.inputs[0], pd.src_desc(), nodeName(n));
    memory dst = activation(pd.dst_desc());
    addPrimitive(pd,
                 {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wPacked}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dst}},
                 {nodeName(n)});
    mem[n.outputs[0]] = dst;
}

}  // namespace npuwb::onednn
