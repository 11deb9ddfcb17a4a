// What transformer exports ask of a backend: MatMul with a 2-D weight (one GEMM over the rows of a 3-D or 4-D A) with
// its bias Add and activations, and where the bias must stay an op of its own. Seeded random shapes.
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

}  // namespace npuwb::difftest
