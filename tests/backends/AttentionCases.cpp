// The attention core as exporters and the quantizer write it (MatMul, [fp16 marks], Div or Mul by a scalar, [Add of
// a mask or bias], Softmax, [QDQ], MatMul), with heads split off [B, T, H, d] by Transposes and put back the same
// way, and the variants that must not fuse (the probabilities read elsewhere). Seeded random shapes; the score rows
// span several of the kernel's row blocks.
#include <cmath>

#include "DifferentialHarness.h"

namespace npuwb::difftest {

namespace {

Node transpose(const std::string& x, const std::string& y, std::vector<int64_t> perm) {
    return makeNode("Transpose", {x}, {y}, {{"perm", Attribute::ofInts(std::move(perm))}});
}

/// QuantizeLinear then DequantizeLinear of `x` with scale `s` and zero point `z` (initializers named after `x`).
std::vector<Node> quantDequant(const std::string& x, const std::string& y, float s, int z, bool isSigned,
                               std::map<std::string, Tensor>& init) {
    init[x + "_s"] = Tensor::scalar<float>(s);
    init[x + "_z"] = isSigned ? Tensor::scalar<int8_t>(static_cast<int8_t>(z)) : Tensor::scalar<uint8_t>(uint8_t(z));
    return {makeNode("QuantizeLinear", {x, x + "_s", x + "_z"}, {x + "_q"}),
            makeNode("DequantizeLinear", {x + "_q", x + "_s", x + "_z"}, {y})};
}

}  // namespace

void addAttentionCoreCases(std::vector<Case>& cases, std::mt19937& rng) {
    // Head sizes of 64 and more: below that the kernel multiplies the dequantized floats (faster there).
    std::uniform_int_distribution<int64_t> length(20, 300), depth(64, 96);
    for (int round = 0; round < 2; ++round) {
        const int64_t batch = 1 + round, heads = 2 + round, t = length(rng), d = depth(rng);
        // Heads split off [B, T, H, d], scores / sqrt(d) plus a padding mask [B, 1, 1, T], heads put back.
        std::map<std::string, Tensor> init{{"scale", Tensor::scalar<float>(std::sqrt(float(d)))},
                                           {"mask", randomTensor({batch, 1, 1, t}, rng, -4.f, 0.f)}};
        cases.push_back(makeCase(
            "attention, heads split and merged " + dimsLabel({batch, heads, t, d}),
            {transpose("Q", "q", {0, 2, 1, 3}), transpose("K", "kt", {0, 2, 3, 1}), transpose("V", "v", {0, 2, 1, 3}),
             makeNode("MatMul", {"q", "kt"}, {"s"}), makeNode("Div", {"s", "scale"}, {"sd"}),
             makeNode("Add", {"sd", "mask"}, {"sm"}),
             makeNode("Softmax", {"sm"}, {"p"}, {{"axis", Attribute::ofInt(-1)}}),
             makeNode("MatMul", {"p", "v"}, {"o"}), transpose("o", "Y", {0, 2, 1, 3})},
            {{"Q", {batch, t, heads, d}}, {"K", {batch, t, heads, d}}, {"V", {batch, t, heads, d}}}, {"Y"}, init,
            rng));
        // A scale that is no power of two, a bias per head (Swin's relative positions), V of one head for all.
        std::map<std::string, Tensor> init2{{"scale", Tensor::scalar<float>(0.37f)},
                                            {"bias", randomTensor({heads, t, t}, rng)},
                                            {"V", randomTensor({t, d}, rng)}};
        cases.push_back(makeCase("attention, scaled, bias per head " + dimsLabel({batch, heads, t, d}),
                                 {makeNode("MatMul", {"Q", "K"}, {"s"}), makeNode("Mul", {"scale", "s"}, {"sd"}),
                                  makeNode("Add", {"bias", "sd"}, {"sm"}),
                                  makeNode("Softmax", {"sm"}, {"p"}, {{"axis", Attribute::ofInt(-1)}}),
                                  makeNode("MatMul", {"p", "V"}, {"Y"})},
                                 {{"Q", {batch, heads, t, d}}, {"K", {batch, heads, d, t}}}, {"Y"}, init2, rng));
        // The probabilities are also an output: nothing fuses, the results still agree.
        cases.push_back(makeCase("attention, probabilities kept " + dimsLabel({1, heads, t, d}),
                                 {makeNode("MatMul", {"Q", "K"}, {"s"}),
                                  makeNode("Softmax", {"s"}, {"P"}, {{"axis", Attribute::ofInt(-1)}}),
                                  makeNode("MatMul", {"P", "V"}, {"Y"})},
                                 {{"Q", {1, heads, t, d}}, {"K", {1, heads, d, t}}, {"V", {1, heads, t, d}}},
                                 {"Y", "P"}, {}, rng));
    }
}

void addQuantizedAttentionCases(std::vector<Case>& cases, std::mt19937& rng) {
    // Head sizes of 64 and more (the GEMMs on the bytes), then one below (the kernel multiplies the dequantized
    // floats and quantizes the probabilities in float there).
    std::uniform_int_distribution<int64_t> length(20, 300), depth(64, 96), small(8, 40);
    for (int round = 0; round < 3; ++round) {
        // The quantizer's form: Q, K, V and the probabilities through QDQ (u8, or s8 in the second round), the scores
        // with fp16 marks around the division.
        const bool isSigned = round == 1;
        const int64_t heads = 2 + round, t = length(rng), d = round < 2 ? depth(rng) : small(rng);
        const int zero = isSigned ? 3 : 131;
        std::map<std::string, Tensor> init{{"scale", Tensor::scalar<float>(8.f)}};
        std::vector<Node> nodes;
        for (const char* x : {"Q", "K", "V"}) {
            auto qdq = quantDequant(x, std::string(x) + "dq", 1.f / 100.f, zero, isSigned, init);
            nodes.insert(nodes.end(), qdq.begin(), qdq.end());
        }
        nodes.push_back(makeNode("MatMul", {"Qdq", "Kdq"}, {"s"}));
        nodes.push_back(makeNode("Cast", {"s"}, {"h"}, {{"to", Attribute::ofInt(10)}}));
        nodes.push_back(makeNode("Cast", {"h"}, {"f"}, {{"to", Attribute::ofInt(1)}}));
        nodes.push_back(makeNode("Div", {"f", "scale"}, {"sd"}));
        nodes.push_back(makeNode("Softmax", {"sd"}, {"p"}, {{"axis", Attribute::ofInt(-1)}}));
        auto qdq = quantDequant("p", "pdq", 1.f / 255.f, isSigned ? -128 : 0, isSigned, init);
        nodes.insert(nodes.end(), qdq.begin(), qdq.end());
        nodes.push_back(makeNode("MatMul", {"pdq", "Vdq"}, {"Y"}));
        cases.push_back(makeCase("quantized attention " + std::string(isSigned ? "s8 " : "u8 ") +
                                     dimsLabel({1, heads, t, d}),
                                 nodes, {{"Q", {1, heads, t, d}}, {"K", {1, heads, d, t}}, {"V", {1, heads, t, d}}},
                                 {"Y"}, init, rng));
    }
}

void addLinearFedAttentionCases(std::vector<Case>& cases, std::mt19937& rng, bool quantizedOutput) {
    // The quantizer's whole attention: X quantized, Q, K and V as int8 Linears (MatMul of per-channel s8 weights,
    // then a float bias), heads split by Reshape and Transpose, each quantized after its Transpose; the core as in
    // addQuantizedAttentionCases. Head sizes below 64 (float GEMMs of dequantized bytes) and above (byte GEMMs).
    std::uniform_int_distribution<int64_t> length(20, 120), small(8, 24), large(64, 72);
    std::uniform_int_distribution<int> weight(-127, 127);
    for (int round = 0; round < 2; ++round) {
        const int64_t heads = 2 + round, t = length(rng), d = round == 0 ? small(rng) : large(rng), c = heads * d;
        std::map<std::string, Tensor> init{{"scale", Tensor::scalar<float>(std::sqrt(float(d)))},
                                           {"heads", Tensor::fromVector<int64_t>({4}, {1, t, heads, d})}};
        std::vector<Node> nodes = quantDequant("X", "x", 1.f / 60.f, 128, false, init);
        const float sigma = 0.5f * std::sqrt(float(c)) / 127.f;  // |X| <= 2: about N(0, 0.5) per output
        for (const char* h : {"q", "k", "v"}) {
            const std::string w = std::string(h) + "_w", b = std::string(h) + "_b";
            Tensor weights(DType::I8, {c, c});
            for (auto& x : weights.values<int8_t>()) x = static_cast<int8_t>(weight(rng));
            init[w] = weights;
            init[w + "_s"] = Tensor::fromVector<float>({c}, std::vector<float>(size_t(c), 1.f / (127.f * sigma * 4.f)));
            init[w + "_z"] = Tensor::fromVector<int8_t>({c}, std::vector<int8_t>(size_t(c), 0));
            init[b] = randomTensor({c}, rng, -0.2f, 0.2f);
            nodes.push_back(
                makeNode("DequantizeLinear", {w, w + "_s", w + "_z"}, {w + "f"}, {{"axis", Attribute::ofInt(1)}}));
            nodes.push_back(makeNode("MatMul", {"x", w + "f"}, {std::string(h) + "_mm"}));
            nodes.push_back(makeNode("Add", {std::string(h) + "_mm", b}, {std::string(h) + "_lin"}));
            nodes.push_back(makeNode("Reshape", {std::string(h) + "_lin", "heads"}, {std::string(h) + "_split"}));
            const std::vector<int64_t> perm =
                *h == 'k' ? std::vector<int64_t>{0, 2, 3, 1} : std::vector<int64_t>{0, 2, 1, 3};
            nodes.push_back(transpose(std::string(h) + "_split", std::string(h) + "_heads", perm));
            auto qdq = quantDequant(std::string(h) + "_heads", std::string(h) + "_dq", 1.f / 40.f, 3, true, init);
            nodes.insert(nodes.end(), qdq.begin(), qdq.end());
        }
        nodes.push_back(makeNode("MatMul", {"q_dq", "k_dq"}, {"s"}));
        nodes.push_back(makeNode("Cast", {"s"}, {"h"}, {{"to", Attribute::ofInt(10)}}));
        nodes.push_back(makeNode("Cast", {"h"}, {"f"}, {{"to", Attribute::ofInt(1)}}));
        nodes.push_back(makeNode("Div", {"f", "scale"}, {"sd"}));
        nodes.push_back(makeNode("Softmax", {"sd"}, {"p"}, {{"axis", Attribute::ofInt(-1)}}));
        auto qdq = quantDequant("p", "pdq", 1.f / 255.f, 0, false, init);
        nodes.insert(nodes.end(), qdq.begin(), qdq.end());
        if (!quantizedOutput) {
            nodes.push_back(makeNode("MatMul", {"pdq", "v_dq"}, {"Y"}));
            cases.push_back(makeCase("quantized attention from Linears " + dimsLabel({1, heads, t, d}), nodes,
                                     {{"X", {1, t, c}}}, {"Y"}, init, rng));
            continue;
        }
        // The heads merged back ([B, T, H*d]) and quantized for the output Linear: Y is that Linear's u8 input.
        init["merged"] = Tensor::fromVector<int64_t>({3}, {1, t, c});
        init["o_s"] = Tensor::scalar<float>(1.f / 100.f);
        init["o_z"] = Tensor::scalar<uint8_t>(uint8_t(128));
        nodes.push_back(makeNode("MatMul", {"pdq", "v_dq"}, {"o"}));
        nodes.push_back(transpose("o", "o_heads", {0, 2, 1, 3}));
        nodes.push_back(makeNode("Reshape", {"o_heads", "merged"}, {"o_flat"}));
        nodes.push_back(makeNode("QuantizeLinear", {"o_flat", "o_s", "o_z"}, {"Y"}));
        Case k = makeCase("quantized attention, heads merged and quantized " + dimsLabel({1, heads, t, d}), nodes,
                          {{"X", {1, t, c}}}, {"Y"}, init, rng);
        k.model->graph.outputs[0].type.dtype = DType::U8;
        cases.push_back(std::move(k));
    }
}

void addFusedProjectionAttentionCases(std::vector<Case>& cases, std::mt19937& rng) {
    // torchvision's MultiheadAttention as the quantizer leaves it: X [T, 1, C] quantized, one Linear of 3C outputs,
    // Slices taking Q, K and V apart, heads split ([T, H, d] then Transpose), Q divided by sqrt(d), each quantized
    // (u8) with its own parameters; the core as in addLinearFedAttentionCases. Head sizes below 64 and above.
    std::uniform_int_distribution<int64_t> length(20, 120), small(8, 24), large(64, 72);
    std::uniform_int_distribution<int> weight(-127, 127), zero(110, 150);
    for (int round = 0; round < 2; ++round) {
        const int64_t heads = 2 + round, t = length(rng), d = round == 0 ? small(rng) : large(rng), c = heads * d;
        std::map<std::string, Tensor> init{{"scale", Tensor::scalar<float>(std::sqrt(float(d)))},
                                           {"heads", Tensor::fromVector<int64_t>({3}, {t, heads, d})},
                                           {"axis", Tensor::fromVector<int64_t>({1}, {2})}};
        std::vector<Node> nodes = quantDequant("X", "x", 1.f / 60.f, 128, false, init);
        const float sigma = 0.5f * std::sqrt(float(c)) / 127.f;
        Tensor weights(DType::I8, {c, 3 * c});
        for (auto& x : weights.values<int8_t>()) x = static_cast<int8_t>(weight(rng));
        init["w"] = weights;
        const float weightScale = 1.f / (127.f * sigma * 4.f);
        init["w_s"] = Tensor::fromVector<float>({3 * c}, std::vector<float>(size_t(3 * c), weightScale));
        init["w_z"] = Tensor::fromVector<int8_t>({3 * c}, std::vector<int8_t>(size_t(3 * c), 0));
        init["b"] = randomTensor({3 * c}, rng, -0.2f, 0.2f);
        nodes.push_back(makeNode("DequantizeLinear", {"w", "w_s", "w_z"}, {"wf"}, {{"axis", Attribute::ofInt(1)}}));
        nodes.push_back(makeNode("MatMul", {"x", "wf"}, {"qkv_mm"}));
        nodes.push_back(makeNode("Add", {"b", "qkv_mm"}, {"qkv"}));
        for (int part = 0; part < 3; ++part) {
            const std::string h(1, "qkv"[part]), p = std::to_string(part);
            init["start" + p] = Tensor::fromVector<int64_t>({1}, {part * c});
            init["end" + p] = Tensor::fromVector<int64_t>({1}, {(part + 1) * c});
            nodes.push_back(makeNode("Slice", {"qkv", "start" + p, "end" + p, "axis"}, {h + "_part"}));
            nodes.push_back(makeNode("Reshape", {h + "_part", "heads"}, {h + "_split"}));
            const std::vector<int64_t> perm = h == "k" ? std::vector<int64_t>{1, 2, 0} : std::vector<int64_t>{1, 0, 2};
            nodes.push_back(transpose(h + "_split", h + "_heads", perm));
            std::string quantized = h + "_heads";
            if (h == "q") {
                nodes.push_back(makeNode("Div", {h + "_heads", "scale"}, {"q_scaled"}));
                quantized = "q_scaled";
            }
            const float range = h == "q" ? 2.f / std::sqrt(float(d)) : 2.f;
            auto qdq = quantDequant(quantized, h + "_dq", range / 127.f, zero(rng), false, init);
            nodes.insert(nodes.end(), qdq.begin(), qdq.end());
        }
        nodes.push_back(makeNode("MatMul", {"q_dq", "k_dq"}, {"s"}));
        nodes.push_back(makeNode("Cast", {"s"}, {"h"}, {{"to", Attribute::ofInt(10)}}));
        nodes.push_back(makeNode("Cast", {"h"}, {"f"}, {{"to", Attribute::ofInt(1)}}));
        nodes.push_back(makeNode("Softmax", {"f"}, {"p"}, {{"axis", Attribute::ofInt(-1)}}));
        auto qdq = quantDequant("p", "pdq", 1.f / 255.f, 0, false, init);
        nodes.insert(nodes.end(), qdq.begin(), qdq.end());
        nodes.push_back(makeNode("MatMul", {"pdq", "v_dq"}, {"Y"}));
        cases.push_back(makeCase("quantized attention from a fused QKV Linear " + dimsLabel({heads, t, d}), nodes,
                                 {{"X", {t, 1, c}}}, {"Y"}, init, rng));
    }
}

}  // namespace npuwb::difftest
