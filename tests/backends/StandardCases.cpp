// The standard differential case set (see DifferentialHarness.h).
#include "DifferentialHarness.h"

#include <cstdio>
#include <limits>

namespace npuwb::difftest {

namespace {

std::string str(const std::vector<int64_t>& v) {
    std::string s;
    for (auto x : v) {
        if (!s.empty()) s += 'x';
        s += std::to_string(x);
    }
    return s;
}

/// Conv input size for a given geometry; odd sizes on purpose.
void addConvCases(std::vector<Case>& cases, std::mt19937& rng) {
    const int64_t channels[] = {1, 3, 7, 17, 33};
    std::uniform_int_distribution<int> pick(0, 4);
    int n = 0;
    for (int64_t c : channels)
        for (int64_t stride : {1, 2})
            for (int64_t k : {1, 3, 5})
                for (int64_t dil : {1, 2}) {
                    if (k == 1 && dil == 2) continue;
                    const int64_t pad = (k / 2) * dil;
                    const bool depthwise = (n % 3 == 1), grouped = (n % 3 == 2) && c % 1 == 0;
                    const int64_t oc = depthwise ? c : channels[pick(rng)];
                    int64_t group = depthwise ? c : 1;
                    if (grouped && !depthwise) {  // a group count dividing both channel counts
                        for (int64_t gc = std::min(c, oc); gc > 1; --gc)
                            if (c % gc == 0 && oc % gc == 0) { group = gc; break; }
                    }
                    const int64_t h = 7 + (n % 4) * 4, w = 9 + (n % 3) * 6;
                    ++n;
                    std::map<std::string, Tensor> init{{"W", randomTensor({oc, c / group, k, k}, rng)},
                                                       {"B", randomTensor({oc}, rng)}};
                    std::map<std::string, Attribute> attrs{{"kernel_shape", Attribute::ofInts({k, k})},
                                                           {"strides", Attribute::ofInts({stride, stride})},
                                                           {"pads", Attribute::ofInts({pad, pad, pad + (n % 2), pad})},
                                                           {"dilations", Attribute::ofInts({dil, dil})},
                                                           {"group", Attribute::ofInt(group)}};
                    std::string label = "Conv c=" + std::to_string(c) + " oc=" + std::to_string(oc) + " k=" +
                                        std::to_string(k) + " s=" + std::to_string(stride) + " d=" +
                                        std::to_string(dil) + " g=" + std::to_string(group) + " in=" +
                                        std::to_string(h) + "x" + std::to_string(w);
                    cases.push_back(makeCase(label, {makeNode("Conv", {"X", "W", "B"}, {"Y"}, attrs)},
                                             {{"X", {1, c, h, w}}}, {"Y"}, init, rng));
                }
}

/// ConvTranspose (oneDNN deconvolution): odd channels, strides 1-2, pads, output_padding, dilation and groups.
void addConvTransposeCases(std::vector<Case>& cases, std::mt19937& rng) {
    struct Geometry { int64_t c, oc, k, stride, pad, outPad, dil, group; };
    const Geometry geometries[] = {{3, 7, 3, 1, 1, 0, 1, 1}, {17, 5, 2, 2, 0, 0, 1, 1}, {7, 3, 3, 2, 1, 1, 1, 1},
                                   {33, 33, 4, 2, 1, 0, 1, 33}, {6, 9, 3, 2, 1, 1, 2, 3}, {1, 1, 5, 1, 2, 0, 1, 1}};
    for (const auto& g : geometries) {
        std::map<std::string, Tensor> init{{"W", randomTensor({g.c, g.oc / g.group, g.k, g.k}, rng)},
                                           {"B", randomTensor({g.oc}, rng)}};
        std::map<std::string, Attribute> attrs{{"kernel_shape", Attribute::ofInts({g.k, g.k})},
                                               {"strides", Attribute::ofInts({g.stride, g.stride})},
                                               {"pads", Attribute::ofInts({g.pad, g.pad, g.pad, g.pad + 1})},
                                               {"output_padding", Attribute::ofInts({g.outPad, 0})},
                                               {"dilations", Attribute::ofInts({g.dil, g.dil})},
                                               {"group", Attribute::ofInt(g.group)}};
        if (g.pad == 0) attrs["pads"] = Attribute::ofInts({0, 0, 0, 0});
        std::string label = "ConvTranspose c=" + std::to_string(g.c) + " oc=" + std::to_string(g.oc) +
                            " k=" + std::to_string(g.k) + " s=" + std::to_string(g.stride) +
                            " p=" + std::to_string(g.pad) + " op=" + std::to_string(g.outPad) +
                            " d=" + std::to_string(g.dil) + " g=" + std::to_string(g.group);
        cases.push_back(makeCase(label, {makeNode("ConvTranspose", {"X", "W", "B"}, {"Y"}, attrs)},
                                 {{"X", {1, g.c, 5, 7}}}, {"Y"}, init, rng));
    }
    // Kernel == stride, no padding: cpu-onednn runs these as one matmul into a strided output (pixel shuffle).
    // Seeded random channels, batch and non-square kernels.
    std::uniform_int_distribution<int64_t> channels(1, 40), batch(1, 3), side(1, 3);
    for (int i = 0; i < 4; ++i) {
        const int64_t c = channels(rng), oc = channels(rng), n = batch(rng), kh = side(rng), kw = side(rng);
        std::map<std::string, Tensor> init{{"W", randomTensor({c, oc, kh, kw}, rng)}, {"B", randomTensor({oc}, rng)}};
        std::map<std::string, Attribute> attrs{{"kernel_shape", Attribute::ofInts({kh, kw})},
                                               {"strides", Attribute::ofInts({kh, kw})}};
        cases.push_back(makeCase("ConvTranspose pixel shuffle n=" + std::to_string(n) + " c=" + std::to_string(c) +
                                     " oc=" + std::to_string(oc) + " k=s=" + std::to_string(kh) + "x" + std::to_string(kw),
                                 {makeNode("ConvTranspose", {"X", "W", "B"}, {"Y"}, attrs)}, {{"X", {n, c, 6, 5}}},
                                 {"Y"}, init, rng));
    }
}

/// Resize (oneDNN resampling): whole-number nearest upscaling (asymmetric, floor) and half-pixel linear with odd
/// sizes; cubic stays on the reference kernels. Then a channel-padded blocked output (24 channels) plus a
/// per-channel bias Add, which oneDNN only has a reference loop for in that layout.
void addResizeCases(std::vector<Case>& cases, std::mt19937& rng) {
    struct Spec { std::string mode, ctm; Shape in, out; };
    const Spec specs[] = {{"nearest", "asymmetric", {1, 3, 5, 7}, {1, 3, 10, 14}},
                          {"nearest", "asymmetric", {1, 17, 3, 3}, {1, 17, 24, 24}},
                          {"nearest", "asymmetric", {2, 7, 4, 5}, {2, 7, 8, 20}},
                          {"linear", "half_pixel", {1, 3, 5, 7}, {1, 3, 11, 9}},
                          {"linear", "half_pixel", {1, 33, 8, 8}, {1, 33, 16, 16}},
                          {"linear", "pytorch_half_pixel", {1, 7, 6, 5}, {1, 7, 3, 13}},
                          {"cubic", "half_pixel", {1, 3, 5, 7}, {1, 3, 10, 14}}};
    for (const auto& sp : specs) {
        std::map<std::string, Attribute> attrs{{"mode", Attribute::ofString(sp.mode)},
                                               {"coordinate_transformation_mode", Attribute::ofString(sp.ctm)}};
        if (sp.mode == "nearest") attrs["nearest_mode"] = Attribute::ofString("floor");
        std::map<std::string, Tensor> init{
            {"sizes", Tensor::fromVector<int64_t>({4}, std::vector<int64_t>(sp.out.begin(), sp.out.end()))}};
        cases.push_back(makeCase("Resize " + sp.mode + " " + sp.ctm + " " + str(sp.in) + "->" + str(sp.out),
                                 {makeNode("Resize", {"X", "", "", "sizes"}, {"Y"}, attrs)}, {{"X", sp.in}}, {"Y"},
                                 init, rng));
    }
    std::map<std::string, Tensor> init{{"W", randomTensor({24, 24, 2, 2}, rng)}, {"B", randomTensor({24, 1, 1}, rng)}};
    std::map<std::string, Attribute> attrs{{"kernel_shape", Attribute::ofInts({2, 2})}, {"strides", Attribute::ofInts({2, 2})}};
    cases.push_back(makeCase("ConvTranspose oc=24 + per-channel Add",
                             {makeNode("ConvTranspose", {"X", "W"}, {"t"}, attrs), makeNode("Add", {"t", "B"}, {"Y"})},
                             {{"X", {1, 24, 9, 11}}}, {"Y"}, init, rng));
}

/// ConvTranspose + BatchNormalization + Relu (PP-OCRv4 det's head), plain and grouped, wide and narrow outputs.
void addDeconvChainCases(std::vector<Case>& cases, std::mt19937& rng) {
    struct Geometry { int64_t c, oc, group; };
    for (const Geometry g : {Geometry{24, 24, 1}, Geometry{24, 1, 1}, Geometry{6, 9, 3}}) {
        std::map<std::string, Tensor> init{{"W", randomTensor({g.c, g.oc / g.group, 2, 2}, rng)},
                                           {"B", randomTensor({g.oc}, rng)},
                                           {"scale", randomTensor({g.oc}, rng, 0.5f, 1.5f)},
                                           {"bias", randomTensor({g.oc}, rng)},
                                           {"mean", randomTensor({g.oc}, rng)},
                                           {"var", randomTensor({g.oc}, rng, 0.5f, 2.f)}};
        std::map<std::string, Attribute> attrs{{"kernel_shape", Attribute::ofInts({2, 2})}, {"strides", Attribute::ofInts({2, 2})},
                                               {"group", Attribute::ofInt(g.group)}};
        cases.push_back(makeCase("ConvTranspose+BN+Relu c=" + std::to_string(g.c) + " oc=" + std::to_string(g.oc) +
                                     " g=" + std::to_string(g.group),
                                 {makeNode("ConvTranspose", {"X", "W", "B"}, {"t"}, attrs),
                                  makeNode("BatchNormalization", {"t", "scale", "bias", "mean", "var"}, {"bn"}),
                                  makeNode("Relu", {"bn"}, {"Y"})},
                                 {{"X", {1, g.c, 7, 9}}}, {"Y"}, init, rng));
    }
}

/// Conv -> x * Clip(x + 3, 0, 6) / 6 -> * a + b, as paddle2onnx writes HardSwish and the learnable affine after it;
/// and the same with the Conv output also read elsewhere, which must not fuse.
void addDecomposedHardSwishCases(std::vector<Case>& cases, std::mt19937& rng) {
    for (int64_t c : {5, 16}) {
        std::map<std::string, Tensor> init{{"W", randomTensor({c, c, 3, 3}, rng)}, {"B", randomTensor({c}, rng)},
                                           {"three", Tensor::scalar<float>(3.f)}, {"six", Tensor::scalar<float>(6.f)},
                                           {"zero", Tensor::scalar<float>(0.f)}, {"a", Tensor::scalar<float>(0.8f)},
                                           {"b", Tensor::scalar<float>(-0.25f)}};
        std::map<std::string, Attribute> conv{{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})}};
        std::vector<Node> nodes{makeNode("Conv", {"X", "W", "B"}, {"x"}, conv), makeNode("Add", {"x", "three"}, {"x3"}),
                                makeNode("Clip", {"x3", "zero", "six"}, {"r6"}), makeNode("Div", {"r6", "six"}, {"g"}),
                                makeNode("Mul", {"x", "g"}, {"hs"}), makeNode("Mul", {"hs", "a"}, {"sa"}),
                                makeNode("Add", {"b", "sa"}, {"Y"})};
        cases.push_back(makeCase("Conv+decomposed HardSwish+affine c=" + std::to_string(c), nodes, {{"X", {1, c, 9, 7}}},
                                 {"Y"}, init, rng));
        nodes.push_back(makeNode("Add", {"Y", "x"}, {"Z"}));  // x has a third reader
        cases.push_back(makeCase("Conv+decomposed HardSwish, Conv output read again c=" + std::to_string(c), nodes,
                                 {{"X", {1, c, 9, 7}}}, {"Z"}, init, rng));
    }
}

/// Scalar Mul/Add on both sides of an activation after a Conv (PP-OCRv4 det once its decomposed HardSwish is one
/// op): two linear steps in one chain, which oneDNN 2.6 got wrong as two post-ops. Plain and depthwise; also a
/// residual Add before the scale, which must not fold into the weights.
void addAffineAroundActivationCases(std::vector<Case>& cases, std::mt19937& rng) {
    for (int64_t c : {5, 16})
        for (int64_t group : {int64_t{1}, c}) {
            std::map<std::string, Tensor> init{{"W", randomTensor({c, c / group, 3, 3}, rng)}, {"B", randomTensor({c}, rng)},
                                               {"a", Tensor::scalar<float>(0.94f)}, {"b", Tensor::scalar<float>(0.5f)},
                                               {"d", Tensor::scalar<float>(0.47f)}, {"e", Tensor::scalar<float>(-0.3f)}};
            std::map<std::string, Attribute> conv{{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})},
                                                  {"group", Attribute::ofInt(group)}};
            const std::string tag = " c=" + std::to_string(c) + " g=" + std::to_string(group);
            for (const char* act : {"HardSwish", "Relu", "Sigmoid"})
                cases.push_back(makeCase(std::string("Conv*a+b, ") + act + ", *d+e" + tag,
                                         {makeNode("Conv", {"X", "W", "B"}, {"x"}, conv), makeNode("Mul", {"a", "x"}, {"xa"}),
                                          makeNode("Add", {"xa", "b"}, {"xb"}), makeNode(act, {"xb"}, {"h"}),
                                          makeNode("Mul", {"d", "h"}, {"hd"}), makeNode("Add", {"hd", "e"}, {"Y"})},
                                         {{"X", {1, c, 9, 7}}}, {"Y"}, init, rng));
            cases.push_back(makeCase("Conv+b, Relu, *d" + tag,
                                     {makeNode("Conv", {"X", "W", "B"}, {"x"}, conv), makeNode("Add", {"x", "b"}, {"xb"}),
                                      makeNode("Relu", {"xb"}, {"h"}), makeNode("Mul", {"h", "d"}, {"Y"})},
                                     {{"X", {1, c, 9, 7}}}, {"Y"}, init, rng));
            cases.push_back(makeCase("Conv, HardSigmoid, *d" + tag,
                                     {makeNode("Conv", {"X", "W", "B"}, {"x"}, conv), makeNode("HardSigmoid", {"x"}, {"h"}),
                                      makeNode("Mul", {"h", "d"}, {"Y"})},
                                     {{"X", {1, c, 9, 7}}}, {"Y"}, init, rng));
            cases.push_back(makeCase("Conv+X (residual), *d+e, Relu" + tag,
                                     {makeNode("Conv", {"X", "W", "B"}, {"x"}, conv), makeNode("Add", {"x", "X"}, {"r"}),
                                      makeNode("Mul", {"r", "d"}, {"rd"}), makeNode("Add", {"rd", "e"}, {"re"}),
                                      makeNode("Relu", {"re"}, {"Y"})},
                                     {{"X", {1, c, 9, 7}}}, {"Y"}, init, rng));
        }
}

/// Conv -> SiLU as exporters write it (Mul of the Conv output and its Sigmoid, either operand order): one swish
/// post-op. Plain, depthwise, after a residual Add, with a scale after it; and with the Conv output read a third
/// time, which must not fuse.
void addSiluCases(std::vector<Case>& cases, std::mt19937& rng) {
    for (int64_t c : {5, 17, 33})
        for (int64_t group : {int64_t{1}, c}) {
            std::map<std::string, Tensor> init{{"W", randomTensor({c, c / group, 3, 3}, rng)}, {"B", randomTensor({c}, rng)},
                                               {"d", Tensor::scalar<float>(0.6f)}};
            std::map<std::string, Attribute> conv{{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})},
                                                  {"group", Attribute::ofInt(group)}};
            const std::string tag = " c=" + std::to_string(c) + " g=" + std::to_string(group);
            const Node convNode = makeNode("Conv", {"X", "W", "B"}, {"x"}, conv);
            cases.push_back(makeCase("Conv, SiLU" + tag,
                                     {convNode, makeNode("Sigmoid", {"x"}, {"s"}), makeNode("Mul", {"x", "s"}, {"Y"})},
                                     {{"X", {1, c, 9, 7}}}, {"Y"}, init, rng));
            cases.push_back(makeCase("Conv, SiLU (sigmoid first), *d" + tag,
                                     {convNode, makeNode("Sigmoid", {"x"}, {"s"}), makeNode("Mul", {"s", "x"}, {"h"}),
                                      makeNode("Mul", {"h", "d"}, {"Y"})},
                                     {{"X", {1, c, 9, 7}}}, {"Y"}, init, rng));
            cases.push_back(makeCase("Conv+X (residual), SiLU" + tag,
                                     {convNode, makeNode("Add", {"x", "X"}, {"r"}), makeNode("Sigmoid", {"r"}, {"s"}),
                                      makeNode("Mul", {"r", "s"}, {"Y"})},
                                     {{"X", {1, c, 9, 7}}}, {"Y"}, init, rng));
            cases.push_back(makeCase("Conv, SiLU, Conv output read again" + tag,
                                     {convNode, makeNode("Sigmoid", {"x"}, {"s"}), makeNode("Mul", {"x", "s"}, {"h"}),
                                      makeNode("Add", {"h", "x"}, {"Y"})},
                                     {{"X", {1, c, 9, 7}}}, {"Y"}, init, rng));
        }
}

/// 3x3 stride-1 Convs large enough for cpu-onednn's Winograd kernels (at least 28x28 outputs, channels in whole
/// SIMD blocks), alone, with Relu and with a residual sum; 17 channels, which Winograd does not take.
void addWinogradSizedConvCases(std::vector<Case>& cases, std::mt19937& rng) {
    struct Geometry { int64_t ic, oc, h, w; };
    for (const Geometry g : {Geometry{16, 32, 29, 31}, Geometry{64, 64, 30, 28}, Geometry{128, 128, 28, 28},
                             Geometry{17, 17, 29, 29}}) {
        std::map<std::string, Tensor> init{{"W", randomTensor({g.oc, g.ic, 3, 3}, rng)}, {"B", randomTensor({g.oc}, rng)}};
        std::map<std::string, Attribute> conv{{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})}};
        char tag[64];
        std::snprintf(tag, sizeof tag, " %lld->%lld at %lldx%lld", static_cast<long long>(g.ic),
                      static_cast<long long>(g.oc), static_cast<long long>(g.h), static_cast<long long>(g.w));
        const Node convNode = makeNode("Conv", {"X", "W", "B"}, {"x"}, conv);
        cases.push_back(makeCase(std::string("Conv 3x3") + tag, {convNode}, {{"X", {1, g.ic, g.h, g.w}}}, {"x"}, init, rng));
        cases.push_back(makeCase(std::string("Conv 3x3+Relu") + tag, {convNode, makeNode("Relu", {"x"}, {"Y"})},
                                 {{"X", {1, g.ic, g.h, g.w}}}, {"Y"}, init, rng));
        if (g.ic == g.oc)
            cases.push_back(makeCase(std::string("Conv 3x3+X (residual)+Relu") + tag,
                                     {convNode, makeNode("Add", {"x", "X"}, {"r"}), makeNode("Relu", {"r"}, {"Y"})},
                                     {{"X", {1, g.ic, g.h, g.w}}}, {"Y"}, init, rng));
    }
}

void addFusedCases(std::vector<Case>& cases, std::mt19937& rng) {
    for (int64_t c : {3, 17, 33}) {
        std::map<std::string, Attribute> conv{{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})}};
        std::map<std::string, Tensor> init{{"W", randomTensor({c, c, 3, 3}, rng)},
                                           {"B", randomTensor({c}, rng)},
                                           {"scale", randomTensor({c}, rng, 0.5f, 1.5f)},
                                           {"bias", randomTensor({c}, rng)},
                                           {"mean", randomTensor({c}, rng)},
                                           {"var", randomTensor({c}, rng, 0.5f, 2.f)}};
        const std::string cs = std::to_string(c);
        cases.push_back(makeCase("Conv+BN+Relu c=" + cs,
                                 {makeNode("Conv", {"X", "W", "B"}, {"c"}, conv),
                                  makeNode("BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"bn"}),
                                  makeNode("Relu", {"bn"}, {"Y"})},
                                 {{"X", {1, c, 11, 13}}}, {"Y"}, init, rng));
        cases.push_back(makeCase("Conv+Add+Relu (residual) c=" + cs,
                                 {makeNode("Conv", {"X", "W", "B"}, {"c"}, conv), makeNode("Add", {"c", "X"}, {"a"}),
                                  makeNode("Relu", {"a"}, {"Y"})},
                                 {{"X", {1, c, 9, 9}}}, {"Y"}, init, rng));
        std::map<std::string, Tensor> clipInit = init;
        clipInit["lo"] = Tensor::scalar(0.f);
        clipInit["hi"] = Tensor::scalar(6.f);
        cases.push_back(makeCase("Conv+Clip(0,6) c=" + cs,
                                 {makeNode("Conv", {"X", "W", "B"}, {"c"}, conv),
                                  makeNode("Clip", {"c", "lo", "hi"}, {"Y"})},
                                 {{"X", {1, c, 8, 8}}}, {"Y"}, clipInit, rng));
        for (const char* act : {"Sigmoid", "HardSwish", "HardSigmoid", "LeakyRelu", "Tanh"})
            cases.push_back(makeCase(std::string("Conv+") + act + " c=" + cs,
                                     {makeNode("Conv", {"X", "W", "B"}, {"c"}, conv), makeNode(act, {"c"}, {"Y"})},
                                     {{"X", {1, c, 7, 7}}}, {"Y"}, init, rng));
    }
}

void addPoolCases(std::vector<Case>& cases, std::mt19937& rng) {
    for (int64_t c : {1, 3, 17, 33})
        for (const char* op : {"MaxPool", "AveragePool"})
            for (int64_t k : {2, 3})
                for (int64_t s : {1, 2})
                    for (int64_t ceil : {0, 1}) {
                        std::map<std::string, Attribute> a{{"kernel_shape", Attribute::ofInts({k, k})},
                                                           {"strides", Attribute::ofInts({s, s})},
                                                           {"pads", Attribute::ofInts({k / 2, k / 2, k / 2, k / 2})},
                                                           {"ceil_mode", Attribute::ofInt(ceil)}};
                        std::string label = std::string(op) + " c=" + std::to_string(c) + " k=" + std::to_string(k) +
                                            " s=" + std::to_string(s) + " ceil=" + std::to_string(ceil);
                        cases.push_back(makeCase(label, {makeNode(op, {"X"}, {"Y"}, a)}, {{"X", {1, c, 13, 10}}},
                                                 {"Y"}, {}, rng));
                    }
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"})
        for (int64_t c : {1, 7, 33})
            cases.push_back(makeCase(std::string(op) + " c=" + std::to_string(c), {makeNode(op, {"X"}, {"Y"})},
                                     {{"X", {2, c, 7, 5}}}, {"Y"}, {}, rng));
}

void addDenseCases(std::vector<Case>& cases, std::mt19937& rng) {
    for (int64_t m : {1, 3})
        for (int64_t k : {7, 33})
            for (int64_t n : {1, 17})
                for (int64_t transB : {0, 1}) {
                    Shape b = transB ? Shape{n, k} : Shape{k, n};
                    cases.push_back(makeCase("Gemm m=" + std::to_string(m) + " k=" + std::to_string(k) + " n=" +
                                                 std::to_string(n) + " transB=" + std::to_string(transB),
                                             {makeNode("Gemm", {"A", "B", "C"}, {"Y"},
                                                       {{"transB", Attribute::ofInt(transB)}, {"alpha", Attribute::ofFloat(0.5f)}})},
                                             {{"A", {m, k}}}, {"Y"},
                                             {{"B", randomTensor(b, rng)}, {"C", randomTensor({n}, rng)}}, rng));
                }
    std::vector<std::pair<Shape, Shape>> mm = {{{3, 7}, {7, 17}}, {{2, 5, 7}, {7, 3}}, {{2, 3, 5, 7}, {2, 3, 7, 1}},
                                               {{1, 33}, {33, 1}}};
    for (const auto& [a, b] : mm)
        cases.push_back(makeCase("MatMul " + str(a) + " @ " + str(b), {makeNode("MatMul", {"A", "B"}, {"Y"})},
                                 {{"A", a}, {"B", b}}, {"Y"}, {}, rng));
}

void addElementwiseCases(std::vector<Case>& cases, std::mt19937& rng) {
    for (const char* op : {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Exp", "Abs", "Elu", "HardSwish", "Neg"})
        for (Shape s : {Shape{1, 17, 5, 3}, Shape{3, 7}})
            cases.push_back(makeCase(std::string(op) + " " + str(s), {makeNode(op, {"X"}, {"Y"})}, {{"X", s}}, {"Y"},
                                     {}, rng));
    // HardSigmoid with ONNX defaults, and a steep one so inputs in [-1, 1] reach both clamps.
    for (auto [alpha, beta] : {std::pair{0.2f, 0.5f}, std::pair{2.f, 0.3f}})
        for (Shape s : {Shape{1, 17, 5, 3}, Shape{3, 7}})
            cases.push_back(makeCase("HardSigmoid alpha=" + std::to_string(alpha) + " " + str(s),
                                     {makeNode("HardSigmoid", {"X"}, {"Y"},
                                               {{"alpha", Attribute::ofFloat(alpha)}, {"beta", Attribute::ofFloat(beta)}})},
                                     {{"X", s}}, {"Y"}, {}, rng));
    // Pow with a constant scalar exponent; fractional exponents get a non-negative base through Abs.
    for (float e : {2.f, 3.f, 0.5f})
        cases.push_back(makeCase("Abs>Pow exponent=" + std::to_string(e) + " 1x7x5x3",
                                 {makeNode("Abs", {"X"}, {"a"}), makeNode("Pow", {"a", "E"}, {"Y"})},
                                 {{"X", {1, 7, 5, 3}}}, {"Y"}, {{"E", Tensor::scalar(e)}}, rng));
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min"}) {
        cases.push_back(makeCase(std::string(op) + " same shape", {makeNode(op, {"A", "B"}, {"Y"})},
                                 {{"A", {1, 7, 5, 3}}, {"B", {1, 7, 5, 3}}}, {"Y"}, {}, rng));
        cases.push_back(makeCase(std::string(op) + " per-channel constant", {makeNode(op, {"A", "C"}, {"Y"})},
                                 {{"A", {1, 17, 4, 3}}}, {"Y"}, {{"C", randomTensor({17, 1, 1}, rng, 0.5f, 2.f)}}, rng));
        cases.push_back(makeCase(std::string(op) + " broadcast last axis", {makeNode(op, {"A", "B"}, {"Y"})},
                                 {{"A", {2, 3, 33}}, {"B", {33}}}, {"Y"}, {}, rng));
    }
    for (int64_t axis : {-1, 1})
        cases.push_back(makeCase("Softmax axis=" + std::to_string(axis),
                                 {makeNode("Softmax", {"X"}, {"Y"}, {{"axis", Attribute::ofInt(axis)}})}, {{"X", {2, 17, 33}}},
                                 {"Y"}, {}, rng));
    for (int64_t axis : {1, 3})
        cases.push_back(makeCase("Concat axis=" + std::to_string(axis),
                                 {makeNode("Concat", {"A", "B", "C"}, {"Y"}, {{"axis", Attribute::ofInt(axis)}})},
                                 {{"A", {1, 3, 5, 7}},
                                  {"B", axis == 1 ? Shape{1, 17, 5, 7} : Shape{1, 3, 5, 1}},
                                  {"C", axis == 1 ? Shape{1, 1, 5, 7} : Shape{1, 3, 5, 33}}},
                                 {"Y"}, {}, rng));
    {  // seeded random plain concatenations (cpu-onednn copies them as blocks): batch above 1, any axis
        std::uniform_int_distribution<int64_t> dim(1, 9), axisOf(0, 2);
        for (int i = 0; i < 3; ++i) {
            const int64_t axis = axisOf(rng);
            Shape a{2, dim(rng), dim(rng)}, b = a;
            b[static_cast<size_t>(axis)] = dim(rng);
            cases.push_back(makeCase("Concat random " + str(a) + "+" + str(b) + " axis=" + std::to_string(axis),
                                     {makeNode("Concat", {"A", "B"}, {"Y"}, {{"axis", Attribute::ofInt(axis)}})},
                                     {{"A", a}, {"B", b}}, {"Y"}, {}, rng));
        }
    }
    // A conv feeding a pool, flatten and gemm: blocked layouts inside the segment, reorders at its edges.
    std::map<std::string, Tensor> init{{"W", randomTensor({17, 3, 3, 3}, rng)},
                                       {"G", randomTensor({10, 17}, rng)},
                                       {"shape", Tensor::fromVector<int64_t>({2}, {1, -1})}};
    cases.push_back(makeCase("Conv>Relu>GlobalAveragePool>Reshape>Gemm",
                             {makeNode("Conv", {"X", "W"}, {"c"}, {{"pads", Attribute::ofInts({1, 1, 1, 1})}}),
                              makeNode("Relu", {"c"}, {"r"}), makeNode("GlobalAveragePool", {"r"}, {"p"}),
                              makeNode("Reshape", {"p", "shape"}, {"f"}),
                              makeNode("Gemm", {"f", "G"}, {"Y"}, {{"transB", Attribute::ofInt(1)}})},
                             {{"X", {1, 3, 15, 15}}}, {"Y"}, init, rng));
}

}  // namespace

/// Transpose (odd sizes, ranks 3-5, ShuffleNet's channel shuffle), step-1 Slice (channel split, negative and
/// clamped bounds, several axes) and reductions over constant axes.
void addDataMovementCases(std::vector<Case>& cases, std::mt19937& rng) {
    const std::vector<std::pair<Shape, std::vector<int64_t>>> transposes = {
        {{3, 7, 17}, {2, 0, 1}}, {{1, 17, 5, 3}, {0, 2, 3, 1}}, {{2, 3, 7, 5}, {3, 1, 0, 2}},
        {{1, 2, 17, 3, 5}, {0, 2, 1, 3, 4}}, {{4, 33}, {}}};
    for (const auto& [shape, perm] : transposes) {
        std::map<std::string, Attribute> attrs;
        if (!perm.empty()) attrs["perm"] = Attribute::ofInts(perm);
        cases.push_back(makeCase("Transpose " + str(shape) + " perm=" + (perm.empty() ? "reverse" : str(perm)),
                                 {makeNode("Transpose", {"X"}, {"Y"}, attrs)}, {{"X", shape}}, {"Y"}, {}, rng));
    }
    auto ints = [](std::vector<int64_t> v) { return Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v); };
    struct SliceSpec { Shape shape; std::vector<int64_t> starts, ends, axes; };
    const std::vector<SliceSpec> slices = {{{1, 34, 7, 9}, {0}, {17}, {1}}, {{1, 34, 7, 9}, {17}, {34}, {1}},
                                           {{1, 17, 9, 11}, {-5, 2}, {100, -2}, {1, 3}},
                                           {{2, 7, 5, 5}, {1, 1, 0}, {2, 6, 3}, {0, 1, 2}}};
    for (const auto& sl : slices)
        cases.push_back(makeCase("Slice " + str(sl.shape) + " starts=" + str(sl.starts) + " ends=" + str(sl.ends),
                                 {makeNode("Slice", {"X", "starts", "ends", "axes"}, {"Y"})}, {{"X", sl.shape}}, {"Y"},
                                 {{"starts", ints(sl.starts)}, {"ends", ints(sl.ends)}, {"axes", ints(sl.axes)}},
                                 rng));
    for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin"})
        for (int64_t keep : {0, 1}) {
            // opset 17: axes is an attribute for all but ReduceSum (an input since opset 13).
            const bool axesInput = std::string(op) == "ReduceSum";
            std::map<std::string, Attribute> attrs{{"keepdims", Attribute::ofInt(keep)}};
            if (!axesInput) attrs["axes"] = Attribute::ofInts({2, 3});
            std::vector<std::string> inputs{"X"};
            std::map<std::string, Tensor> init;
            if (axesInput) {
                inputs.push_back("axes");
                init["axes"] = ints({-2, -1});
            }
            cases.push_back(makeCase(std::string(op) + " spatial keepdims=" + std::to_string(keep),
                                     {makeNode(op, inputs, {"Y"}, attrs)}, {{"X", {1, 33, 7, 5}}}, {"Y"}, init, rng));
        }
}

/// Pad (constant fill, any axes: claimed as a fill and a reorder; reflect: a fallback) and TensorFlow's explicit
/// 'SAME' Pad before a stride-2 depthwise Conv or a pool (folded into its padding before the backend sees it), Split.
void addPadSplitCases(std::vector<Case>& cases, std::mt19937& rng) {
    auto ints = [](std::vector<int64_t> v) { return Tensor::fromVector<int64_t>({static_cast<int64_t>(v.size())}, v); };
    struct PadSpec { Shape shape; std::vector<int64_t> pads; float value; std::string mode; };
    const std::vector<PadSpec> pads = {{{1, 17, 7, 9}, {0, 0, 1, 2, 0, 0, 2, 1}, 0.0f, "constant"},
                                       {{1, 3, 5, 5}, {0, 1, 0, 0, 0, 2, 1, 1}, -0.5f, "constant"},
                                       {{2, 33}, {1, 0, 0, 3}, 1.25f, "constant"},
                                       {{1, 7, 6, 6}, {0, 0, 1, 1, 0, 0, 1, 1}, 0.0f, "reflect"}};
    for (const auto& p : pads)
        cases.push_back(makeCase("Pad " + p.mode + " " + str(p.shape) + " pads=" + str(p.pads),
                                 {makeNode("Pad", {"X", "pads", "value"}, {"Y"}, {{"mode", Attribute::ofString(p.mode)}})},
                                 {{"X", p.shape}}, {"Y"},
                                 {{"pads", ints(p.pads)}, {"value", Tensor::scalar<float>(p.value)}}, rng));
    for (int64_t k : {3, 5}) {
        const int64_t total = k - 2;  // TF 'SAME', even input, stride 2
        const std::vector<int64_t> same{0, 0, total / 2, total / 2, 0, 0, total - total / 2, total - total / 2};
        cases.push_back(makeCase(
            "Pad+depthwise Conv (TF SAME) k=" + std::to_string(k),
            {makeNode("Pad", {"X", "pads"}, {"P"}),
             makeNode("Conv", {"P", "W", "B"}, {"Y"},
                      {{"strides", Attribute::ofInts({2, 2})}, {"group", Attribute::ofInt(24)}, {"kernel_shape", Attribute::ofInts({k, k})}})},
            {{"X", {1, 24, 16, 16}}}, {"Y"},
            {{"pads", ints(same)}, {"W", randomTensor({24, 1, k, k}, rng)}, {"B", randomTensor({24}, rng)}}, rng));
    }
    cases.push_back(makeCase(
        "Pad(-inf)+MaxPool",
        {makeNode("Pad", {"X", "pads", "value"}, {"P"}),
         makeNode("MaxPool", {"P"}, {"Y"}, {{"kernel_shape", Attribute::ofInts({3, 3})}, {"strides", Attribute::ofInts({2, 2})}})},
        {{"X", {1, 5, 10, 10}}}, {"Y"},
        {{"pads", ints({0, 0, 1, 1, 0, 0, 1, 1})},
         {"value", Tensor::scalar<float>(-std::numeric_limits<float>::infinity())}}, rng));
    cases.push_back(makeCase(
        "Pad+AveragePool", {makeNode("Pad", {"X", "pads"}, {"P"}),
                            makeNode("AveragePool", {"P"}, {"Y"}, {{"kernel_shape", Attribute::ofInts({3, 3})}})},
        {{"X", {1, 5, 9, 9}}}, {"Y"}, {{"pads", ints({0, 0, 1, 0, 0, 0, 1, 2})}}, rng));
    struct SplitSpec { Shape shape; int64_t axis; std::vector<int64_t> sizes; };
    const std::vector<SplitSpec> splits = {{{1, 34, 7, 9}, 1, {17, 17}}, {{1, 17, 5, 6}, 1, {3, 9, 5}},
                                           {{2, 7, 12}, -1, {5, 7}}};
    for (const auto& sp : splits) {
        std::vector<std::string> outs;
        // Strings appended step by step: GCC 12 warns (-Wrestrict, a false positive) on "literal" + std::string&&.
        for (size_t i = 0; i < sp.sizes.size(); ++i) outs.push_back(std::string("Y").append(std::to_string(i)));
        std::string label = "Split ";
        label.append(str(sp.shape)).append(" axis=").append(std::to_string(sp.axis)).append(" sizes=").append(str(sp.sizes));
        cases.push_back(makeCase(label,
                                 {makeNode("Split", {"X", "split"}, outs, {{"axis", Attribute::ofInt(sp.axis)}})},
                                 {{"X", sp.shape}}, outs, {{"split", ints(sp.sizes)}}, rng));
    }
}

std::vector<Case> standardCases(uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<Case> cases;
    addConvCases(cases, rng);
    addFusedCases(cases, rng);
    addPoolCases(cases, rng);
    addDenseCases(cases, rng);
    addElementwiseCases(cases, rng);
    addDataMovementCases(cases, rng);
    addConvTransposeCases(cases, rng);  // new groups go last, so the earlier cases keep their seeded values
    addResizeCases(cases, rng);
    addDeconvChainCases(cases, rng);
    addDecomposedHardSwishCases(cases, rng);
    addAffineAroundActivationCases(cases, rng);
    addSiluCases(cases, rng);
    addWinogradSizedConvCases(cases, rng);
    addPadSplitCases(cases, rng);
    addAllAxisReduceCases(cases, rng);
    addAlignCornersResizeCases(cases, rng);
    addInnerAxisReduceCases(cases, rng);
    addTransposedPoolCases(cases, rng);
    addInPlaceResidualCases(cases, rng);
    addBatchNormReluCases(cases, rng);
    addDivLastHardSwishCases(cases, rng);
    addLayerNormCases(cases, rng);
    addConcatIntoConvCases(cases, rng);
    return cases;
}

}  // namespace npuwb::difftest
