// The int8 case families of transformer exports (Int8Cases.h has the set): a Linear's batched MatMul and bias, LayerNorm
// and GELU kept in fp16 before a QuantizeLinear, heads split before their QuantizeLinear, residual sums read in float.
#include <cmath>

#include "Int8CaseGraph.h"

namespace npuwb::int8test {

namespace {

/// A LayerNorm's scale (about 1) and shift (about 0) over `d` channels, drawn in that order, as initializers
/// "gamma<suffix>" and "beta<suffix>"; their names.
std::pair<std::string, std::string> layerNormParams(QdqGraph& g, int64_t d, const std::string& suffix,
                                                    std::mt19937& rng) {
    std::uniform_real_distribution<float> scale(0.5f, 1.5f), shift(-0.5f, 0.5f);
    std::vector<float> gamma(static_cast<size_t>(d)), beta(static_cast<size_t>(d));
    for (auto& v : gamma) v = scale(rng);
    for (auto& v : beta) v = shift(rng);
    const std::string gn = "gamma" + suffix, bn = "beta" + suffix;
    g.init[gn] = Tensor::fromVector<float>({d}, gamma);
    g.init[bn] = Tensor::fromVector<float>({d}, beta);
    return {gn, bn};
}

}  // namespace

/// A transformer's linear layers: QDQ MatMul of a 3-D or 4-D activation by a 2-D per-channel weight (one GEMM over the
/// collapsed rows), with a Relu on some.
void addBatchedMatMulCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    const std::vector<Shape> shapes = {{1, 5, 24}, {2, 7, 33}, {2, 3, 4, 16}, {1, 197, 64}};
    for (size_t i = 0; i < shapes.size(); ++i) {
        const Shape& x = shapes[i];
        const int64_t k = x.back(), nOut = 9 + 8 * int64_t(i);
        QdqGraph g(rng);
        QParams xp = g.params(pickType(int(i)), -1.f, 1.f);
        std::string in = g.dequantize(g.quantize("X", xp), xp);
        std::vector<float> ws;
        std::string y = g.add("MatMul", {in, g.weights({k, nOut}, 1, true, ws)});
        const std::string anchor = y;
        const float sigma = 0.17f * std::sqrt(static_cast<float>(k));
        const bool biased = i > 0;  // a Linear as exporters write it: MatMul, then Add of a float bias (either order)
        if (biased) {
            std::uniform_real_distribution<float> u(-0.3f * sigma, 0.3f * sigma);
            std::vector<float> b(static_cast<size_t>(nOut));
            for (auto& v : b) v = u(rng);
            const std::string bn = "bias" + std::to_string(i);
            g.init[bn] = Tensor::fromVector<float>(i == 2 ? Shape{1, nOut} : Shape{nOut}, b);
            y = i % 2 ? g.add("Add", {bn, y}) : g.add("Add", {y, bn});
        }
        if (i % 2) y = g.add("Relu", {y});
        QParams yp = g.params(pickType(int(i) + 1), i % 2 ? 0.f : -3 * sigma, 3 * sigma);
        std::string q = g.quantize(y, yp);
        std::string label = "QDQ batched MatMul " + std::to_string(x.size()) + "-D k=" + std::to_string(k) +
                            " n=" + std::to_string(nOut) + (biased ? " + bias" : "");
        out.push_back(finish(label, g, {{"X", x}}, {q}, rng, {{anchor, q}}));
    }
}

void addLayerNormQuantizeCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    const std::vector<Shape> shapes = {{1, 7, 24}, {2, 5, 64}, {1, 197, 192}};
    for (size_t i = 0; i < shapes.size(); ++i) {
        const Shape& x = shapes[i];
        const int64_t d = x.back();
        QdqGraph g(rng);
        const auto [gn, bn] = layerNormParams(g, d, std::to_string(i), rng);
        // The quantizer's form: fp16 marks before the kept LayerNorm, then the QuantizeLinear of the next int8 op
        // (the second shape without the marks).
        const bool marks = i != 1;
        std::string in = "X";
        if (marks) {
            in = g.add("Cast", {in}, {{"to", Attribute::ofInt(10)}});
            in = g.add("Cast", {in}, {{"to", Attribute::ofInt(1)}});
        }
        const std::string y = g.add("LayerNormalization", {in, gn, bn}, {{"axis", Attribute::ofInt(-1)}});
        const std::string anchor = marks ? g.nodes.front().outputs[0] : y;
        QParams yp = g.params(pickType(int(i)), -3.f, 3.f);
        std::string q = g.quantize(y, yp);
        std::string label = std::string("QDQ LayerNorm ") + (marks ? "fp16 marks " : "") + "d=" + std::to_string(d);
        out.push_back(finish(label, g, {{"X", x}}, {q}, rng, {{anchor, q}}));
    }
}

void addGeluQuantizeCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    // An MLP's middle as the quantizer leaves it: fp16 marks before the kept GELU (every exporter order), then the
    // QuantizeLinear of the next layer (the second form without the marks). Inputs scaled by 3: GELU's bend.
    for (int form = 0; form < 4; ++form) {
        QdqGraph g(rng);
        for (auto& [name, value] : difftest::geluConstants()) g.init[name] = value;
        g.init["three_x"] = Tensor::scalar<float>(3.f);
        const bool marks = form != 1;
        std::string in = g.add("Mul", {"X", "three_x"});
        if (marks) {
            in = g.add("Cast", {in}, {{"to", Attribute::ofInt(10)}});
            in = g.add("Cast", {in}, {{"to", Attribute::ofInt(1)}});
        }
        const size_t first = g.nodes.size() - (marks ? 2 : 0);
        for (Node& n : difftest::geluNodes(form, in, "gelu", "g")) g.nodes.push_back(std::move(n));
        const std::string anchor = g.nodes[marks ? first : g.nodes.size() - 1].outputs[0];
        QParams yp = g.params(pickType(form), -0.2f, 3.f);
        std::string q = g.quantize("gelu", yp);
        std::string label = std::string("QDQ GELU ") + difftest::geluFormName(form) + (marks ? " fp16 marks" : "");
        out.push_back(finish(label, g, {{"X", form % 2 ? Shape{1, 9, 40} : Shape{2, 50, 96}}}, {q}, rng,
                             {{anchor, q}}));
    }
}

/// A Linear whose output is split into heads before it is quantized ([B, T, H*d] -> Reshape [B, T, H, d] ->
/// Transpose), as the quantizer leaves Q, K and V in front of an attention core: the Linear's kernel writes the bytes
/// and the movement moves bytes, so the QuantizeLinear runs in no kernel of its own.
void addHeadSplitCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> tokens(5, 40), heads(2, 4), depth(4, 24);
    const std::vector<std::vector<int64_t>> perms = {{0, 2, 1, 3}, {0, 2, 3, 1}, {0, 1, 2, 3}};
    for (size_t i = 0; i < perms.size(); ++i) {
        const int64_t t = tokens(rng), h = heads(rng), d = depth(rng), k = h * d;
        QdqGraph g(rng);
        QParams xp = g.params(pickType(int(i)), -1.f, 1.f);
        std::string in = g.dequantize(g.quantize("X", xp), xp);
        std::vector<float> ws;
        const std::string anchor = g.add("MatMul", {in, g.weights({k, k}, 1, true, ws)});
        const float sigma = 0.17f * std::sqrt(static_cast<float>(k));
        std::uniform_real_distribution<float> u(-0.3f * sigma, 0.3f * sigma);
        std::vector<float> b(static_cast<size_t>(k));
        for (auto& v : b) v = u(rng);
        const std::string bn = "bias" + std::to_string(i), sn = "heads" + std::to_string(i);
        g.init[bn] = Tensor::fromVector<float>({k}, b);
        g.init[sn] = Tensor::fromVector<int64_t>({4}, {1, t, h, d});
        const std::string biased = g.add("Add", {anchor, bn});
        std::string y = g.add("Reshape", {biased, sn});
        if (perms[i] != std::vector<int64_t>{0, 1, 2, 3})
            y = g.add("Transpose", {y}, {{"perm", Attribute::ofInts(perms[i])}});
        QParams yp = g.params(pickType(int(i) + 1), -3 * sigma, 3 * sigma);
        std::string q = g.quantize(y, yp);
        Int8Case c = finish("QDQ heads split t=" + std::to_string(t) + " h=" + std::to_string(h) + " d=" +
                                std::to_string(d),
                            g, {{"X", {1, t, k}}}, {q}, rng, {{anchor, biased}});
        c.elided = {g.nodeNameOf(q)};
        out.push_back(std::move(c));
    }
}

/// A fused QKV projection (one Linear of N = 3 * H * d) whose output Slices take Q, K and V apart, each split into
/// heads and quantized with its own parameters, the queries first divided (or multiplied) by a constant: the Linear's
/// kernel writes every column range in its QuantizeLinear's parameters, the Slices and heads move bytes, and neither
/// the QuantizeLinears nor the Div run in a kernel. Forms: torchvision's MultiheadAttention ([T, 1, C], Div on Q), two
/// Slices reading the last two thirds (a Mul on one), one zero point shared by all.
void addFusedProjectionSplitCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> tokens(5, 40), heads(2, 4), depth(4, 24);
    for (int form = 0; form < 3; ++form) {
        const int64_t t = tokens(rng), h = heads(rng), d = depth(rng), k = h * d;
        QdqGraph g(rng);
        QParams xp = g.params(pickType(form), -1.f, 1.f);
        std::string in = g.dequantize(g.quantize("X", xp), xp);
        std::vector<float> ws;
        const std::string anchor = g.add("MatMul", {in, g.weights({k, 3 * k}, 1, true, ws)});
        const float sigma = 0.17f * std::sqrt(static_cast<float>(k));
        std::uniform_real_distribution<float> u(-0.3f * sigma, 0.3f * sigma);
        std::vector<float> b(static_cast<size_t>(3 * k));
        for (auto& v : b) v = u(rng);
        const std::string f = std::to_string(form);
        g.init["bias" + f] = Tensor::fromVector<float>({3 * k}, b);
        const std::string biased = form == 0 ? g.add("Add", {"bias" + f, anchor}) : g.add("Add", {anchor, "bias" + f});
        g.init["heads" + f] = Tensor::fromVector<int64_t>({3}, {t, h, d});
        g.init["axis" + f] = Tensor::fromVector<int64_t>({1}, {form == 0 ? 2 : -1});
        g.init["divisor" + f] = Tensor::scalar<float>(std::sqrt(static_cast<float>(d)));
        const DType type = pickType(form + 1);
        const QParams shared = g.params(type, -3 * sigma, 3 * sigma);
        std::vector<std::string> outputs, elided;
        for (int part = form == 1 ? 1 : 0; part < 3; ++part) {
            const std::string p = f + "_" + std::to_string(part);
            g.init["start" + p] = Tensor::fromVector<int64_t>({1}, {part * k});
            g.init["end" + p] = Tensor::fromVector<int64_t>({1}, {(part + 1) * k});
            std::string y = g.add("Slice", {biased, "start" + p, "end" + p, "axis" + f});
            y = g.add("Reshape", {y, "heads" + f});
            const std::vector<int64_t> perm = part == 1 ? std::vector<int64_t>{1, 2, 0} : std::vector<int64_t>{1, 0, 2};
            y = g.add("Transpose", {y}, {{"perm", Attribute::ofInts(perm)}});
            if ((form == 0 && part == 0) || (form == 1 && part == 1)) {
                y = g.add(form == 0 ? "Div" : "Mul", {y, "divisor" + f});
                elided.push_back(g.nodeNameOf(y));
            }
            outputs.push_back(g.quantize(y, form == 2 ? shared : g.params(type, -3 * sigma, 3 * sigma)));
            elided.push_back(g.nodeNameOf(outputs.back()));
        }
        const Shape x = form == 0 ? Shape{t, 1, k} : Shape{1, t, k};
        const std::string shape = form == 0 ? "[T,1,C] Div" : form == 1 ? "2 of 3 Mul" : "shared zero";
        Int8Case c = finish("QDQ fused QKV split " + shape + " t=" + std::to_string(t) + " h=" + std::to_string(h) +
                                " d=" + std::to_string(d),
                            g, {{"X", x}}, outputs, rng, {{anchor, biased}});
        c.elided = elided;
        out.push_back(std::move(c));
    }
}

/// A LayerNorm whose output reaches the next QuantizeLinear only through data movement (ViT's ln_1 -> Transpose to
/// [T, B, C] -> Q before the attention's Linear): the normalizing pass writes the bytes, the movement moves them, the
/// QuantizeLinear runs in no kernel. With fp16 marks before it, and without (Reshape then Transpose).
void addLayerNormMovedQuantizeCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    const std::vector<Shape> shapes = {{1, 13, 24}, {2, 9, 32}};
    for (size_t i = 0; i < shapes.size(); ++i) {
        const Shape& x = shapes[i];
        const int64_t d = x.back();
        QdqGraph g(rng);
        const auto [gn, bn] = layerNormParams(g, d, "_moved" + std::to_string(i), rng);
        const bool marks = i == 0;
        std::string in = "X";
        if (marks) {
            in = g.add("Cast", {in}, {{"to", Attribute::ofInt(10)}});
            in = g.add("Cast", {in}, {{"to", Attribute::ofInt(1)}});
        }
        const std::string y = g.add("LayerNormalization", {in, gn, bn}, {{"axis", Attribute::ofInt(-1)}});
        std::string moved = y;
        if (!marks) {
            g.init["split" + std::to_string(i)] = Tensor::fromVector<int64_t>({4}, {x[0], x[1], 4, d / 4});
            moved = g.add("Reshape", {moved, "split" + std::to_string(i)});
        }
        const std::vector<int64_t> perm = marks ? std::vector<int64_t>{1, 0, 2} : std::vector<int64_t>{1, 0, 2, 3};
        moved = g.add("Transpose", {moved}, {{"perm", Attribute::ofInts(perm)}});
        const std::string anchor = marks ? g.nodes.front().outputs[0] : y;
        std::string q = g.quantize(moved, g.params(pickType(int(i)), -3.f, 3.f));
        const std::string label = std::string("QDQ LayerNorm moved ") + (marks ? "fp16 marks " : "") + "d=";
        Int8Case c = finish(label + std::to_string(d), g, {{"X", x}}, {q}, rng, {{anchor, y}});
        c.elided = {g.nodeNameOf(q)};
        out.push_back(std::move(c));
    }
}

/// A residual sum as the quantizer leaves it in a transformer: Add of two dequantized values, read in float (by a
/// LayerNorm, here the graph output) and, in one case, by the next residual's QuantizeLinear too (one kernel with the
/// Add). Exact: the float sum of the two dequantized values, no DequantizeLinear run.
void addFloatSumCases(std::vector<Int8Case>& out, std::mt19937& rng) {
    const std::vector<Shape> shapes = {{1, 7, 24}, {4, 33, 64}, {2, 3, 5, 9}, {1, 50, 40}};
    for (size_t i = 0; i < shapes.size(); ++i) {
        QdqGraph g(rng);
        QParams ap = g.params(pickType(int(i)), -2.f, 2.f), bp = g.params(pickType(int(i) + 1), -1.f, 3.f);
        const std::string a = g.dequantize(g.quantize("A", ap), ap), b = g.dequantize(g.quantize("B", bp), bp);
        const std::string y = g.add(i == 2 ? "Mul" : "Add", {a, b});
        std::vector<std::string> outputs{y};
        if (i == 3)  // also quantized for the next residual: the bytes come from the same pass
            outputs.push_back(g.quantize(y, g.params(DType::I8, -3.f, 5.f)));
        Int8Case c = finish(std::string("QDQ float ") + (i == 2 ? "product " : "sum ") +
                                (i == 3 ? "and its Q " : "") + difftest::dimsLabel(shapes[i]),
                            g, {{"A", shapes[i]}, {"B", shapes[i]}}, outputs, rng, {{y, outputs.back()}},
                            {{y, 1e-30f}});
        c.elided = {g.nodeNameOf(a), g.nodeNameOf(b)};
        out.push_back(std::move(c));
    }
}

}  // namespace npuwb::int8test
