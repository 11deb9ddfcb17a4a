// fold_pad (explicit constant Pad into the Conv/pool padding), proven by the optimizer, and the Session's exact
// rewrites before execution: the same bits as the model as given.
#include <cmath>
#include <cstring>
#include <limits>

#include "PassTestUtil.h"
#include "npuwb/Session.h"

using namespace npuwb;
using namespace npuwb::passes;
using namespace npuwb::passes::testing;

namespace {

/// x[1,4,9,9] -> Pad(pads, value) -> OP -> y; OP is a stride-2 depthwise Conv (TensorFlow's 'SAME' pattern) or a
/// 3x3 stride-2 pool.
ModelBuilder padThen(const std::string& op, std::vector<int64_t> pads, float value = 0.0f) {
    ModelBuilder b;
    b.input("x", {1, 4, 9, 9}).output("y").ints("pads", pads);
    b.constant("v", Tensor::scalar<float>(value));
    b.node("Pad", {"x", "pads", "v"}, {"p"});
    Node* n = nullptr;
    if (op == "Conv") {
        b.random("w", {4, 1, 3, 3}).random("bias", {4}, 7);
        n = &b.node("Conv", {"p", "w", "bias"}, {"y"});
        n->attributes["group"] = Attribute::ofInt(4);
    } else {
        n = &b.node(op, {"p"}, {"y"});
        n->attributes["kernel_shape"] = Attribute::ofInts({3, 3});
    }
    n->attributes["strides"] = Attribute::ofInts({2, 2});
    return b;
}

Tensor randomInput(Shape shape, uint64_t seed) {
    Tensor t(DType::F32, std::move(shape));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    for (auto& v : t.values<float>()) v = u(rng);
    return t;
}

/// Runs the model with and without the Session's rewrites; they must agree bit for bit.
std::vector<ExecutionRewrite> expectSameBits(const Model& m) {
    auto shared = std::make_shared<const Model>(m);
    std::map<std::string, Tensor> in;
    for (const auto& i : m.graph.inputs) {
        Shape s;
        for (const auto& d : *i.type.shape) s.push_back(d.value);
        in[i.name] = randomInput(s, 11);
    }
    SessionOptions asGiven;
    asGiven.executor.backend = kReferenceBackend;  // bits compared: the same kernels on both sides
    asGiven.exactRewrites = false;
    const auto want = Session(shared, asGiven).runTensors(in);
    SessionOptions rewritten;
    rewritten.executor.backend = kReferenceBackend;
    Session session(shared, rewritten);
    const auto got = session.runTensors(in);
    for (const auto& [name, t] : want) {
        EXPECT_EQ(got.at(name).shape(), t.shape()) << name;
        if (got.at(name).shape() != t.shape()) continue;
        const auto a = t.toFloatVector(), b = got.at(name).toFloatVector();
        size_t differing = 0;
        for (size_t i = 0; i < a.size(); ++i) differing += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
        EXPECT_EQ(differing, 0u) << name << ": elements whose bits differ";
    }
    return session.executionRewrites();
}

int countOp(const Model& m, const std::string& op) {
    int n = 0;
    for (const auto& node : m.graph.nodes) n += node.opType == op;
    return n;
}

}  // namespace

TEST(FoldPad, TensorFlowSamePaddingBeforeStrideTwoDepthwiseConv) {
    auto r = runPasses(padThen("Conv", {0, 0, 0, 0, 0, 0, 1, 1}).build(), {"fold_pad"});
    expectProven(r, "fold_pad");
    EXPECT_EQ(count(r, "Pad"), 0);
    for (const auto& n : r.model.graph.nodes)
        if (n.opType == "Conv") {
            EXPECT_EQ(n.attrInts("pads"), (std::vector<int64_t>{0, 0, 1, 1}));
        }
}

TEST(FoldPad, AveragePoolCountsTheFoldedZeros) {
    auto r = runPasses(padThen("AveragePool", {0, 0, 1, 1, 0, 0, 1, 1}).build(), {"fold_pad"});
    expectProven(r, "fold_pad");
    for (const auto& n : r.model.graph.nodes)
        if (n.opType == "AveragePool") {
            EXPECT_EQ(n.attrInt("count_include_pad", 0), 1);
        }
}

TEST(FoldPad, MaxPoolOnlyWithMinusInfinity) {
    auto r = runPasses(padThen("MaxPool", {0, 0, 1, 1, 0, 0, 1, 1}, -std::numeric_limits<float>::infinity()).build(),
                       {"fold_pad"});
    expectProven(r, "fold_pad");
    auto zero = runPasses(padThen("MaxPool", {0, 0, 1, 1, 0, 0, 1, 1}, 0.0f).build(), {"fold_pad"});
    expectNearMiss(zero, "fold_pad", "-inf");
}

TEST(FoldPad, NearMisses) {
    // A pool: a padded channel axis would no longer fit the depthwise Conv's weights.
    expectNearMiss(runPasses(padThen("AveragePool", {0, 1, 0, 0, 0, 0, 1, 1}).build(), {"fold_pad"}), "fold_pad",
                   "channel");
    expectNearMiss(runPasses(padThen("Conv", {0, 0, 0, 0, 0, 0, 1, 1}, 0.5f).build(), {"fold_pad"}), "fold_pad",
                   "fill is not 0");
    expectNearMiss(runPasses(padThen("Conv", {0, 0, -1, 0, 0, 0, 1, 1}).build(), {"fold_pad"}), "fold_pad", "crops");
}

TEST(ExecutionRewrites, PadFoldedBeforeRunningWithTheSameBits) {
    const Model m = padThen("Conv", {0, 0, 0, 0, 0, 0, 1, 1}).build();
    auto applied = expectSameBits(m);
    ASSERT_EQ(applied.size(), 1u);
    EXPECT_EQ(applied[0].pass, "fold_pad");
    Session session(std::make_shared<const Model>(m));
    EXPECT_EQ(countOp(session.model(), "Pad"), 0);
    SessionOptions off;
    off.exactRewrites = false;
    EXPECT_EQ(countOp(Session(std::make_shared<const Model>(m), off).model(), "Pad"), 1);
}

TEST(ExecutionRewrites, TransposePairsCancelAndReshapeChainsMergeButArithmeticStays) {
    ModelBuilder b;
    b.input("x", {2, 3, 4}).output("y").ints("s1", {6, 4}).ints("s2", {4, 6});
    b.constant("a", Tensor::scalar<float>(0.1f)).constant("c", Tensor::scalar<float>(0.7f));
    b.node("Transpose", {"x"}, {"t1"}).attributes["perm"] = Attribute::ofInts({0, 2, 1});
    b.node("Transpose", {"t1"}, {"t2"}).attributes["perm"] = Attribute::ofInts({0, 2, 1});
    b.node("Reshape", {"t2", "s1"}, {"r1"});
    b.node("Reshape", {"r1", "s2"}, {"r2"});
    b.node("Add", {"r2", "a"}, {"e1"});
    b.node("Add", {"e1", "c"}, {"y"});  // (x + 0.1) + 0.7 rounds differently from x + 0.8: kept
    const Model m = b.build();
    expectSameBits(m);
    Session session(std::make_shared<const Model>(m));
    EXPECT_EQ(countOp(session.model(), "Transpose"), 0);
    EXPECT_EQ(countOp(session.model(), "Reshape"), 1);
    EXPECT_EQ(countOp(session.model(), "Add"), 2);
}

TEST(ExecutionRewrites, WatchedValuesSurvive) {
    const Model m = padThen("Conv", {0, 0, 0, 0, 0, 0, 1, 1}).build();
    SessionOptions o;
    o.watched = {"p"};
    Session session(std::make_shared<const Model>(m), o);
    EXPECT_EQ(countOp(session.model(), "Pad"), 1);
    EXPECT_TRUE(session.executionRewrites().empty());
}

TEST(FoldPad, QuantizePairMovesBeforeThePad) {
    // QDQ export: x -> Pad -> Q -> DQ -> Conv. The padded zeros quantize to the zero point and dequantize to 0.
    ModelBuilder b;
    b.input("x", {1, 4, 9, 9}).output("y").ints("pads", {0, 0, 0, 0, 0, 0, 1, 1});
    b.constant("s", Tensor::scalar<float>(0.02f)).constant("z", Tensor::scalar<uint8_t>(128));
    b.random("w", {4, 1, 3, 3});
    b.node("Pad", {"x", "pads"}, {"p"});
    b.node("QuantizeLinear", {"p", "s", "z"}, {"q"});
    b.node("DequantizeLinear", {"q", "s", "z"}, {"d"});
    Node& conv = b.node("Conv", {"d", "w"}, {"y"});
    conv.attributes["group"] = Attribute::ofInt(4);
    conv.attributes["strides"] = Attribute::ofInts({2, 2});
    const Model m = b.build();
    auto r = runPasses(m, {"fold_pad"});
    expectProven(r, "fold_pad");
    EXPECT_EQ(count(r, "Pad"), 0);
    auto applied = expectSameBits(m);
    ASSERT_EQ(applied.size(), 1u);
    EXPECT_EQ(applied[0].nodes.size(), 4u);
}
