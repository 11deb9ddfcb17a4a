// cpu-xnnpack against the reference executor on seeded random graphs: every claimed op, odd channel counts
// (1, 3, 7, 17, 33), strides 1-2, asymmetric pads, dilations, groups, and the compile-time fusions.
// Tolerance: |xnnpack - reference| <= 1e-4 * max(|reference|, 1) per element.
#include <gtest/gtest.h>

#include "xnnpack_harness.h"

using namespace npuwb;
using namespace npuwb::test;

namespace {

constexpr double kTolerance = 1e-4;
const std::vector<int64_t> kChannels = {1, 3, 7, 17, 33};

template <class T> T pick(std::mt19937& rng, const std::vector<T>& options) {
    return options[std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng)];
}
int64_t between(std::mt19937& rng, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }

/// Compiles and compares; expects the whole graph on the backend in one segment unless told otherwise.
void expectMatches(const GraphBuilder& b, size_t expectedSegments = 1) {
    auto backend = xnnpackBackend(2);
    const DiffResult r = runDifferential(*b.model(), b.inputs(), *backend);
    EXPECT_TRUE(r.fallbacks.empty()) << r.fallbackText();
    EXPECT_EQ(r.segments, expectedSegments);
    EXPECT_LE(r.worstError, kTolerance) << r.worstWhere;
}

/// Appends BatchNormalization / Relu / Clip after `x` as chosen by `variant` (0..4).
std::string addEpilogue(GraphBuilder& b, std::mt19937& rng, std::string x, int64_t channels, int variant) {
    if (variant == 1 || variant == 3) {
        auto param = [&](float lo, float hi) { return b.constant(randomTensor(rng, {channels}, lo, hi)); };
        const std::string scale = param(0.5f, 1.5f), shift = param(-0.5f, 0.5f), mean = param(-0.3f, 0.3f);
        const std::string var = param(0.2f, 2.0f);
        x = b.node("BatchNormalization", {x, scale, shift, mean, var}, {{"epsilon", Attribute::ofFloat(1e-3f)}});
    }
    if (variant == 2 || variant == 3) x = b.node("Relu", {x});
    if (variant == 4) {
        x = b.node("Clip", {x, b.constant(Tensor::scalar(0.0f)), b.constant(Tensor::scalar(0.6f))});
    }
    return x;
}

class XnnConv : public testing::TestWithParam<int> {};
TEST_P(XnnConv, MatchesReference) {
    std::mt19937 rng(1000 + GetParam());
    GraphBuilder b;
    const int64_t n = between(rng, 1, 2), c = pick(rng, kChannels);
    int64_t groups = 1, m = pick(rng, kChannels);
    switch (between(rng, 0, 2)) {
        case 1: groups = c, m = c * between(rng, 1, 2); break;  // depthwise (with multiplier)
        case 2:
            for (int64_t g : {3, 7, 11}) if (c % g == 0 && c > g) groups = g;  // grouped: 33 = 3*11, ...
            if (c == 3 || c == 7 || c == 17) groups = c;
            m = groups * between(rng, 1, 3);
            break;
        default: break;
    }
    const int64_t kh = pick<int64_t>(rng, {1, 2, 3, 5}), kw = pick<int64_t>(rng, {1, 2, 3, 5});
    const int64_t sh = between(rng, 1, 2), sw = between(rng, 1, 2), dh = between(rng, 1, 2), dw = between(rng, 1, 2);
    const int64_t h = between(rng, (kh - 1) * dh + 1, 19), w = between(rng, (kw - 1) * dw + 1, 19);
    std::map<std::string, Attribute> attrs = {{"group", Attribute::ofInt(groups)},
                                              {"strides", Attribute::ofInts({sh, sw})},
                                              {"dilations", Attribute::ofInts({dh, dw})}};
    const int64_t padMode = between(rng, 0, 5);
    if (padMode == 4) attrs["auto_pad"] = Attribute::ofString(pick<std::string>(rng, {"SAME_UPPER", "SAME_LOWER", "VALID"}));
    if (padMode < 4) attrs["pads"] = Attribute::ofInts({between(rng, 0, 2), between(rng, 0, 2), between(rng, 0, 2), between(rng, 0, 2)});
    const std::string x = b.input(rng, {n, c, h, w});
    std::vector<std::string> ins = {x, b.constant(randomTensor(rng, {m, c / groups, kh, kw}))};
    if (between(rng, 0, 1)) ins.push_back(b.constant(randomTensor(rng, {m})));
    const std::string y = b.node("Conv", ins, attrs);
    b.output(addEpilogue(b, rng, y, m, static_cast<int>(between(rng, 0, 4))));
    SCOPED_TRACE("C=" + std::to_string(c) + " M=" + std::to_string(m) + " g=" + std::to_string(groups));
    expectMatches(b);
}
INSTANTIATE_TEST_SUITE_P(Seeded, XnnConv, testing::Range(0, 150));

class XnnPool : public testing::TestWithParam<int> {};
TEST_P(XnnPool, MatchesReference) {
    std::mt19937 rng(2000 + GetParam());
    GraphBuilder b;
    const int64_t c = pick(rng, kChannels);
    const std::string op = pick<std::string>(rng, {"MaxPool", "AveragePool", "GlobalAveragePool"});
    // XNNPACK limits (the backend declines these, see XnnNetwork tests): no 1x1 windows, no dilation with padding.
    const int64_t kh = between(rng, 1, 3), kw = kh == 1 ? between(rng, 2, 3) : between(rng, 1, 3);
    const int64_t sh = between(rng, 1, 2), sw = between(rng, 1, 2);
    const int64_t dh = op == "MaxPool" ? between(rng, 1, 2) : 1, dw = op == "MaxPool" ? between(rng, 1, 2) : 1;
    const int64_t h = between(rng, (kh - 1) * dh + 1, 17), w = between(rng, (kw - 1) * dw + 1, 17);
    const std::string x = b.input(rng, {between(rng, 1, 2), c, h, w});
    std::map<std::string, Attribute> attrs;
    if (op != "GlobalAveragePool") {
        attrs = {{"kernel_shape", Attribute::ofInts({kh, kw})}, {"strides", Attribute::ofInts({sh, sw})}};
        if (op == "MaxPool") {
            attrs["dilations"] = Attribute::ofInts({dh, dw});
            attrs["ceil_mode"] = Attribute::ofInt(dh == 1 && dw == 1 ? between(rng, 0, 1) : 0);
        }
        const bool dilated = dh > 1 || dw > 1;
        const int64_t maxPadH = dilated ? 0 : kh - 1, maxPadW = dilated ? 0 : kw - 1;
        attrs["pads"] = Attribute::ofInts({between(rng, 0, maxPadH), between(rng, 0, maxPadW), between(rng, 0, maxPadH),
                                  between(rng, 0, maxPadW)});
    }
    b.output(addEpilogue(b, rng, b.node(op, {x}, attrs), c, between(rng, 0, 1) ? 2 : 0));
    SCOPED_TRACE(op + " C=" + std::to_string(c) + " HxW=" + std::to_string(h) + "x" + std::to_string(w) + " k=" +
                 std::to_string(kh) + "x" + std::to_string(kw) + " s=" + std::to_string(sh) + "," + std::to_string(sw) +
                 " d=" + std::to_string(dh) + "," + std::to_string(dw) +
                 (attrs.count("ceil_mode") ? " ceil=" + std::to_string(attrs["ceil_mode"].i) : std::string()) +
                 (attrs.count("pads") ? " pads=" + shapeToString(attrs["pads"].ints) : std::string()));
    expectMatches(b);
}
INSTANTIATE_TEST_SUITE_P(Seeded, XnnPool, testing::Range(0, 90));

class XnnGemm : public testing::TestWithParam<int> {};
TEST_P(XnnGemm, MatchesReference) {
    std::mt19937 rng(3000 + GetParam());
    GraphBuilder b;
    const int64_t m = pick<int64_t>(rng, {1, 3, 7}), k = pick(rng, kChannels), n = pick(rng, kChannels);
    const std::string a = b.input(rng, {m, k});
    std::string y;
    if (GetParam() % 3 == 2) {  // MatMul, also with a rank-3 left-hand side
        const std::string lhs = between(rng, 0, 1) ? a : b.input(rng, {2, m, k});
        y = b.node("MatMul", {lhs, b.constant(randomTensor(rng, {k, n}))});
    } else {
        const bool transB = between(rng, 0, 1) != 0;
        std::vector<std::string> ins = {a, b.constant(randomTensor(rng, transB ? Shape{n, k} : Shape{k, n}))};
        const Shape biasShape = pick<Shape>(rng, {{}, {n}, {1, n}, {1}});
        if (GetParam() % 4 != 0) ins.push_back(b.constant(randomTensor(rng, biasShape)));
        y = b.node("Gemm", ins, {{"transB", Attribute::ofInt(transB)}, {"alpha", Attribute::ofFloat(0.75f)}, {"beta", Attribute::ofFloat(1.5f)}});
    }
    b.output(addEpilogue(b, rng, y, n, between(rng, 0, 1) ? 2 : 0));
    expectMatches(b);
}
INSTANTIATE_TEST_SUITE_P(Seeded, XnnGemm, testing::Range(0, 45));

class XnnBinary : public testing::TestWithParam<int> {};
TEST_P(XnnBinary, MatchesReference) {
    std::mt19937 rng(4000 + GetParam());
    GraphBuilder b;
    const std::string op = pick<std::string>(rng, {"Add", "Sub", "Mul", "Div"});
    const Shape full = {between(rng, 1, 2), pick(rng, kChannels), between(rng, 1, 9), between(rng, 1, 9)};
    const std::string x = b.input(rng, full);
    std::string other;
    const float lo = op == "Div" ? 0.5f : -1.0f, hi = op == "Div" ? 1.5f : 1.0f;
    switch (GetParam() % 4) {
        case 0: {  // runtime rank-4 operand, randomly broadcast along any dims
            Shape s = full;
            for (int64_t& d : s) if (between(rng, 0, 2) == 0) d = 1;
            other = b.input(rng, s, lo, hi);
            break;
        }
        case 1: other = b.constant(randomTensor(rng, {full[1], 1, 1}, lo, hi)); break;  // per-channel constant
        case 2: other = b.constant(randomTensor(rng, pick<Shape>(rng, {{1}, {full[3]}, {full[2], full[3]}}), lo, hi)); break;
        default: {  // rank-2 / rank-3 row-major tensors
            const Shape s = {full[1], full[2] * full[3]};
            const std::string r = b.input(rng, s);
            b.output(b.node(op, {r, b.input(rng, {1, s[1]}, lo, hi)}));
            expectMatches(b);
            return;
        }
    }
    const bool swap = op != "Div" && between(rng, 0, 1);
    b.output(addEpilogue(b, rng, b.node(op, swap ? std::vector{other, x} : std::vector{x, other}), 0,
                         between(rng, 0, 1) ? 2 : 0));
    expectMatches(b);
}
INSTANTIATE_TEST_SUITE_P(Seeded, XnnBinary, testing::Range(0, 60));

class XnnUnary : public testing::TestWithParam<int> {};
TEST_P(XnnUnary, MatchesReference) {
    std::mt19937 rng(5000 + GetParam());
    const std::string op = pick<std::string>(rng, {"Relu", "Clip", "Sigmoid", "HardSwish", "LeakyRelu"});
    const bool oldClip = op == "Clip" && between(rng, 0, 1);
    GraphBuilder b(oldClip ? 6 : 17);
    const Shape s = between(rng, 0, 1) ? Shape{1, pick(rng, kChannels), between(rng, 1, 9), between(rng, 1, 9)}
                                       : Shape{between(rng, 1, 5), pick(rng, kChannels)};
    const std::string x = b.input(rng, s, -4.0f, 4.0f);
    std::string y;
    if (op == "Clip" && oldClip) {
        y = b.node("Clip", {x}, {{"min", Attribute::ofFloat(-0.5f)}, {"max", Attribute::ofFloat(1.25f)}});
    } else if (op == "Clip") {
        y = b.node("Clip", {x, b.constant(Tensor::scalar(-1.5f)), ""});
    } else if (op == "LeakyRelu") {
        y = b.node(op, {x}, {{"alpha", Attribute::ofFloat(0.2f)}});
    } else {
        y = b.node(op, {x});
    }
    b.output(y);
    expectMatches(b);
}
INSTANTIATE_TEST_SUITE_P(Seeded, XnnUnary, testing::Range(0, 40));

class XnnSoftmax : public testing::TestWithParam<int> {};
TEST_P(XnnSoftmax, MatchesReference) {
    std::mt19937 rng(6000 + GetParam());
    const bool opset13 = GetParam() % 2 == 0;
    GraphBuilder b(opset13 ? 13 : 11);
    const int64_t rank = between(rng, 2, 4);
    Shape s;
    for (int64_t i = 0; i < rank; ++i) s.push_back(i == 1 ? pick(rng, kChannels) : between(rng, 1, 6));
    // Axes the backend claims: innermost physical axis (opset 13) or a contiguous flattened tail (opset 11).
    int64_t axis = rank - 1;
    if (rank == 4) axis = opset13 ? 1 : between(rng, 0, 1);
    else if (!opset13) axis = between(rng, 0, rank - 1);
    b.output(b.node("Softmax", {b.input(rng, s, -3.0f, 3.0f)}, {{"axis", Attribute::ofInt(axis)}}));
    expectMatches(b);
}
INSTANTIATE_TEST_SUITE_P(Seeded, XnnSoftmax, testing::Range(0, 30));

class XnnConcat : public testing::TestWithParam<int> {};
TEST_P(XnnConcat, MatchesReference) {
    std::mt19937 rng(7000 + GetParam());
    GraphBuilder b;
    const int64_t rank = GetParam() % 5 == 4 ? 2 : 4;
    Shape s = rank == 4 ? Shape{between(rng, 1, 2), pick(rng, kChannels), between(rng, 1, 7), between(rng, 1, 7)}
                        : Shape{between(rng, 1, 4), pick(rng, kChannels)};
    const int64_t axis = rank == 4 ? pick<int64_t>(rng, {1, 1, 0, 2, 3, -3}) : 1;
    std::vector<std::string> ins;
    for (int64_t i = 0, count = between(rng, 2, 4); i < count; ++i) {
        Shape si = s;
        si[static_cast<size_t>(axis < 0 ? axis + rank : axis)] = axis == 1 || axis == -3 ? pick(rng, kChannels) : between(rng, 1, 5);
        ins.push_back(b.input(rng, si));
    }
    b.output(b.node("Concat", ins, {{"axis", Attribute::ofInt(axis)}}));
    expectMatches(b);
}
INSTANTIATE_TEST_SUITE_P(Seeded, XnnConcat, testing::Range(0, 30));

}  // namespace
