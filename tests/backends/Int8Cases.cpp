#include "Int8Cases.h"

#include <array>
#include <cmath>
#include <cstdio>

#include "Int8CaseGraph.h"
#include "npuwb/ExecutionObserver.h"
#include "npuwb/Session.h"
#include "npuwb/sdk/Backend.h"

namespace npuwb::int8test {

namespace {

void addConvCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    const int64_t channels[] = {1, 3, 7, 17, 33};
    int n = 0;
    for (int64_t c : channels)
        for (int64_t stride : {1, 2})
            for (auto [k, dil] : {std::pair<int64_t, int64_t>{1, 1}, {3, 1}, {3, 2}}) {
                const bool depthwise = n % 3 == 1, grouped = n % 3 == 2 && c % 3 == 0 && c > 3;
                const int64_t group = depthwise ? c : grouped ? 3 : 1;
                const int64_t oc = depthwise ? c : channels[(n + 2) % 5] * (grouped ? 3 : 1);
                const int64_t h = 7 + (n % 4) * 4, w = 9 + (n % 3) * 6, pad = (k / 2) * dil;
                const DType xt = pickType(n), yt = pickType(n / 2);
                const bool perChannel = n % 4 != 3;
                const int act = n % 3;  // none, Relu, Clip(0, 6 * sigma)
                QdqGraph g(rng);
                QParams xp = g.params(xt, -1.f, 1.f);
                std::vector<float> ws;
                std::string x = g.dequantize(g.quantize("X", xp), xp);
                std::string wv = g.weights({oc, c / group, k, k}, 0, perChannel, ws);
                const float sigma = 0.17f * std::sqrt(static_cast<float>(c / group * k * k));
                std::string b = g.bias(oc, xp.scale, ws, 0.3f * sigma);
                std::string y = g.add("Conv", {x, wv, b},
                                      {{"kernel_shape", Attribute::ofInts({k, k})}, {"strides", Attribute::ofInts({stride, stride})},
                                       {"pads", Attribute::ofInts({pad, pad, pad + n % 2, pad})},
                                       {"dilations", Attribute::ofInts({dil, dil})}, {"group", Attribute::ofInt(group)}});
                const std::string conv = y;
                if (act == 1) y = g.add("Relu", {y});
                if (act == 2) y = g.clip(y, 0.f, 2 * sigma);
                QParams yp = g.params(yt, act ? 0.f : -3 * sigma, 3 * sigma);
                std::string q = g.quantize(y, yp);
                std::string label = "QDQ Conv c=" + std::to_string(c) + " oc=" + std::to_string(oc) + " k=" +
                                    std::to_string(k) + " s=" + std::to_string(stride) + " d=" + std::to_string(dil) +
                                    " g=" + std::to_string(group) + " x=" + std::string(dtypeName(xt)) +
                                    " y=" + std::string(dtypeName(yt)) + (perChannel ? " per-channel" : " per-tensor") +
                                    (act == 1 ? " +Relu" : act == 2 ? " +Clip" : "");
                if (n % 5 == 4) {  // float output after a final DequantizeLinear
                    std::string f = g.dequantize(q, yp);
                    out.push_back(finish(label + " ->DQ", g, {{"X", {1, c, h, w}}}, {f}, rng, {{conv, q}}, {{f, yp.scale}}));
                } else {
                    out.push_back(finish(label, g, {{"X", {1, c, h, w}}}, {q}, rng, {{conv, q}}));
                }
                ++n;
            }
}

void addGemmCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    int n = 0;
    for (int64_t m : {1, 3})
        for (int64_t k : {7, 33, 64})
            for (int64_t nOut : {1, 17, 33}) {
                if ((m + k + nOut + n) % 2) { ++n; continue; }  // half the grid keeps the test quick
                const bool matmul = n % 4 == 3, transB = !matmul && n % 2 == 0, perChannel = n % 3 != 2;
                QdqGraph g(rng);
                QParams xp = g.params(pickType(n), -1.f, 1.f);
                std::string x = g.dequantize(g.quantize("X", xp), xp);
                std::vector<float> ws;
                Shape wShape = transB ? Shape{nOut, k} : Shape{k, nOut};
                std::string wv = g.weights(wShape, transB ? 0 : 1, perChannel, ws);
                const float sigma = 0.17f * std::sqrt(static_cast<float>(k));
                std::string y;
                if (matmul) {
                    y = g.add("MatMul", {x, wv});
                } else {
                    std::string b = g.bias(nOut, xp.scale, ws, 0.3f * sigma);
                    y = g.add("Gemm", {x, wv, b}, {{"transB", Attribute::ofInt(transB)}});
                }
                const std::string anchor = y;
                if (n % 3 == 1) y = g.add("Relu", {y});
                QParams yp = g.params(pickType(n + 1), n % 3 == 1 ? 0.f : -3 * sigma, 3 * sigma);
                std::string q = g.quantize(y, yp);
                std::string label = std::string(matmul ? "QDQ MatMul" : "QDQ Gemm") + " m=" + std::to_string(m) +
                                    " k=" + std::to_string(k) + " n=" + std::to_string(nOut) +
                                    (transB ? " transB" : "") + (perChannel ? " per-channel" : " per-tensor");
                out.push_back(finish(label, g, {{"X", {m, k}}}, {q}, rng, {{anchor, q}}));
                ++n;
            }
}

void addAddPoolAndChainCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    for (int i = 0; i < 6; ++i) {  // DQ + DQ -> Add -> [Relu|Clip] -> Q, different scales and types per input
        const int64_t c = std::array<int64_t, 6>{1, 3, 7, 17, 33, 16}[static_cast<size_t>(i)];
        QdqGraph g(rng);
        QParams ap = g.params(pickType(i), -1.f, 1.f), bp = g.params(pickType(i + 1), -0.7f, 1.3f);
        std::string a = g.dequantize(g.quantize("A", ap), ap), b = g.dequantize(g.quantize("B", bp), bp);
        std::string y = g.add("Add", {a, b});
        const std::string anchor = y;
        if (i % 3 == 1) y = g.add("Relu", {y});
        if (i % 3 == 2) y = g.clip(y, -0.5f, 1.f);
        QParams yp = g.params(pickType(i / 2), i % 3 == 1 ? 0.f : -1.8f, 1.8f);
        std::string q = g.quantize(y, yp);
        Shape s{1, c, 5 + i, 11};
        out.push_back(finish("QDQ Add c=" + std::to_string(c) + (i % 3 == 1 ? " +Relu" : i % 3 == 2 ? " +Clip" : ""),
                             g, {{"A", s}, {"B", s}}, {q}, rng, {{anchor, q}}));
    }
    for (int i = 0; i < 4; ++i) {  // DQ -> MaxPool -> Q with the same parameters
        const int64_t c = std::array<int64_t, 4>{3, 7, 17, 33}[static_cast<size_t>(i)], k = 2 + i % 2;
        QdqGraph g(rng);
        QParams p = g.params(pickType(i), -1.f, 1.f);
        std::string y = g.add("MaxPool", {g.dequantize(g.quantize("X", p), p)},
                              {{"kernel_shape", Attribute::ofInts({k, k})}, {"strides", Attribute::ofInts({2, 2})},
                               {"pads", Attribute::ofInts({i % 2, i % 2, i % 2, i % 2})}});
        std::string q = g.quantize(y, p);
        out.push_back(finish("QDQ MaxPool c=" + std::to_string(c) + " k=" + std::to_string(k), g,
                             {{"X", {1, c, 9 + i, 13}}}, {q}, rng, {{y, q}}));
    }
    for (int i = 0; i < 4; ++i) {  // DQ, DQ, DQ -> Concat -> Q: inputs with their own parameters, or the output's
        const int64_t axis = i % 2 ? 1 : 3;
        QdqGraph g(rng);
        QParams yp = g.params(pickType(i), -1.2f, 1.2f);
        std::vector<std::string> ins;
        std::map<std::string, Shape> shapes;
        for (int k = 0; k < 3; ++k) {
            QParams p = (i + k) % 3 == 0 ? yp : g.params(pickType(i + k), -1.f + 0.1f * k, 1.f);
            const std::string x = std::string("X").append(std::to_string(k));  // (operator+ trips GCC 12's -Wrestrict)
            Shape s{1, 3, 5, 7};
            s[static_cast<size_t>(axis)] = 1 + 8 * k + i;
            shapes[x] = s;
            ins.push_back(g.dequantize(g.quantize(x, p), p));
        }
        std::string y = g.add("Concat", ins, {{"axis", Attribute::ofInt(axis)}});
        std::string q = g.quantize(y, yp);
        out.push_back(finish("QDQ Concat axis=" + std::to_string(axis) + " " + std::string(dtypeName(yp.type)), g,
                             shapes, {q}, rng, {{y, q}}));
    }
    for (int i = 0; i < 3; ++i) {  // float islands: DQ -> Sigmoid/GlobalAveragePool -> Q, Q(DQ(x)) with new parameters
        QdqGraph g(rng);
        QParams xp = g.params(pickType(i), -1.f, 1.f), rp = g.params(pickType(i + 1), -0.8f, 0.9f);
        std::string xq = g.quantize("X", xp);
        std::string requantized = g.quantize(g.dequantize(xq, xp), rp);
        QParams sp = g.params(DType::U8, 0.f, 1.f);
        std::string s = g.quantize(g.add("Sigmoid", {g.dequantize(requantized, rp)}), sp);
        std::string gap = g.add("GlobalAveragePool", {g.dequantize(s, sp)});
        QParams gp = g.params(pickType(i), 0.2f, 0.8f);
        std::string q = g.quantize(gap, gp);
        out.push_back(finish("QDQ float-island c=" + std::to_string(3 + 14 * i), g, {{"X", {1, 3 + 14 * i, 7, 5 + i}}},
                             {q, s}, rng, {}));
    }
    for (int i = 0; i < 2; ++i) {  // ShuffleNet's channel shuffle and split on int8 values, then Concat and Q
        const int64_t c = 6 + 10 * i;
        QdqGraph g(rng);
        QParams xp = g.params(pickType(i), -1.f, 1.f), op = g.params(pickType(i + 1), -0.9f, 1.1f);
        std::string x = g.dequantize(g.quantize("X", xp), xp);
        g.init["shape5"] = Tensor::fromVector<int64_t>({5}, {1, 2, c / 2, 5, 7});
        g.init["shape4"] = Tensor::fromVector<int64_t>({4}, {1, c, 5, 7});
        g.init["starts"] = Tensor::fromVector<int64_t>({1}, {c / 2});
        g.init["ends"] = Tensor::fromVector<int64_t>({1}, {c});
        g.init["axes"] = Tensor::fromVector<int64_t>({1}, {1});
        std::string r = g.add("Reshape", {x, "shape5"});
        std::string t = g.add("Transpose", {r}, {{"perm", Attribute::ofInts({0, 2, 1, 3, 4})}});
        std::string back = g.add("Reshape", {t, "shape4"});
        std::string half = g.add("Slice", {back, "starts", "ends", "axes"});
        std::string q = g.quantize(half, op);
        std::string cat = g.add("Concat", {g.dequantize(q, op), half}, {{"axis", Attribute::ofInt(1)}});
        std::string y = g.quantize(cat, op);
        out.push_back(finish("QDQ shuffle c=" + std::to_string(c), g, {{"X", {1, c, 5, 7}}}, {y, q}, rng, {{cat, y}}));
    }
    for (int i = 0; i < 3; ++i) {  // a residual block: int8 values flow between int8 kernels, Q(DQ(x)) elided
        const int64_t c = std::array<int64_t, 3>{7, 16, 33}[static_cast<size_t>(i)];
        QdqGraph g(rng);
        const DType t = pickType(i);
        QParams xp = g.params(t, -1.f, 1.f);
        std::string xq = g.quantize("X", xp);
        auto conv = [&](const std::string& in, QParams ip, bool relu, QParams& op, std::string& anchor) {
            std::vector<float> ws;
            std::string wv = g.weights({c, c, 3, 3}, 0, true, ws);
            std::string b = g.bias(c, ip.scale, ws, 0.1f);
            std::string y = anchor = g.add("Conv", {g.dequantize(in, ip), wv, b},
                                           {{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})}});
            const float sigma = 0.17f * std::sqrt(static_cast<float>(c * 9)) * std::max(ip.scale * 127.f, 0.3f);
            if (relu) y = g.add("Relu", {y});
            op = g.params(relu ? DType::U8 : t, relu ? 0.f : -3 * sigma, 3 * sigma);
            return g.quantize(y, op);
        };
        QParams p1, p2;
        std::string a1, a2;
        std::string h = conv(xq, xp, true, p1, a1);
        std::string r = conv(g.quantize(g.dequantize(h, p1), p1), p1, false, p2, a2);  // an explicit Q(DQ(h)) pair
        std::string sum = g.add("Add", {g.dequantize(r, p2), g.dequantize(xq, xp)});
        std::string relu = g.add("Relu", {sum});
        QParams yp = g.params(DType::U8, 0.f, 3.f * p2.scale * 127.f);
        std::string q = g.quantize(relu, yp);
        std::string f = g.dequantize(q, yp);
        out.push_back(finish("QDQ residual block c=" + std::to_string(c) + " " + std::string(dtypeName(t)), g,
                             {{"X", {1, c, 10 + i, 9}}}, {f}, rng, {{a1, h}, {a2, r}, {sum, q}}, {{f, yp.scale}}));
    }
}

/// QLinearConv / QLinearMatMul (the QOperator form): the requantization is the reference's own formula, so these
/// should match exactly.
void addQLinearCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    for (int i = 0; i < 8; ++i) {
        const bool matmul = i >= 6;
        const int64_t c = std::array<int64_t, 8>{1, 3, 7, 17, 33, 16, 7, 33}[static_cast<size_t>(i)];
        const int64_t oc = matmul ? 17 : (i % 2 ? c : 5), group = !matmul && i % 2 && c > 1 ? c : 1, k = matmul ? 0 : 1 + 2 * (i % 2);
        QdqGraph g(rng);
        QParams xp = g.params(pickType(i), -1.f, 1.f);
        std::string xq = g.quantize("X", xp);
        std::uniform_int_distribution<int> v(-127, 127);
        Shape wShape = matmul ? Shape{c, oc} : Shape{oc, c / group, k, k};
        Tensor w(DType::I8, wShape);
        for (auto& e : w.values<int8_t>()) e = static_cast<int8_t>(v(rng));
        std::vector<float> ws(static_cast<size_t>(oc));
        for (size_t o = 0; o < ws.size(); ++o) ws[o] = (0.5f + 0.1f * static_cast<float>(o % 7)) / 127;
        const float sigma = 0.17f * std::sqrt(static_cast<float>(matmul ? c : c / group * k * k));
        QParams yp = g.params(pickType(i + 1), -3 * sigma, 3 * sigma);
        g.init["W"] = w;
        g.init["WS"] = Tensor::fromVector<float>({oc}, ws);
        g.init["WZ"] = Tensor::fromVector<int8_t>({oc}, std::vector<int8_t>(ws.size(), 0));
        g.init["XS"] = Tensor::scalar<float>(xp.scale);
        g.init["YS"] = Tensor::scalar<float>(yp.scale);
        auto zero = [](QParams p) {
            return p.type == DType::U8 ? Tensor::scalar<uint8_t>(static_cast<uint8_t>(p.zero))
                                       : Tensor::scalar<int8_t>(static_cast<int8_t>(p.zero));
        };
        g.init["XZ"] = zero(xp);
        g.init["YZ"] = zero(yp);
        std::string y;
        if (matmul) {
            y = g.add("QLinearMatMul", {xq, "XS", "XZ", "W", "WS", "WZ", "YS", "YZ"});
        } else {
            std::vector<int32_t> b(static_cast<size_t>(oc));
            for (auto& e : b) e = v(rng) * 20;
            g.init["B"] = Tensor::fromVector<int32_t>({oc}, b);
            y = g.add("QLinearConv", {xq, "XS", "XZ", "W", "WS", "WZ", "YS", "YZ", "B"},
                      {{"kernel_shape", Attribute::ofInts({k, k})}, {"strides", Attribute::ofInts({1 + i % 2, 1 + i % 2})},
                       {"pads", Attribute::ofInts({k / 2, k / 2, k / 2, k / 2})}, {"group", Attribute::ofInt(group)}});
        }
        g.types[y] = yp.type;
        Shape xs = matmul ? Shape{3, c} : Shape{1, c, 6 + i, 11};
        out.push_back(finish(std::string(matmul ? "QLinearMatMul" : "QLinearConv") + " c=" + std::to_string(c) +
                                 " oc=" + std::to_string(oc) + " g=" + std::to_string(group),
                             g, {{"X", xs}}, {y}, rng, {}));
    }
}

}  // namespace

/// Tables and products: DQ -> Sigmoid|Tanh|HardSigmoid -> Q, SiLU as exporters write it after a DequantizeLinear
/// (Mul(x, Sigmoid(x)) -> Q), and DQ(a), DQ(b) -> Mul -> Q of two int8 values.
void addTableAndMulCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    const char* unary[] = {"Sigmoid", "Tanh", "HardSigmoid"};
    for (int i = 0; i < 3; ++i) {
        const int64_t c = 3 + 14 * i;
        QdqGraph g(rng);
        QParams xp = g.params(pickType(i), -5.f, 4.f), sp = g.params(pickType(i + 1), -0.4f, 4.2f);
        QParams up = g.params(pickType(i), -1.f, 1.f), mp = g.params(pickType(i + 1), -2.f, 3.f);
        std::string x = g.dequantize(g.quantize("X", xp), xp);
        std::string sig = g.add("Sigmoid", {x});
        std::string silu = g.add("Mul", {x, sig});
        std::string sq = g.quantize(silu, sp);
        std::string u = g.add(unary[i], {x});
        std::string uq = g.quantize(u, up);
        std::string m = g.add("Mul", {g.dequantize(sq, sp), g.dequantize(uq, up)});
        std::string mq = g.quantize(m, mp);
        out.push_back(finish("QDQ table+Mul " + std::string(unary[i]) + " c=" + std::to_string(c), g,
                             {{"X", {1, c, 7, 9}}}, {mq, sq}, rng, {{sig, sq}, {u, uq}, {m, mq}}));
    }
}

/// Conv -> SiLU (Mul(c, Sigmoid(c))) -> Q, as our quantizer exports a Conv with its fused activation: one int8
/// primitive with a swish post-op in real units, then the step to y's units.
void addConvSiluCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    for (int i = 0; i < 2; ++i) {
        const int64_t c = 5 + 12 * i, oc = 8 + 9 * i;
        QdqGraph g(rng);
        QParams xp = g.params(pickType(i), -1.f, 1.f);
        std::vector<float> ws;
        std::string x = g.dequantize(g.quantize("X", xp), xp);
        std::string wv = g.weights({oc, c, 3, 3}, 0, true, ws);
        const float sigma = 0.17f * std::sqrt(static_cast<float>(c * 9));
        std::string conv = g.add("Conv", {x, wv, g.bias(oc, xp.scale, ws, 0.3f * sigma)},
                                 {{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})}});
        std::string silu = g.add("Mul", {conv, g.add("Sigmoid", {conv})});
        QParams yp = g.params(pickType(i + 1), -0.3f, 3 * sigma);
        std::string q = g.quantize(silu, yp);
        out.push_back(finish("QDQ Conv+SiLU c=" + std::to_string(c) + " oc=" + std::to_string(oc), g,
                             {{"X", {1, c, 9, 7}}}, {q}, rng, {{conv, q}}));
    }
}

/// A ShuffleNet unit on int8 values: a Conv (channels-last in cpu-onednn), the channel shuffle (Reshape, Transpose,
/// Reshape) and split (two Slices) on its int8 output, one half through Conv + Relu, Concat with the other, Q. The
/// shuffle and split work on the Conv's layout, not on a plain copy.
void addShuffleUnitCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    for (int i = 0; i < 2; ++i) {
        const int64_t c = i ? 58 : 16, half = c / 2, h = 6 + i, w = 9;
        QdqGraph g(rng);
        const DType t = pickType(i);
        QParams xp = g.params(t, -1.f, 1.f);
        auto conv1x1 = [&](const std::string& in, QParams ip, int64_t channels, bool relu, QParams& op,
                           std::string& anchor) {
            std::vector<float> ws;
            std::string wv = g.weights({channels, channels, 1, 1}, 0, true, ws);
            std::string b = g.bias(channels, ip.scale, ws, 0.1f);
            std::string y = anchor = g.add("Conv", {g.dequantize(in, ip), wv, b}, {{"kernel_shape", Attribute::ofInts({1, 1})}});
            const float sigma = 0.17f * std::sqrt(static_cast<float>(channels)) * std::max(ip.scale * 127.f, 0.3f);
            if (relu) y = g.add("Relu", {y});
            op = g.params(relu ? DType::U8 : t, relu ? 0.f : -3 * sigma, 3 * sigma);
            return g.quantize(y, op);
        };
        QParams p1, p2;
        std::string a1, a2;
        std::string q1 = conv1x1(g.quantize("X", xp), xp, c, false, p1, a1);
        g.init["shape5"] = Tensor::fromVector<int64_t>({5}, {1, 2, half, h, w});
        g.init["shape4"] = Tensor::fromVector<int64_t>({4}, {1, c, h, w});
        g.init["zero"] = Tensor::fromVector<int64_t>({1}, {0});
        g.init["half"] = Tensor::fromVector<int64_t>({1}, {half});
        g.init["all"] = Tensor::fromVector<int64_t>({1}, {c});
        g.init["axes"] = Tensor::fromVector<int64_t>({1}, {1});
        std::string r = g.add("Reshape", {g.dequantize(q1, p1), "shape5"});
        std::string shuffled = g.add("Reshape", {g.add("Transpose", {r}, {{"perm", Attribute::ofInts({0, 2, 1, 3, 4})}}), "shape4"});
        std::string left = g.quantize(g.add("Slice", {shuffled, "zero", "half", "axes"}), p1);
        std::string right = g.quantize(g.add("Slice", {shuffled, "half", "all", "axes"}), p1);
        std::string q2 = conv1x1(right, p1, half, true, p2, a2);
        std::string cat = g.add("Concat", {g.dequantize(left, p1), g.dequantize(q2, p2)}, {{"axis", Attribute::ofInt(1)}});
        std::string y = g.quantize(cat, p2);
        out.push_back(finish("QDQ shuffle unit c=" + std::to_string(c) + " " + std::string(dtypeName(t)), g,
                             {{"X", {1, c, h, w}}}, {y}, rng, {{a1, q1}, {a2, q2}, {cat, y}}));
    }
}

/// DQ -> Relu -> Q and DQ -> Clip(constant bounds) -> Q on their own, as a QDQ export leaves them after an Add: one
/// 256-entry table each, no float pass.
void addActivationTableCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    for (int i = 0; i < 2; ++i) {
        const int64_t c = 5 + 12 * i;
        QdqGraph g(rng);
        QParams xp = g.params(pickType(i), -3.f, 5.f), yp = g.params(pickType(i + 1), -0.2f, 4.f);
        std::string x = g.dequantize(g.quantize("X", xp), xp);
        std::string act;
        if (i == 0) {
            act = g.add("Relu", {x});
        } else {
            g.init["lo"] = Tensor::scalar<float>(0.f);
            g.init["hi"] = Tensor::scalar<float>(3.5f);
            act = g.add("Clip", {x, "lo", "hi"});
        }
        std::string y = g.quantize(act, yp);
        out.push_back(finish(std::string("QDQ table+Mul ") + (i == 0 ? "Relu" : "Clip") + " c=" + std::to_string(c), g,
                             {{"X", {1, c, 6, 7}}}, {y}, rng, {{act, y}}));
    }
}

/// DQ -> Add|Sub|Mul|Div with a single-element constant -> Q, as a QDQ export leaves paddle2onnx's
/// affine after HardSwish: a 256-entry table each. Seeded random channels, constants and parameters.
void addScalarTableCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    const char* ops[] = {"Add", "Mul", "Sub", "Div"};
    std::uniform_int_distribution<int64_t> channels(1, 40);
    std::uniform_real_distribution<float> constant(0.3f, 2.5f);
    for (int i = 0; i < 4; ++i) {
        const int64_t c = channels(rng);
        QdqGraph g(rng);
        QParams xp = g.params(pickType(i), -4.f, 4.f), yp = g.params(pickType(i + 1), -10.f, 10.f);
        std::string x = g.dequantize(g.quantize("X", xp), xp);
        const std::string k = std::vector<std::string>{"k0", "k1", "k2", "k3"}[static_cast<size_t>(i)];
        g.init[k] = i % 2 ? Tensor::fromVector<float>({1}, {constant(rng)}) : Tensor::scalar<float>(constant(rng));
        // The constant first where the op commutes (Sub and Div keep the full operand first to be claimed).
        std::string op = g.add(ops[i], i == 1 ? std::vector<std::string>{k, x} : std::vector<std::string>{x, k});
        std::string y = g.quantize(op, yp);
        std::string label = "QDQ table+Mul scalar ";
        label += ops[i];
        label += " c=" + std::to_string(c);
        out.push_back(finish(label, g, {{"X", {1, c, 5, 9}}}, {y}, rng, {{op, y}}));
    }
}

std::vector<Int8Case> int8Cases(uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<Int8Case> cases;
    addConvCases(cases, rng);
    addGemmCases(cases, rng);
    addAddPoolAndChainCases(cases, rng);
    addQLinearCases(cases, rng);
    addTableAndMulCases(cases, rng);  // new groups last, so the earlier cases keep their seeded values
    addConvSiluCases(cases, rng);
    addShuffleUnitCases(cases, rng);
    addActivationTableCases(cases, rng);
    addScalarTableCases(cases, rng);
    addBatchedMatMulCases(cases, rng);
    addLayerNormQuantizeCases(cases, rng);
    addGeluQuantizeCases(cases, rng);
    addHeadSplitCases(cases, rng);
    addFloatSumCases(cases, rng);
    addFusedProjectionSplitCases(cases, rng);
    addLayerNormMovedQuantizeCases(cases, rng);
    return cases;
}

namespace {

/// Remembers which execution steps each backend kernel covered.
class KernelSteps : public ExecutionObserver {
public:
    bool wantsKernelTimes() const override { return true; }
    void kernelTimed(const std::vector<size_t>& steps, double) override { kernels.push_back(steps); }
    std::vector<std::vector<size_t>> kernels;
};

}  // namespace

Int8Outcome runInt8Case(const Int8Case& k, const std::string& backend) {
    Int8Outcome o;
    try {
        auto reference = difftest::referenceSession(k.c.model).runTensors(k.c.inputs);
        SessionOptions opts;
        opts.executor.backend = backend;
        opts.executor.threads = 2;
        opts.profileKernels = true;
        Session fast(k.c.model, opts);
        fast.prepare(k.c.inputs);
        KernelSteps steps;
        RunControl control;
        control.observer = &steps;
        auto got = fast.runTensors(k.c.inputs, control);
        o.claimed = fast.fallbacks().empty();
        if (!o.claimed) o.message = "fallback " + fast.fallbacks()[0].opType + ": " + fast.fallbacks()[0].reason + "; ";
        for (const auto& [anchor, last] : k.fused) {
            size_t pa = SIZE_MAX, pl = SIZE_MAX;
            const auto& order = fast.executionOrder();
            for (size_t pos = 0; pos < order.size(); ++pos) {
                const std::string& nm = fast.model().graph.nodes[order[pos]].name;
                if (nm == anchor) pa = pos;
                if (nm == last) pl = pos;
            }
            bool found = false;
            for (const auto& kernel : steps.kernels)
                found = found || (std::count(kernel.begin(), kernel.end(), pa) && std::count(kernel.begin(), kernel.end(), pl));
            if (!found) {
                o.fused = false;
                o.message += anchor + " .. " + last + " not one int8 kernel; ";
            }
        }
        for (const std::string& name : k.elided) {
            const auto& order = fast.executionOrder();
            for (const auto& kernel : steps.kernels)
                for (size_t pos : kernel)
                    if (fast.model().graph.nodes[order[pos]].name == name) {
                        o.fused = false;
                        o.message += name + " ran in a kernel; ";
                    }
        }
        for (const auto& [name, ref] : reference) {
            const Tensor& t = got.at(name);
            if (t.shape() != ref.shape() || t.dtype() != ref.dtype()) {
                o.passed = false;
                o.message += name + ": shape/type differs";
                return o;
            }
            const auto s = k.outputScale.find(name);
            const std::vector<float> a = ref.toFloatVector(), b = t.toFloatVector();
            for (size_t i = 0; i < a.size(); ++i) {
                double steps = std::abs(double(a[i]) - double(b[i])) / (s == k.outputScale.end() ? 1.0 : s->second);
                if (steps > 1.001 || std::isnan(steps)) {
                    o.passed = false;
                    o.message += name + "[" + std::to_string(i) + "]: " + std::to_string(b[i]) + " vs reference " +
                                 std::to_string(a[i]) + "; ";
                    return o;
                }
                o.offByOne += steps > 0.5;
            }
            o.elements += static_cast<int64_t>(a.size());
        }
    } catch (const std::exception& e) {
        o.passed = false;
        o.message += e.what();
    }
    return o;
}
std::vector<Int8Case> squeezeExcitationCases(uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<Int8Case> out;
    std::uniform_int_distribution<int64_t> channels(1, 70), side(1, 30);  // some above the threading threshold
    for (int i = 0; i < 8; ++i) {
        // Case 4: more channels than the kernel's 1024-element pattern holds (EfficientNet's last blocks: 1152).
        const int64_t c = i == 4 ? 1100 + channels(rng) : channels(rng), h = i == 4 ? 3 : side(rng);
        const int64_t w = i == 4 ? 4 : side(rng) + 1, batch = i % 4 >= 2 ? 2 : 1;
        const bool mul = i % 4 != 1, viaConv = i % 2 == 0, batchedScale = i % 8 == 3, relu = i % 3 == 2;
        QdqGraph g(rng);
        const DType t = pickType(i);
        QParams xp = g.params(t, -1.f, 1.f);
        std::string xq = g.quantize("X", xp);
        std::string x = g.dequantize(xq, xp), anchor, pooled;
        QParams hp = xp;
        float xBound = 1.f, sBound = 1.f;  // |x| and |s| at most: y's range follows, so a step of x is a step of y
        if (viaConv) {  // a Conv's int8 output: channels-last in cpu-onednn
            std::vector<float> ws;
            std::string wv = g.weights({c, c, 1, 1}, 0, true, ws);
            anchor = g.add("Conv", {x, wv, g.bias(c, xp.scale, ws, 0.1f)});
            const float sigma = 0.17f * std::sqrt(static_cast<float>(c)) * std::max(xp.scale * 127.f, 0.3f);
            hp = g.params(pickType(i + 1), -3 * sigma, 3 * sigma);
            xBound = 3 * sigma;
            xq = g.quantize(anchor, hp);
            x = g.dequantize(xq, hp);
        }
        std::string gap = g.add("GlobalAveragePool", {x});
        QParams gp = g.params(pickType(i), -0.5f, 0.5f);
        pooled = g.quantize(gap, gp);
        // The per-channel operand: the pool's Sigmoid (SE), or an input of its own ([N, C, 1, 1] or [C, 1, 1]).
        QParams sp = g.params(DType::U8, 0.f, 1.f);
        std::string scale = g.quantize(g.add("Sigmoid", {g.dequantize(pooled, gp)}), sp);
        std::map<std::string, Shape> inputs{{"X", {batch, c, h, w}}};
        if (!viaConv) {
            sp = g.params(pickType(i + 1), -1.5f, 1.5f);
            sBound = 1.5f;
            inputs["S"] = batchedScale ? Shape{batch, c, 1, 1} : Shape{c, 1, 1};
            scale = g.quantize("S", sp);
        }
        std::vector<std::string> operands{x, g.dequantize(scale, sp)};
        if (i % 2) std::swap(operands[0], operands[1]);
        std::string y = g.add(mul ? "Mul" : "Add", operands), last = relu ? g.add("Relu", {y}) : y;
        const float yBound = 1.2f * (mul ? xBound * sBound : xBound + sBound);
        QParams yp = g.params(relu ? DType::U8 : pickType(i + 1), relu ? 0.f : -yBound, yBound);
        std::string q = g.quantize(last, yp);
        std::vector<std::pair<std::string, std::string>> fused{{gap, pooled}, {y, q}};
        if (viaConv) fused.emplace_back(anchor, xq);
        out.push_back(finish("QDQ SE " + std::string(mul ? "Mul" : "Add") + " n=" + std::to_string(batch) +
                                 " c=" + std::to_string(c) + " " + std::to_string(h) + "x" + std::to_string(w),
                             g, inputs, {q, pooled}, rng, fused));
    }
    return out;
}

std::string familyOf(const std::string& l) { return l.substr(0, l.find(' ', l.rfind("QDQ ", 0) == 0 ? 4 : 0)); }

void Int8Tally::add(const Int8Case& k, const Int8Outcome& o) {
    auto& f = families[familyOf(k.c.label)];
    f[0] += 1, f[1] += o.elements, f[2] += o.offByOne;
    cases += 1;
    claimed += o.claimed;
    passed += o.passed;
    fused += o.fused;
    elements += o.elements;
    offByOne += o.offByOne;
}

void Int8Tally::print(const std::string& backend) const {
    std::printf("[%s] int8: %d QDQ cases: %d within 1 LSB, %d fully run by the backend, %d with every int8 pattern "
                "fused; %lld of %lld output elements (%.3f%%) one step from the reference, none further\n",
                backend.c_str(), cases, passed, claimed, fused, static_cast<long long>(offByOne),
                static_cast<long long>(elements),
                100.0 * static_cast<double>(offByOne) / static_cast<double>(std::max<int64_t>(elements, 1)));
    for (const auto& [family, f] : families)
        std::printf("  %-16s %3lld cases, %6lld elements, %lld one step off\n", family.c_str(),
                    static_cast<long long>(f[0]), static_cast<long long>(f[1]), static_cast<long long>(f[2]));
}

}  // namespace npuwb::int8test
