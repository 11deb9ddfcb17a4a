// Fusions the benchmark corpus's slowest models asked for, with the cases where they must not apply. Pre-activation
// residual blocks (resnet50-v2-7): a Conv's sum post-op writing into its residual's own buffer when nothing reads the
// residual later, and the copies it must keep when something does; BatchNormalization + Relu in one pass where no
// Conv takes the BatchNormalization. HardSwish as paddle2onnx writes it, x * Clip(x + 3, 0, 6) / 6 with the Div last
// (PP-OCR cls), as a Conv post-op. LayerNormalization, which PP-OCRv4 rec's w8a8 export ran on the reference
// kernels. Concat of Conv outputs (channels-last, so joined block by block), with plain values and on every axis.
// Seeded random channel counts, sizes and axes.
#include "DifferentialHarness.h"

namespace npuwb::difftest {

namespace {

std::map<std::string, Tensor> batchNormParams(const std::string& prefix, int64_t c, std::mt19937& rng) {
    return {{prefix + "scale", randomTensor({c}, rng, 0.5f, 1.5f)}, {prefix + "bias", randomTensor({c}, rng)},
            {prefix + "mean", randomTensor({c}, rng)}, {prefix + "var", randomTensor({c}, rng, 0.5f, 2.f)}};
}

Node batchNorm(const std::string& prefix, const std::string& in, const std::string& out) {
    return makeNode("BatchNormalization", {in, prefix + "scale", prefix + "bias", prefix + "mean", prefix + "var"},
                    {out});
}

}  // namespace

void addInPlaceResidualCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> channels(3, 40), side(5, 23);
    const std::map<std::string, Attribute> conv3x3{{"kernel_shape", Attribute::ofInts({3, 3})},
                                                   {"pads", Attribute::ofInts({1, 1, 1, 1})}};
    for (int round = 0; round < 3; ++round) {
        const int64_t c = round == 0 ? 16 : channels(rng), h = side(rng), w = side(rng);
        std::map<std::string, Tensor> init{{"W0", randomTensor({c, c, 1, 1}, rng)}, {"B0", randomTensor({c}, rng)},
                                           {"W1", randomTensor({c, c, 3, 3}, rng)}, {"B1", randomTensor({c}, rng)},
                                           {"W2", randomTensor({c, c, 3, 3}, rng)}, {"B2", randomTensor({c}, rng)}};
        init.merge(batchNormParams("p", c, rng));
        init.merge(batchNormParams("q", c, rng));
        const std::string tag = " c=" + std::to_string(c) + " " + std::to_string(h) + "x" + std::to_string(w);
        const Shape x{1, c, h, w};
        const Node conv0 = makeNode("Conv", {"X", "W0", "B0"}, {"x0"});
        // x0 is read by the first BatchNormalization, then last by the Add: the sum goes into x0's buffer, and a1's
        // likewise in the second block.
        cases.push_back(makeCase("Pre-activation blocks, sums in place" + tag,
                                 {conv0, batchNorm("p", "x0", "n0"), makeNode("Relu", {"n0"}, {"r0"}),
                                  makeNode("Conv", {"r0", "W1", "B1"}, {"y1"}, conv3x3),
                                  makeNode("Add", {"y1", "x0"}, {"a1"}), batchNorm("q", "a1", "n1"),
                                  makeNode("Relu", {"n1"}, {"r1"}),
                                  makeNode("Conv", {"r1", "W2", "B2"}, {"y2"}, conv3x3),
                                  makeNode("Add", {"a1", "y2"}, {"Y"})},
                                 {{"X", x}}, {"Y"}, init, rng));
        // x0 read again after the sum: the sum needs its own buffer.
        cases.push_back(makeCase("Residual read after the sum" + tag,
                                 {conv0, batchNorm("p", "x0", "n0"), makeNode("Relu", {"n0"}, {"r0"}),
                                  makeNode("Conv", {"r0", "W1", "B1"}, {"y1"}, conv3x3),
                                  makeNode("Add", {"y1", "x0"}, {"a1"}), makeNode("Mul", {"a1", "x0"}, {"Y"})},
                                 {{"X", x}}, {"Y"}, init, rng));
        // The residual is the Conv's own input: writing into it would change what the Conv reads.
        cases.push_back(makeCase("Residual is the Conv's input" + tag,
                                 {conv0, makeNode("Conv", {"x0", "W1", "B1"}, {"y1"}, conv3x3),
                                  makeNode("Add", {"y1", "x0"}, {"Y"})},
                                 {{"X", x}}, {"Y"}, init, rng));
        // Two Convs of one input summed (a downsampling block's shortcut), the sum also a graph output.
        cases.push_back(makeCase("Two Convs summed, Relu" + tag,
                                 {conv0, makeNode("Conv", {"X", "W1", "B1"}, {"y1"}, conv3x3),
                                  makeNode("Add", {"x0", "y1"}, {"S"}), makeNode("Relu", {"S"}, {"Y"})},
                                 {{"X", x}}, {"S", "Y"}, init, rng));
    }
}

void addBatchNormReluCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> channels(1, 40), side(1, 19);
    for (const Shape& x : {Shape{1, channels(rng), side(rng), side(rng)}, Shape{2, channels(rng), side(rng)},
                           Shape{1, 16, side(rng), side(rng)}}) {
        const int64_t c = x[1];
        std::string tag = " c=" + std::to_string(c) + " rank " + std::to_string(x.size());
        std::map<std::string, Tensor> init = batchNormParams("p", c, rng);
        cases.push_back(makeCase("BN+Relu" + tag, {batchNorm("p", "X", "n"), makeNode("Relu", {"n"}, {"Y"})},
                                 {{"X", x}}, {"Y"}, init, rng));
        // The normalized value read twice, or kept as an output: the Relu cannot take its place.
        cases.push_back(makeCase("BN+Relu, BN read again" + tag,
                                 {batchNorm("p", "X", "n"), makeNode("Relu", {"n"}, {"r"}),
                                  makeNode("Add", {"r", "n"}, {"Y"})},
                                 {{"X", x}}, {"Y"}, init, rng));
        cases.push_back(makeCase("BN+Relu, BN an output" + tag,
                                 {batchNorm("p", "X", "n"), makeNode("Relu", {"n"}, {"Y"})},
                                 {{"X", x}}, {"n", "Y"}, init, rng));
    }
    // On a Conv output the Conv cannot take (read again): the BatchNormalization runs on the Conv's layout
    // (channels-last or blocked), with and without a Relu.
    for (int round = 0; round < 3; ++round) {
        const int64_t c = round == 0 ? 32 : channels(rng), h = side(rng), w = side(rng);
        std::map<std::string, Tensor> init = batchNormParams("p", c, rng);
        init.emplace("W", randomTensor({c, c, 1, 1}, rng));
        const std::string tag = " c=" + std::to_string(c) + " " + std::to_string(h) + "x" + std::to_string(w);
        const Node conv = makeNode("Conv", {"X", "W"}, {"c"});
        cases.push_back(makeCase("Conv read twice, BN+Relu" + tag,
                                 {conv, batchNorm("p", "c", "n"), makeNode("Relu", {"n"}, {"r"}),
                                  makeNode("Add", {"r", "c"}, {"Y"})},
                                 {{"X", {2, c, h, w}}}, {"Y"}, init, rng));
        cases.push_back(makeCase("Conv read twice, BN" + tag,
                                 {conv, batchNorm("p", "c", "n"), makeNode("Mul", {"n", "c"}, {"Y"})},
                                 {{"X", {1, c, h, w}}}, {"Y"}, init, rng));
    }
}

void addDivLastHardSwishCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> channels(1, 40), side(3, 17);
    for (int round = 0; round < 3; ++round) {
        const int64_t c = channels(rng), h = side(rng), w = side(rng), group = round == 1 ? c : 1;
        std::map<std::string, Tensor> init{{"W", randomTensor({c, c / group, 3, 3}, rng)},
                                           {"three", Tensor::scalar<float>(3.f)}, {"six", Tensor::scalar<float>(6.f)},
                                           {"five", Tensor::scalar<float>(5.f)}, {"zero", Tensor::scalar<float>(0.f)}};
        init.merge(batchNormParams("p", c, rng));
        const std::map<std::string, Attribute> conv{{"kernel_shape", Attribute::ofInts({3, 3})},
                                                    {"pads", Attribute::ofInts({1, 1, 1, 1})},
                                                    {"group", Attribute::ofInt(group)}};
        const std::string tag = " c=" + std::to_string(c) + " g=" + std::to_string(group) + " " + std::to_string(h) +
                                "x" + std::to_string(w);
        auto hardSwish = [&](bool clipFirst, const std::string& divisor) {
            return std::vector<Node>{makeNode("Conv", {"X", "W"}, {"c"}, conv), batchNorm("p", "c", "x"),
                                     makeNode("Add", {"x", "three"}, {"x3"}),
                                     makeNode("Clip", {"x3", "zero", "six"}, {"r6"}),
                                     makeNode("Mul", clipFirst ? std::vector<std::string>{"r6", "x"}
                                                               : std::vector<std::string>{"x", "r6"}, {"m"}),
                                     makeNode("Div", {"m", divisor}, {"Y"})};
        };
        cases.push_back(makeCase("Conv+BN+HardSwish, Div last" + tag, hardSwish(false, "six"), {{"X", {1, c, h, w}}},
                                 {"Y"}, init, rng));
        cases.push_back(makeCase("Conv+BN+HardSwish, Div last, Clip first" + tag, hardSwish(true, "six"),
                                 {{"X", {1, c, h, w}}}, {"Y"}, init, rng));
        // Not HardSwish (divided by 5), and the product read twice: each op on its own.
        cases.push_back(makeCase("Conv+BN, x * Clip(x + 3) / 5" + tag, hardSwish(false, "five"), {{"X", {1, c, h, w}}},
                                 {"Y"}, init, rng));
        std::vector<Node> readTwice = hardSwish(false, "six");
        readTwice.push_back(makeNode("Add", {"Y", "m"}, {"Z"}));
        cases.push_back(makeCase("Conv+BN+HardSwish, Div last, product read again" + tag, readTwice,
                                 {{"X", {1, c, h, w}}}, {"Z"}, init, rng));
    }
}

void addLayerNormCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> side(1, 24), rankOf(2, 4);
    for (int round = 0; round < 4; ++round) {
        Shape x(static_cast<size_t>(rankOf(rng)));
        for (auto& d : x) d = side(rng);
        const auto rank = static_cast<int64_t>(x.size());
        const int64_t axis = std::uniform_int_distribution<int64_t>(-rank, rank - 1)(rng);
        const Shape normalized(x.begin() + (axis < 0 ? axis + rank : axis), x.end());
        std::map<std::string, Tensor> init{{"scale", randomTensor(normalized, rng, 0.5f, 1.5f)},
                                           {"bias", randomTensor(normalized, rng)},
                                           {"row", randomTensor({normalized.back()}, rng)}};
        std::string tag = " axis=" + std::to_string(axis) + " ";
        for (size_t i = 0; i < x.size(); ++i) {  // appended step by step (GCC 12's -Wrestrict on "x" + string&&)
            if (i) tag += 'x';
            tag += std::to_string(x[i]);
        }
        const std::map<std::string, Attribute> attrs{{"axis", Attribute::ofInt(axis)},
                                                     {"epsilon", Attribute::ofFloat(1e-3f)}};
        cases.push_back(makeCase("LayerNormalization" + tag,
                                 {makeNode("LayerNormalization", {"X", "scale", "bias"}, {"Y"}, attrs)},
                                 {{"X", x}}, {"Y"}, init, rng));
        cases.push_back(makeCase("LayerNormalization, no bias" + tag,
                                 {makeNode("LayerNormalization", {"X", "scale"}, {"Y"}, attrs)},
                                 {{"X", x}}, {"Y"}, init, rng));
        // A scale broadcast along the normalized axes and a requested Mean: the reference kernel's.
        if (normalized.size() > 1 && shapeNumel(normalized) != normalized.back())
            cases.push_back(makeCase("LayerNormalization, broadcast scale" + tag,
                                     {makeNode("LayerNormalization", {"X", "row"}, {"Y"}, attrs)},
                                     {{"X", x}}, {"Y"}, init, rng));
        cases.push_back(makeCase("LayerNormalization, Mean output" + tag,
                                 {makeNode("LayerNormalization", {"X", "scale", "bias"}, {"Y", "M"}, attrs)},
                                 {{"X", x}}, {"Y", "M"}, init, rng));
    }
}

void addConvConcatCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> channels(1, 40), side(1, 17);
    const std::map<std::string, Attribute> conv3x3{{"kernel_shape", Attribute::ofInts({3, 3})},
                                                   {"pads", Attribute::ofInts({1, 1, 1, 1})}};
    for (int round = 0; round < 6; ++round) {
        const int64_t batch = round % 3 == 2 ? 2 : 1, c = channels(rng), h = side(rng), w = side(rng);
        const int64_t c1 = round == 0 ? 16 : channels(rng), c2 = round == 0 ? 32 : channels(rng);
        const int64_t axis = round < 3 ? 1 : round - 2;  // channels, then batch, height and width
        std::map<std::string, Tensor> init{{"W1", randomTensor({c1, c, 1, 1}, rng)}, {"B1", randomTensor({c1}, rng)},
                                           {"W2", randomTensor({c2, c, 3, 3}, rng)}, {"B2", randomTensor({c2}, rng)},
                                           {"W3", randomTensor({c1, c1, 3, 3}, rng)}, {"B3", randomTensor({c1}, rng)}};
        const std::string tag = " axis=" + std::to_string(axis) + " n=" + std::to_string(batch) + " c=" +
                                std::to_string(c) + "," + std::to_string(c1) + "," + std::to_string(c2) + " " +
                                std::to_string(h) + "x" + std::to_string(w);
        const Shape x{batch, c, h, w};
        if (axis == 1) {
            // A fire module (squeezenet): a 1x1 and a 3x3 Conv of one value joined, then read by a Conv; the
            // graph input joined too.
            init["W4"] = randomTensor({c1, c1 + c2 + c, 1, 1}, rng);
            cases.push_back(makeCase("Conv outputs and input concatenated" + tag,
                                     {makeNode("Conv", {"X", "W1", "B1"}, {"a"}), makeNode("Relu", {"a"}, {"ar"}),
                                      makeNode("Conv", {"X", "W2", "B2"}, {"b"}, conv3x3),
                                      makeNode("Concat", {"ar", "b", "X"}, {"y"}, {{"axis", Attribute::ofInt(1)}}),
                                      makeNode("Conv", {"y", "W4", "B3"}, {"Y"})},
                                     {{"X", x}}, {"Y"}, init, rng));
        } else {
            // The same channel count on both sides: joined on batch, height or width.
            cases.push_back(makeCase("Conv outputs concatenated" + tag,
                                     {makeNode("Conv", {"X", "W1", "B1"}, {"a"}),
                                      makeNode("Conv", {"a", "W3", "B3"}, {"b"}, conv3x3),
                                      makeNode("Concat", {"a", "b", "a"}, {"Y"}, {{"axis", Attribute::ofInt(axis)}})},
                                     {{"X", x}}, {"Y"}, init, rng));
        }
    }
}

/// A channel Concat read only by an ungrouped Conv with a narrow output: the Conv runs as one Conv per Concat input
/// adding onto each other. Two and three inputs (the graph input among them), 1x1 and strided 3x3, with a folded
/// BatchNormalization, a residual Add, batch 2; and the Concat also a graph output, where it must stay.
void addConcatIntoConvCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> channels(16, 40), side(3, 15);
    for (int round = 0; round < 4; ++round) {
        const int64_t batch = round == 3 ? 2 : 1, c = channels(rng), h = side(rng), w = side(rng), oc = 8;
        const bool withInput = round % 2 == 1, spatial = round == 1 || round == 3;
        std::vector<std::string> parts{"a", "b"};
        std::map<std::string, Tensor> init;
        std::vector<Node> nodes;
        int64_t joined = 0;
        for (const std::string& part : parts) {
            const int64_t pc = channels(rng);
            init.emplace("W" + part, randomTensor({pc, c, 1, 1}, rng));
            init.emplace("B" + part, randomTensor({pc}, rng));
            nodes.push_back(makeNode("Conv", {"X", "W" + part, "B" + part}, {part + "c"}));
            nodes.push_back(makeNode("Relu", {part + "c"}, {part}));
            joined += pc;
        }
        if (withInput) {
            parts.push_back("X");
            joined += c;
        }
        nodes.push_back(makeNode("Concat", parts, {"cat"}, {{"axis", Attribute::ofInt(1)}}));
        std::map<std::string, Attribute> attrs;
        if (spatial)
            attrs = {{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})},
                     {"strides", Attribute::ofInts({round == 1 ? 2 : 1, round == 1 ? 2 : 1})}};
        init.emplace("Wj", randomTensor({oc, joined, spatial ? 3 : 1, spatial ? 3 : 1}, rng));
        init.emplace("Bj", randomTensor({oc}, rng));
        nodes.push_back(makeNode("Conv", {"cat", "Wj", "Bj"}, {"j"}, attrs));
        std::vector<std::string> outputs{"Y"};
        if (round == 1) {
            init.merge(batchNormParams("p", oc, rng));
            nodes.push_back(batchNorm("p", "j", "n"));
            nodes.push_back(makeNode("Relu", {"n"}, {"Y"}));
        } else if (round == 2) {  // the sum of the parts plus a residual, then Relu
            init.emplace("Wr", randomTensor({oc, c, 1, 1}, rng));
            nodes.push_back(makeNode("Conv", {"X", "Wr"}, {"r"}));
            nodes.push_back(makeNode("Add", {"j", "r"}, {"s"}));
            nodes.push_back(makeNode("Relu", {"s"}, {"Y"}));
        } else {
            nodes.push_back(makeNode("Relu", {"j"}, {"Y"}));
            if (round == 3) outputs.push_back("cat");
        }
        const std::string tag = " n=" + std::to_string(batch) + " c=" + std::to_string(c) + " joined " +
                                std::to_string(joined) + " " + std::to_string(h) + "x" + std::to_string(w);
        cases.push_back(makeCase("Concat into a Conv, round " + std::to_string(round) + tag, nodes,
                                 {{"X", {batch, c, h, w}}}, outputs, init, rng));
    }
    // The residual is one of the Concat's inputs: the sum cannot go into its buffer, which a part still reads.
    const int64_t c = channels(rng), h = side(rng), w = side(rng);
    std::map<std::string, Tensor> init{{"Wa", randomTensor({16, c, 1, 1}, rng)}, {"Wb", randomTensor({32, c, 1, 1}, rng)},
                                       {"Wj", randomTensor({16, 48, 3, 3}, rng)}};
    const std::map<std::string, Attribute> conv3x3{{"kernel_shape", Attribute::ofInts({3, 3})},
                                                   {"pads", Attribute::ofInts({1, 1, 1, 1})}};
    cases.push_back(makeCase("Concat into a Conv, residual a Concat input c=" + std::to_string(c),
                             {makeNode("Conv", {"X", "Wa"}, {"ac"}), makeNode("Relu", {"ac"}, {"a"}),
                              makeNode("Conv", {"X", "Wb"}, {"b"}),
                              makeNode("Concat", {"a", "b"}, {"cat"}, {{"axis", Attribute::ofInt(1)}}),
                              makeNode("Conv", {"cat", "Wj"}, {"j"}, conv3x3), makeNode("Add", {"j", "a"}, {"s"}),
                              makeNode("Relu", {"s"}, {"Y"})},
                             {{"X", {1, c, h, w}}}, {"Y"}, init, rng));
}

}  // namespace npuwb::difftest
