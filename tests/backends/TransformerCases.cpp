// What transformer exports ask of a backend: MatMul with a 2-D weight (one GEMM over the rows of a 3-D or 4-D A) with
// its bias Add and activations, GELU as exporters write it (erf form in several orders, GPT-2's tanh form), Erf on
// its own, and LayerNorm in its opset < 17 form (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add); with
// the variants that must not fuse (a value of the pattern read elsewhere, another constant); Gather with constant
// indices (ViT's class token), Where with a constant mask (GPT-2's causal mask), Transposes of size-1 dims. Seeded
// random shapes.
#include <cmath>
#include <limits>

#include "DifferentialHarness.h"

namespace npuwb::difftest {

namespace {

std::string str(const Shape& s) {
    std::string out;
    for (int64_t d : s) {
        if (!out.empty()) out += 'x';
        out += std::to_string(d);
    }
    return out;
}

Tensor scalar(float v) { return Tensor::scalar<float>(v); }

/// GELU of `x` into `y` as nodes, in one of the orders exporters write. Names get `p` as a prefix.
std::vector<Node> gelu(int form, const std::string& x, const std::string& y, const std::string& p) {
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

const char* formName(int form) {
    static const char* names[] = {"erf torch order", "erf half first", "tanh Pow 3", "tanh x*x*x"};
    return names[form];
}

}  // namespace

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
        const std::string tag = str(a) + " @ " + str({k, n});
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
        for (Node& g : gelu(form, "x", "Y", "g")) mlp.push_back(std::move(g));
        cases.push_back(makeCase(std::string("MatMul+bias+GELU ") + formName(form) + " " + str(a) + " n=" +
                                     std::to_string(n), mlp, {{"A", a}}, {"Y"}, init, rng));
        // On a graph input also read elsewhere: one eltwise pass.
        std::vector<Node> alone = gelu(form, "X", "g", "g");
        alone.push_back(makeNode("Add", {"g", "X"}, {"Y"}));
        cases.push_back(makeCase(std::string("GELU alone ") + formName(form), alone, {{"X", {2, 3, t, 5}}}, {"Y"},
                                 init, rng));
        // A value inside read again, and another constant: separate ops (Erf or Tanh on their own).
        std::vector<Node> readAgain = mlp;
        readAgain.back().outputs[0] = "z";
        readAgain.push_back(makeNode("Add", {"z", "ga"}, {"Y"}));
        cases.push_back(makeCase(std::string("MatMul+bias, GELU read inside ") + formName(form), readAgain,
                                 {{"A", a}}, {"Y"}, init, rng));
        init["sqrt2"] = scalar(1.5f);
        init["rsqrt2"] = scalar(0.6f);
        init["k"] = scalar(0.05f);
        cases.push_back(makeCase(std::string("MatMul+bias, not GELU ") + formName(form), mlp, {{"A", a}}, {"Y"},
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
        const std::string tag = " " + str(x) + (twoAxes ? " two axes" : "") + (opset18 ? " opset 18" : "") +
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
        cases.push_back(makeCase("Gather class token " + str(x),
                                 {makeNode("Relu", {"X"}, {"r"}),
                                  makeNode("Gather", {"r", "zero"}, {"g"}, {{"axis", Attribute::ofInt(1)}}),
                                  makeNode("MatMul", {"g", "W"}, {"Y"})},
                                 {{"X", x}}, {"Y"}, init, rng));
        for (int64_t axis = -3; axis < 3; ++axis)
            cases.push_back(makeCase("Gather indices axis=" + std::to_string(axis) + " " + str(x),
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
        cases.push_back(makeCase("Where causal mask, Softmax " + str(scores),
                                 {makeNode("Where", {"mask", "X", "ninf"}, {"w"}),
                                  makeNode("Softmax", {"w"}, {"Y"}, {{"axis", Attribute::ofInt(-1)}})},
                                 {{"X", scores}}, {"Y"}, init, rng));
        cases.push_back(makeCase("Where mask, scalar first " + str(scores),
                                 {makeNode("Where", {"mask", "big", "X"}, {"Y"})}, {{"X", scores}}, {"Y"}, init, rng));
        cases.push_back(makeCase("Where mask, two values " + str(scores),
                                 {makeNode("Where", {"mask", "X", "Z"}, {"Y"})}, {{"X", scores}, {"Z", scores}}, {"Y"},
                                 init, rng));
        // Transposes that move only dims of size 1 around a MatMul (ViT's [T,1,C] <-> [1,T,C]).
        init.emplace("Wc", randomTensor({c, c}, rng));
        cases.push_back(makeCase("Transpose of size-1 dims around a MatMul " + str({1, t, c}),
                                 {makeNode("Transpose", {"X"}, {"t"}, {{"perm", Attribute::ofInts({1, 0, 2})}}),
                                  makeNode("MatMul", {"t", "Wc"}, {"m"}),
                                  makeNode("Transpose", {"m"}, {"Y"}, {{"perm", Attribute::ofInts({1, 0, 2})}})},
                                 {{"X", {1, t, c}}}, {"Y"}, init, rng));
    }
}

}  // namespace npuwb::difftest
