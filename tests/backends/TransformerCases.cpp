// What transformer exports ask of a backend: MatMul with a 2-D weight (one GEMM over the rows of a 3-D or 4-D A) with
// its bias Add and activations, GELU as exporters write it (erf form in several orders, GPT-2's tanh form), Erf on
// its own, and LayerNorm in its opset < 17 form (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add); with
// the variants that must not fuse (a value of the pattern read elsewhere, another constant); Gather with constant
// indices (ViT's class token), Where with a constant mask (GPT-2's causal mask), Transposes of size-1 dims; Conv1d
// (whisper's audio front end) and Slices with steps (Swin's patch merging). Seeded random shapes.
#include <cmath>
#include <limits>

#include "DifferentialHarness.h"

namespace npuwb::difftest {

namespace {

Tensor scalar(float v) { return Tensor::scalar<float>(v); }

}  // namespace

std::vector<Node> geluNodes(int form, const std::string& x, const std::string& y, const std::string& p) {
    switch (form) {
        case 0:  // torch: x * (1 + erf(x / sqrt2)) * 0.5
            return {makeNode("Div", {x, "sqrt2"}, {p + "d"}), makeNode("Erf", {p + "d"}, {p + "e"}),
                    makeNode("Add", {p + "e", "one"}, {p + "a"}), makeNode("Mul", {x, p + "a"}, {p + "m"}),
                    makeNode("Mul", {p + "m", "half"}, {y})};
        case 1:  // 0.5 * x first, then * (1 + erf(x * (1 / sqrt2))), operands swapped
            return {makeNode("Mul", {"half", x}, {p + "h"}), makeNode("Mul", {x, "rsqrt2"}, {p + "d"}),
                    makeNode("Erf", {p + "d"}, {p + "e"}), makeNode("Add", {"one", p + "e"}, {p + "a"}),
                    makeNode("Mul", {p + "a", p + "h"}, {y})};
        case 2:  // GPT-2: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
            return {makeNode("Mul", {x, "half"}, {p + "h"}), makeNode("Pow", {x, "three"}, {p + "c"}),
                    makeNode("Mul", {p + "c", "k"}, {p + "kc"}), makeNode("Add", {x, p + "kc"}, {p + "s"}),
                    makeNode("Mul", {p + "s", "sqrt2pi"}, {p + "t"}), makeNode("Tanh", {p + "t"}, {p + "th"}),
                    makeNode("Add", {p + "th", "one"}, {p + "a"}), makeNode("Mul", {p + "h", p + "a"}, {y})};
        default:  // the tanh form with x * x * x for the cube
            return {makeNode("Mul", {x, x}, {p + "x2"}), makeNode("Mul", {p + "x2", x}, {p + "c"}),
                    makeNode("Mul", {"k", p + "c"}, {p + "kc"}), makeNode("Add", {p + "kc", x}, {p + "s"}),
                    makeNode("Mul", {"sqrt2pi", p + "s"}, {p + "t"}), makeNode("Tanh", {p + "t"}, {p + "th"}),
                    makeNode("Add", {"one", p + "th"}, {p + "a"}), makeNode("Mul", {x, p + "a"}, {p + "m"}),
                    makeNode("Mul", {p + "m", "half"}, {y})};
    }
}

std::map<std::string, Tensor> geluConstants() {
    return {{"sqrt2", scalar(1.4142135f)}, {"rsqrt2", scalar(0.70710677f)}, {"one", scalar(1.f)},
            {"half", scalar(0.5f)},        {"three", scalar(3.f)},          {"k", scalar(0.044715f)},
            {"sqrt2pi", scalar(0.7978846f)}};
}

const char* geluFormName(int form) {
    static const char* names[] = {"erf torch order", "erf half first", "tanh Pow 3", "tanh x*x*x"};
    return names[form];
}

void addMatMulWeightCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> dim(1, 40), batch(2, 4);
    for (int round = 0; round < 8; ++round) {
        const int64_t k = dim(rng), n = dim(rng), t = dim(rng);
        // 2-D, 3-D with batch 1 and more, 4-D (heads)
        const Shape a = round % 4 == 0   ? Shape{t, k}
                        : round % 4 == 1 ? Shape{1, t, k}
                        : round % 4 == 2 ? Shape{batch(rng), t, k}
                                         : Shape{batch(rng), 3, t, k};
        const bool bias = round < 4, biasFirst = round % 2 == 0;
        std::map<std::string, Tensor> init{{"W", randomTensor({k, n}, rng)}, {"bias", randomTensor({n}, rng)},
                                           {"W3", randomTensor({1, k, n}, rng)}, {"scale", scalar(0.125f)}};
        std::vector<Node> nodes{makeNode("MatMul", {"A", "W"}, {"m"})};
        std::string last = "m";
        if (bias) {
            nodes.push_back(makeNode("Add", biasFirst ? std::vector<std::string>{"bias", "m"}
                                                      : std::vector<std::string>{"m", "bias"}, {"b"}));
            last = "b";
        }
        nodes.push_back(makeNode(round % 3 == 0 ? "Relu" : "Identity", {last}, {"Y"}));
        const std::string tag = dimsLabel(a) + " @ " + dimsLabel({k, n});
        cases.push_back(makeCase(std::string("MatMul weight ") + (bias ? biasFirst ? "+ bias first " : "+ bias " : "") +
                                     tag, nodes, {{"A", a}}, {"Y"}, init, rng));
        // [1, K, N] weights, then a scalar Mul (attention scores scaled)
        cases.push_back(makeCase("MatMul [1,K,N] weight, scaled " + tag,
                                 {makeNode("MatMul", {"A", "W3"}, {"m"}), makeNode("Mul", {"m", "scale"}, {"Y"})},
                                 {{"A", a}}, {"Y"}, init, rng));
        // B a computed 2-D value every row of A meets, and B batched like A
        cases.push_back(makeCase("MatMul broadcast 2-D B " + tag, {makeNode("MatMul", {"A", "B"}, {"Y"})},
                                 {{"A", a}, {"B", {k, n}}}, {"Y"}, init, rng));
        Shape batched = a;
        batched[batched.size() - 2] = k;
        batched.back() = n;
        cases.push_back(makeCase("MatMul batched B + bias " + tag,
                                 {makeNode("MatMul", {"A", "B"}, {"m"}), makeNode("Add", {"m", "bias"}, {"Y"})},
                                 {{"A", a}, {"B", batched}}, {"Y"}, init, rng));
    }
    // The MatMul read twice: the bias Add stays an op of its own.
    const int64_t k = dim(rng), n = dim(rng);
    cases.push_back(makeCase("MatMul weight read twice",
                             {makeNode("MatMul", {"A", "W"}, {"m"}), makeNode("Add", {"m", "bias"}, {"b"}),
                              makeNode("Mul", {"b", "m"}, {"Y"})},
                             {{"A", {2, 5, k}}}, {"Y"},
                             {{"W", randomTensor({k, n}, rng)}, {"bias", randomTensor({n}, rng)}}, rng));
}

void addGeluCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> dim(1, 40);
    for (int form = 0; form < 4; ++form) {
        const int64_t k = dim(rng), n = dim(rng), t = dim(rng);
        std::map<std::string, Tensor> init = geluConstants();
        init.emplace("W", randomTensor({k, n}, rng, -2.f, 2.f));
        init.emplace("bias", randomTensor({n}, rng));
        const Shape a = form % 2 == 0 ? Shape{1, t, k} : Shape{3, t, k};
        // After a MatMul and its bias (an MLP's first layer): a post-op.
        std::vector<Node> mlp{makeNode("MatMul", {"A", "W"}, {"m"}), makeNode("Add", {"bias", "m"}, {"x"})};
        for (Node& g : geluNodes(form, "x", "Y", "g")) mlp.push_back(std::move(g));
        cases.push_back(makeCase(std::string("MatMul+bias+GELU ") + geluFormName(form) + " " + dimsLabel(a) + " n=" +
                                     std::to_string(n), mlp, {{"A", a}}, {"Y"}, init, rng));
        // On a graph input also read elsewhere: one eltwise pass.
        std::vector<Node> alone = geluNodes(form, "X", "g", "g");
        alone.push_back(makeNode("Add", {"g", "X"}, {"Y"}));
        cases.push_back(makeCase(std::string("GELU alone ") + geluFormName(form), alone, {{"X", {2, 3, t, 5}}}, {"Y"},
                                 init, rng));
        // A value inside read again, and another constant: separate ops (Erf or Tanh on their own).
        std::vector<Node> readAgain = mlp;
        readAgain.back().outputs[0] = "z";
        readAgain.push_back(makeNode("Add", {"z", "ga"}, {"Y"}));
        cases.push_back(makeCase(std::string("MatMul+bias, GELU read inside ") + geluFormName(form), readAgain,
                                 {{"A", a}}, {"Y"}, init, rng));
        init["sqrt2"] = scalar(1.5f);
        init["rsqrt2"] = scalar(0.6f);
        init["k"] = scalar(0.05f);
        cases.push_back(makeCase(std::string("MatMul+bias, not GELU ") + geluFormName(form), mlp, {{"A", a}}, {"Y"},
                                 init, rng));
    }
    cases.push_back(makeCase("Erf", {makeNode("Erf", {"X"}, {"Y"})}, {{"X", {3, 17, 5}}}, {"Y"}, {}, rng));
}

void addDecomposedLayerNormCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> dim(1, 40);
    for (int round = 0; round < 6; ++round) {
        const int64_t c = dim(rng) + 1, t = dim(rng);
        const bool twoAxes = round == 4, opset18 = round == 5, selfSquare = round == 2, affine = round != 3;
        const Shape x = round % 2 == 0 ? Shape{1, t, c} : Shape{2, 3, t, c};
        const Shape normalized = twoAxes ? Shape{x[x.size() - 2], c} : Shape{c};
        std::map<std::string, Tensor> init{{"two", scalar(2.f)}, {"eps", scalar(round == 1 ? 1e-6f : 1e-5f)},
                                           {"gamma", randomTensor(normalized, rng, 0.5f, 1.5f)},
                                           {"beta", randomTensor(normalized, rng)}};
        std::map<std::string, Attribute> reduce;
        std::vector<std::string> meanOf{"X"}, varOf{"sq"};
        const std::vector<int64_t> axes = twoAxes ? std::vector<int64_t>{-2, -1} : std::vector<int64_t>{-1};
        if (opset18) {  // axes became an input in opset 18
            init.emplace("axes", Tensor::fromVector<int64_t>({static_cast<int64_t>(axes.size())}, axes));
            meanOf.push_back("axes");
            varOf.push_back("axes");
        } else {
            reduce["axes"] = Attribute::ofInts(axes);
        }
        std::vector<Node> nodes{makeNode("ReduceMean", meanOf, {"mean"}, reduce), makeNode("Sub", {"X", "mean"}, {"d"}),
                                selfSquare ? makeNode("Mul", {"d", "d"}, {"sq"})
                                           : makeNode("Pow", {"d", "two"}, {"sq"}),
                                makeNode("ReduceMean", varOf, {"var"}, reduce),
                                makeNode("Add", {round == 1 ? "eps" : "var", round == 1 ? "var" : "eps"}, {"ve"}),
                                makeNode("Sqrt", {"ve"}, {"sd"}), makeNode("Div", {"d", "sd"}, {affine ? "n" : "Y"})};
        if (affine) {
            nodes.push_back(makeNode("Mul", {round == 1 ? "gamma" : "n", round == 1 ? "n" : "gamma"}, {"g"}));
            nodes.push_back(makeNode("Add", {"g", "beta"}, {"Y"}));
        }
        const std::string tag = " " + dimsLabel(x) + (twoAxes ? " two axes" : "") + (opset18 ? " opset 18" : "") +
                                (selfSquare ? " d*d" : "") + (affine ? "" : " no affine");
        cases.push_back(makeCase("LayerNorm decomposed" + tag, nodes, {{"X", x}}, {"Y"}, init, rng, opset18 ? 18 : 14));
        // The centered value read again: every op on its own.
        std::vector<Node> readAgain = nodes;
        readAgain.back().outputs[0] = "z";
        readAgain.push_back(makeNode("Add", {"z", "d"}, {"Y"}));
        cases.push_back(makeCase("LayerNorm decomposed, centered read again" + tag, readAgain, {{"X", x}}, {"Y"}, init,
                                 rng, opset18 ? 18 : 14));
    }
}

void addGatherWhereCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> dim(1, 24);
    for (int round = 0; round < 3; ++round) {
        const int64_t b = round + 1, t = dim(rng) + 2, c = dim(rng);
        const Shape x{b, t, c};
        // The class token: a scalar index on axis 1 after a LayerNorm-like op, then a vector of indices with a
        // negative one on every axis.
        std::map<std::string, Tensor> init{{"zero", Tensor::scalar<int64_t>(0)},
                                           {"some", Tensor::fromVector<int64_t>({3}, {0, -1, 0})},
                                           {"W", randomTensor({c, 5}, rng)}};
        cases.push_back(makeCase("Gather class token " + dimsLabel(x),
                                 {makeNode("Relu", {"X"}, {"r"}),
                                  makeNode("Gather", {"r", "zero"}, {"g"}, {{"axis", Attribute::ofInt(1)}}),
                                  makeNode("MatMul", {"g", "W"}, {"Y"})},
                                 {{"X", x}}, {"Y"}, init, rng));
        for (int64_t axis = -3; axis < 3; ++axis)
            cases.push_back(makeCase("Gather indices axis=" + std::to_string(axis) + " " + dimsLabel(x),
                                     {makeNode("Gather", {"X", "some"}, {"Y"}, {{"axis", Attribute::ofInt(axis)}})},
                                     {{"X", x}}, {"Y"}, init, rng));
        // A causal mask over attention scores, then Softmax; and a mask choosing between two values.
        std::vector<bool> lower;
        for (int64_t i = 0; i < t; ++i)
            for (int64_t j = 0; j < t; ++j) lower.push_back(j <= i);
        init.emplace("mask", Tensor::fromVector<bool>({1, 1, t, t}, lower));
        init.emplace("ninf", scalar(-std::numeric_limits<float>::infinity()));
        init.emplace("big", scalar(-1e4f));
        const Shape scores{b, 3, t, t};
        cases.push_back(makeCase("Where causal mask, Softmax " + dimsLabel(scores),
                                 {makeNode("Where", {"mask", "X", "ninf"}, {"w"}),
                                  makeNode("Softmax", {"w"}, {"Y"}, {{"axis", Attribute::ofInt(-1)}})},
                                 {{"X", scores}}, {"Y"}, init, rng));
        cases.push_back(makeCase("Where mask, scalar first " + dimsLabel(scores),
                                 {makeNode("Where", {"mask", "big", "X"}, {"Y"})}, {{"X", scores}}, {"Y"}, init, rng));
        cases.push_back(makeCase("Where mask, two values " + dimsLabel(scores),
                                 {makeNode("Where", {"mask", "X", "Z"}, {"Y"})}, {{"X", scores}, {"Z", scores}}, {"Y"},
                                 init, rng));
        // Transposes that move only dims of size 1 around a MatMul (ViT's [T,1,C] <-> [1,T,C]).
        init.emplace("Wc", randomTensor({c, c}, rng));
        cases.push_back(makeCase("Transpose of size-1 dims around a MatMul " + dimsLabel({1, t, c}),
                                 {makeNode("Transpose", {"X"}, {"t"}, {{"perm", Attribute::ofInts({1, 0, 2})}}),
                                  makeNode("MatMul", {"t", "Wc"}, {"m"}),
                                  makeNode("Transpose", {"m"}, {"Y"}, {{"perm", Attribute::ofInts({1, 0, 2})}})},
                                 {{"X", {1, t, c}}}, {"Y"}, init, rng));
    }
}

void addConv1dStridedSliceCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> channels(1, 24), length(5, 40);
    for (int round = 0; round < 3; ++round) {
        // Conv1d, kernel 3, stride 1 then 2 (whisper), with GELU after each; grouped and dilated variants.
        const int64_t c = channels(rng), o = channels(rng), l = length(rng), stride = 1 + round % 2;
        const Shape x{1 + round % 2, c, l};
        std::map<std::string, Tensor> init = geluConstants();
        init.emplace("W1", randomTensor({o, c, 3}, rng));
        init.emplace("B1", randomTensor({o}, rng));
        init.emplace("W2", randomTensor({o, o, 3}, rng));
        std::vector<Node> nodes = {makeNode("Conv", {"X", "W1", "B1"}, {"c1"}, {{"pads", Attribute::ofInts({1, 1})}})};
        for (const Node& n : geluNodes(0, "c1", "g1", "a")) nodes.push_back(n);
        nodes.push_back(makeNode("Conv", {"g1", "W2"}, {"Y"},
                                 {{"pads", Attribute::ofInts({1, 1})}, {"strides", Attribute::ofInts({stride})}}));
        cases.push_back(makeCase("Conv1d GELU Conv1d stride " + std::to_string(stride) + " " + dimsLabel(x), nodes,
                                 {{"X", x}}, {"Y"}, init, rng));
        const int64_t g = 1 + round;
        init.emplace("Wg", randomTensor({2 * g, 2, 5}, rng));
        cases.push_back(makeCase("Conv1d group " + std::to_string(g) + " dilation 2 " + dimsLabel({1, 2 * g, l + 8}),
                                 {makeNode("Conv", {"X", "Wg"}, {"Y"},
                                           {{"group", Attribute::ofInt(g)}, {"dilations", Attribute::ofInts({2})},
                                            {"pads", Attribute::ofInts({4, 0})}})},
                                 {{"X", {1, 2 * g, l + 8}}}, {"Y"}, init, rng));
        // Patch merging: four Slices of every other row and column of [B, H, W, C], concatenated on C.
        const int64_t h = 2 * (1 + round), w = 2 * (2 + round), ch = channels(rng);
        init.emplace("axes", Tensor::fromVector<int64_t>({2}, {1, 2}));
        init.emplace("two", Tensor::fromVector<int64_t>({2}, {2, 2}));
        init.emplace("end", Tensor::fromVector<int64_t>({2}, {h, w}));
        std::vector<Node> merge;
        std::vector<std::string> parts;
        for (int k = 0; k < 4; ++k) {
            const std::string start = "s" + std::to_string(k), part = "p" + std::to_string(k);
            init.emplace(start, Tensor::fromVector<int64_t>({2}, {k % 2, k / 2}));
            merge.push_back(makeNode("Slice", {"X", start, "end", "axes", "two"}, {part}));
            parts.push_back(part);
        }
        merge.push_back(makeNode("Concat", parts, {"Y"}, {{"axis", Attribute::ofInt(-1)}}));
        cases.push_back(makeCase("Slice steps 2 patch merging " + dimsLabel({1, h, w, ch}), merge, {{"X", {1, h, w, ch}}},
                                 {"Y"}, init, rng));
        // A step of 3 on one axis past the end, and after a Relu (a value made inside the segment).
        init.emplace("from1", Tensor::fromVector<int64_t>({1}, {1}));
        init.emplace("e3", Tensor::fromVector<int64_t>({1}, {1000}));
        init.emplace("a3", Tensor::fromVector<int64_t>({1}, {-1}));
        init.emplace("st3", Tensor::fromVector<int64_t>({1}, {3}));
        cases.push_back(makeCase("Slice step 3 last axis after Relu " + dimsLabel({2, h, w + 3}),
                                 {makeNode("Relu", {"X"}, {"r"}),
                                  makeNode("Slice", {"r", "from1", "e3", "a3", "st3"}, {"Y"})},
                                 {{"X", {2, h, w + 3}}}, {"Y"}, init, rng));
    }
}

void addMiddleBroadcastCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> dim(1, 9);
    const char* ops[] = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
    for (int round = 0; round < 3; ++round) {
        // Swin's shifted-window mask: [1, windows, heads, T, T] + [1, windows, 1, T, T], a value or a constant.
        const int64_t windows = dim(rng) + 1, heads = dim(rng) + 1, t = dim(rng) + 3;
        const Shape y{1, windows, heads, t, t}, b{1, windows, 1, t, t};
        std::map<std::string, Tensor> init{{"M", randomTensor(b, rng, 0.5f, 1.5f)}};
        for (const char* op : ops) {
            cases.push_back(makeCase(std::string(op) + " middle broadcast " + dimsLabel(y) + " by " + dimsLabel(b),
                                     {makeNode(op, {"X", "Z"}, {"Y"})}, {{"X", y}, {"Z", b}}, {"Y"}, {}, rng));
            cases.push_back(makeCase(std::string(op) + " middle broadcast constant " + dimsLabel(y),
                                     {makeNode(op, {"X", "M"}, {"Y"})}, {{"X", y}}, {"Y"}, init, rng));
        }
        // One value per row over the last axes ([B, C, 1, 1] into [B, C, H, W] after a lower rank), and a b of rank 3.
        const Shape z{2, heads, 1, t};
        cases.push_back(makeCase("Mul rows broadcast " + dimsLabel({2, heads, windows, t}) + " by " + dimsLabel(z),
                                 {makeNode("Mul", {"X", "Z"}, {"Y"})}, {{"X", {2, heads, windows, t}}, {"Z", z}},
                                 {"Y"}, {}, rng));
        cases.push_back(makeCase("Add rank-3 b " + dimsLabel({2, heads, windows, t}) + " by " + dimsLabel({heads, 1, 1}),
                                 {makeNode("Add", {"X", "Z"}, {"Y"})},
                                 {{"X", {2, heads, windows, t}}, {"Z", {heads, 1, 1}}}, {"Y"}, {}, rng));
    }
}

namespace {

/// Makes graph input `name` of `c` integer (`type`, I64 or I32) with values in [0, below).
void integerInput(Case& c, const std::string& name, DType type, int64_t below, std::mt19937& rng) {
    for (auto& vi : c.model->graph.inputs)
        if (vi.name == name) vi.type.dtype = type;
    const Shape shape = c.inputs.at(name).shape();
    std::uniform_int_distribution<int64_t> value(0, below - 1);
    Tensor t(type, shape);
    for (int64_t i = 0; i < t.numel(); ++i) {
        if (type == DType::I64) t.values<int64_t>()[size_t(i)] = value(rng);
        else t.values<int32_t>()[size_t(i)] = static_cast<int32_t>(value(rng));
    }
    c.inputs[name] = std::move(t);
}

}  // namespace

void addTokenInputCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> dim(2, 20);
    for (int round = 0; round < 3; ++round) {
        const int64_t b = 1 + round % 2, t = dim(rng), vocab = 50 + dim(rng), d = dim(rng);
        const DType idType = round == 1 ? DType::I32 : DType::I64;
        // Word and position embeddings (BERT, GPT-2): Gather of the ids from a table, plus a second table.
        std::map<std::string, Tensor> init{{"words", randomTensor({vocab, d}, rng)},
                                           {"types", randomTensor({2, d}, rng)}};
        Case words = makeCase("embedding Gather " + std::string(dtypeName(idType)) + " ids " + dimsLabel({b, t}),
                              {makeNode("Gather", {"words", "ids"}, {"w"}),
                               makeNode("Gather", {"types", "kinds"}, {"k"}), makeNode("Add", {"w", "k"}, {"Y"})},
                              {{"ids", {b, t}}, {"kinds", {b, t}}}, {"Y"}, init, rng);
        integerInput(words, "ids", idType, vocab, rng);
        integerInput(words, "kinds", idType, 2, rng);
        cases.push_back(std::move(words));
        // The attention mask: int ids of 0/1 -> Unsqueeze -> Unsqueeze -> Cast -> (1 - m) * -10000 -> + scores.
        std::map<std::string, Tensor> mask{{"one", scalar(1.f)},
                                           {"big", scalar(-10000.f)},
                                           {"a1", Tensor::fromVector<int64_t>({1}, {1})},
                                           {"a2", Tensor::fromVector<int64_t>({1}, {2})}};
        Case masked = makeCase("attention mask from " + std::string(dtypeName(idType)) + " " + dimsLabel({b, t}),
                               {makeNode("Unsqueeze", {"mask", "a1"}, {"u1"}),
                                makeNode("Unsqueeze", {"u1", "a2"}, {"u2"}),
                                makeNode("Cast", {"u2"}, {"m"}, {{"to", Attribute::ofInt(1)}}),
                                makeNode("Sub", {"one", "m"}, {"inv"}), makeNode("Mul", {"inv", "big"}, {"bias"}),
                                makeNode("Add", {"scores", "bias"}, {"s"}),
                                makeNode("Softmax", {"s"}, {"Y"}, {{"axis", Attribute::ofInt(-1)}})},
                               {{"mask", {b, t}}, {"scores", {b, 2, t, t}}}, {"Y"}, mask, rng);
        integerInput(masked, "mask", idType, 2, rng);
        cases.push_back(std::move(masked));
    }
}

void addHalfRoundTripCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> dim(2, 40);
    for (int round = 0; round < 3; ++round) {
        const int64_t t = dim(rng), d = dim(rng);
        // The quantizer's fp16 marks: Cast(fp16) -> Cast(float) before a kept op (LayerNorm, Softmax); values
        // near the top of fp16's range and below its normal range on the way.
        std::map<std::string, Tensor> init{{"gamma", randomTensor({d}, rng)}, {"beta", randomTensor({d}, rng)},
                                           {"huge", scalar(round == 0 ? 60000.f : 1e-6f)}};
        cases.push_back(makeCase("fp16 round trip before LayerNorm " + dimsLabel({1, t, d}),
                                 {makeNode("Cast", {"X"}, {"h"}, {{"to", Attribute::ofInt(10)}}),
                                  makeNode("Cast", {"h"}, {"f"}, {{"to", Attribute::ofInt(1)}}),
                                  makeNode("LayerNormalization", {"f", "gamma", "beta"}, {"Y"},
                                           {{"axis", Attribute::ofInt(-1)}})},
                                 {{"X", {1, t, d}}}, {"Y"}, init, rng));
        cases.push_back(makeCase("fp16 round trip of scaled values, then Softmax " + dimsLabel({2, t, d}),
                                 {makeNode("Mul", {"X", "huge"}, {"s"}),
                                  makeNode("Cast", {"s"}, {"h"}, {{"to", Attribute::ofInt(10)}}),
                                  makeNode("Cast", {"h"}, {"f"}, {{"to", Attribute::ofInt(1)}}),
                                  makeNode("Add", {"f", "X"}, {"a"}),
                                  makeNode("Softmax", {"a"}, {"Y"}, {{"axis", Attribute::ofInt(-1)}})},
                                 {{"X", {2, t, d}}}, {"Y"}, init, rng));
    }
}

void addScaledScoreCases(std::vector<Case>& cases, std::mt19937& rng) {
    std::uniform_int_distribution<int64_t> dim(2, 30);
    for (int round = 0; round < 3; ++round) {
        const int64_t heads = 1 + round, t = dim(rng), d = dim(rng);
        // Attention scores: Q [1,h,t,d] x K^T [1,h,d,t], divided by sqrt(d), then Softmax (whisper, BERT).
        std::map<std::string, Tensor> init{{"scale", scalar(std::sqrt(float(d)))}, {"W", randomTensor({d, 7}, rng)}};
        cases.push_back(makeCase("scores Div " + dimsLabel({1, heads, t, t}),
                                 {makeNode("MatMul", {"Q", "K"}, {"s"}), makeNode("Div", {"s", "scale"}, {"sd"}),
                                  makeNode("Softmax", {"sd"}, {"Y"}, {{"axis", Attribute::ofInt(-1)}})},
                                 {{"Q", {1, heads, t, d}}, {"K", {1, heads, d, t}}}, {"Y"}, init, rng));
        // A weight MatMul then Div then Relu: the division comes before the activation.
        cases.push_back(makeCase("MatMul weight Div Relu " + dimsLabel({2, t, d}),
                                 {makeNode("MatMul", {"X", "W"}, {"m"}), makeNode("Div", {"m", "scale"}, {"md"}),
                                  makeNode("Relu", {"md"}, {"Y"})},
                                 {{"X", {2, t, d}}}, {"Y"}, init, rng));
    }
}

}  // namespace npuwb::difftest
