// ConvTranspose whose kernel equals its stride (no padding, dilation or groups): every input pixel writes its own
// kH x kW block of the output, so the op is one matmul, [pixels, IC] x [IC, kH*kW*OC], whose result rows land in the
// output's channels-last layout through strides (a pixel shuffle for free). oneDNN 2.6's deconvolution ran PP-OCRv4
// det's 24->24 channel 2x2 upsampling at 4 GMAC/s through blocked reorders (8-16 ms at 1 thread, a quarter of the
// model); as a matmul it is bound by writing the output.
#include "OnednnSegmentBuilder.h"

namespace npuwb::onednn {

bool Builder::deconvIsPixelShuffle(const Node& n, const Window& win, const Shape& x, const Shape& y) {
    if (n.attrInt("group", 1) != 1 || x.size() != 4 || y.size() != 4 || win.kernel.size() != 2) return false;
    for (size_t i = 0; i < 2; ++i)
        if (win.kernel[i] != win.strides[i] || win.dilations[i] != 1 || win.padsBegin[i] != 0 || win.padsEnd[i] != 0 ||
            y[2 + i] != x[2 + i] * win.strides[i])
            return false;
    return true;
}

void Builder::buildDeconvAsMatmul(const std::vector<size_t>& chain, const Window& win, const std::vector<float>& weights,
                                  const std::vector<float>& bias, const dnnl::post_ops& ops) {
    const Node& n = node(chain[0]);
    const Shape& x = desc(n.inputs[0]).shape;
    const Shape& y = desc(n.outputs[0]).shape;
    const int64_t ic = x[1], oc = y[1], kh = win.kernel[0], kw = win.kernel[1];
    const int64_t rows = x[0] * x[2], cols = x[3], wide = kw * oc, outW = y[3];
    // Channels-last input as [rows, 1, cols, IC]; output [rows, kH, cols, kW*OC]: element (r, i, c, j*OC + o) is
    // y[r / H][o][(r % H) * kH + i][c * kW + j] in channels-last.
    const memory::desc srcDesc({rows, 1, cols, ic}, dt::f32, memory::dims{cols * ic, cols * ic, ic, 1});
    const memory::desc dstDesc({rows, kh, cols, wide}, dt::f32, memory::dims{kh * outW * oc, outW * oc, wide, 1});
    const memory::desc biasDesc({1, 1, 1, wide}, dt::f32, tag::abcd);
    const memory::dims wdims{1, kh, ic, wide};
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(srcDesc, memory::desc(wdims, dt::f32, tag::any), biasDesc, dstDesc),
                                    attr, eng);
    const std::vector<std::string> names = namesOf(chain);
    const std::string key = chainKey("deconv-matmul", chain);
    memory wPacked = packed(key + "|w", pd.weights_desc(), [&](memory& to) {
        memory plain(memory::desc(wdims, dt::f32, tag::abcd), eng);
        auto* w = static_cast<float*>(plain.get_data_handle());
        for (int64_t i = 0; i < kh; ++i)  // ONNX [IC, OC, kH, kW] -> [kH][IC][kW * OC]
            for (int64_t c = 0; c < ic; ++c)
                for (int64_t j = 0; j < kw; ++j)
                    for (int64_t o = 0; o < oc; ++o)
                        w[((i * ic + c) * kw + j) * oc + o] = weights[static_cast<size_t>(((c * oc + o) * kh + i) * kw + j)];
        convertNow(plain, to);
    });
    std::vector<float> tiled(static_cast<size_t>(wide));
    for (int64_t j = 0; j < kw; ++j)
        for (int64_t o = 0; o < oc; ++o) tiled[static_cast<size_t>(j * oc + o)] = bias[static_cast<size_t>(o)];
    memory b = packedFloats(key + "|b", biasDesc, tiled);
    memory src = getAs(n.inputs[0], memory::desc(toDims(x), dt::f32, tag::nhwc), names[0]);
    memory srcView(srcDesc, eng, nullptr);
    addAlias(src, srcView);
    // One output channel: channels-last is the plain layout, and consumers have fast kernels for plain only (a
    // channels-last binary or reorder over one channel ran per pixel, 2 ms on PP-OCRv4 det's 480x480 map).
    memory dst = activation(oc == 1 ? plainDesc(y) : memory::desc(toDims(y), dt::f32, tag::nhwc));
    memory dstView(dstDesc, eng, nullptr);
    addAlias(dst, dstView);
    addPrimitive(pd, {{DNNL_ARG_SRC, srcView}, {DNNL_ARG_WEIGHTS, wPacked}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, dstView}},
                 names);
    mem[node(chain.back()).outputs[0]] = dst;
}

}  // namespace npuwb::onednn
