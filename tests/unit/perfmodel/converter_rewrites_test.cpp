// The converter behaviour the estimate models (ConverterRewrites.h, OpConditions.h) on small graphs built here,
// with the real chip profiles: x * Sigmoid(x) fused into the conv as ConvolutionSwish, a Div by a constant on the
// NPU as Mul, Transpose permutations placed per chip, the op-list expression language, and the estimate's range.
#include <gtest/gtest.h>

#include "npuwb/ChipProfile.h"
#include "npuwb/CostModel.h"
#include "npuwb/ModelIO.h"
#include "perfmodel/OpConditions.h"

#include "PerfmodelTestModels.h"

using namespace npuwb;
using namespace npuwb::unittest;

TEST(ConverterRewrites, SiluFusesIntoTheConvolutionAsSwish) {
    Model m = convThen({plainNode("sig", "Sigmoid", {"c"}, {"s"}), plainNode("mul", "Mul", {"c", "s"}, {"y"})});
    Report r = estimateModel(m, realChip("rk3588"));
    ASSERT_EQ(r.layers.size(), 1u);
    EXPECT_EQ(r.layers[0].opType, "ConvolutionSwish");
    EXPECT_EQ(r.layers[0].fusedNodes, (std::vector<std::string>{"sig", "mul"}));
}

TEST(ConverterRewrites, DivByAConstantRunsOnTheNpuAsMul) {
    Model m = convThen({plainNode("div", "Div", {"c", "k"}, {"y"})});
    m.graph.initializers["k"] = Tensor::fromVector<float>({1}, {4.0f});
    m = loadModelFromBytes(serializeModel(m), ".", "div.onnx");
    Report r = estimateModel(m, realChip("rk3588"));
    ASSERT_EQ(r.layers.size(), 2u);
    EXPECT_EQ(r.layers[1].target, "NPU");
    EXPECT_EQ(r.layers[1].opType, "Mul");
    EXPECT_TRUE(r.fallbacks.empty());

    // Dividing by a computed tensor stays a Div, which the NPU runs in float16 only: CPU at int8.
    Model computed = convThen({plainNode("div", "Div", {"c", "c"}, {"y"})});
    Report rc = estimateModel(computed, realChip("rk3588"));
    ASSERT_EQ(rc.fallbacks.size(), 1u);
    EXPECT_EQ(rc.fallbacks[0].opType, "Div");
}

TEST(ConverterRewrites, TransposePlacementFollowsEachChipsPermutationRules) {
    Node t = plainNode("t", "Transpose", {"c"}, {"tt"});
    t.attributes["perm"] = intsAttribute({0, 2, 3, 1});  // NCHW -> NHWC, as detection heads do before a Reshape
    Model m = convThen({t, plainNode("relu", "Relu", {"tt"}, {"y"})}, {1, 32, 32, 16});
    // RK3566/68: the op list marks [0,2,3,1] unsupported. RK3588: supported when h*w % 8 == 0 (32*32 is).
    Report small = estimateModel(m, realChip("rk3566"));
    ASSERT_EQ(small.fallbacks.size(), 1u);
    EXPECT_EQ(small.fallbacks[0].opType, "Transpose");
    EXPECT_NE(small.fallbacks[0].reason.find("[0,2,3,1]"), std::string::npos) << small.fallbacks[0].reason;
    EXPECT_TRUE(estimateModel(m, realChip("rk3588")).fallbacks.empty());
}

TEST(ConverterRewrites, NoOpsAndCancellingTransposesVanish) {
    // Transpose -> 1x1 stride-1 MaxPool -> inverse Transpose -> Pad of zeros: four nodes that leave the tensor as it
    // is (PyTorch exports of channel pools and of AvgPool2d emit them). Only the conv remains.
    Node t1 = plainNode("t1", "Transpose", {"c"}, {"a"});
    t1.attributes["perm"] = intsAttribute({0, 3, 2, 1});
    Node pool = plainNode("pool", "MaxPool", {"a"}, {"b"});
    pool.attributes["kernel_shape"] = intsAttribute({1, 1});
    Node t2 = plainNode("t2", "Transpose", {"b"}, {"d"});
    t2.attributes["perm"] = intsAttribute({0, 3, 2, 1});
    Node pad = plainNode("pad", "Pad", {"d", "zeros"}, {"y"});
    Model m = convThen({t1, pool, t2, pad}, {1, 64, 20, 90});
    m.graph.initializers["zeros"] = Tensor::fromVector<int64_t>({8}, std::vector<int64_t>(8, 0));
    m = loadModelFromBytes(serializeModel(m), ".", "noops.onnx");
    for (const char* chip : {"rk3566", "rk3588"}) {
        Report r = estimateModel(m, realChip(chip));
        ASSERT_EQ(r.layers.size(), 1u) << chip;
        EXPECT_TRUE(r.fallbacks.empty()) << chip;
    }

    // A pool that strides, or a second Transpose that is not the inverse, is real work.
    Model strided = m;
    for (Node& n : strided.graph.nodes)
        if (n.name == "pool") n.attributes["strides"] = intsAttribute({1, 2});
    EXPECT_EQ(estimateModel(strided, realChip("rk3588")).layers.size(), 4u);
    Model other = m;
    for (Node& n : other.graph.nodes)
        if (n.name == "t2") n.attributes["perm"] = intsAttribute({0, 2, 3, 1});
    EXPECT_EQ(estimateModel(other, realChip("rk3588")).layers.size(), 3u);
}

TEST(OpConditions, ExpressionLanguageOfTheOpList) {
    const std::map<std::string, int64_t> v = {{"n1", 1}, {"c1", 64}, {"h1", 20}, {"w1", 90}, {"p", 8192}, {"q", 2048}};
    EXPECT_EQ(evaluateCondition("h1%16==0", v), false);
    EXPECT_EQ(evaluateCondition("h1*w1%8==0", v), true);  // 1800 = 8 x 225
    EXPECT_EQ(evaluateCondition("h1*w1%16==0", v), false);
    EXPECT_EQ(evaluateCondition("w1*c1<p*16", v), true);
    EXPECT_EQ(evaluateCondition("(h1==w1==1, n1%4==0) or (n1==1, c1%4==0)", v), true);
    EXPECT_EQ(evaluateCondition("(h1==w1==1, n1%4==0) or (n1==2)", v), false);
    EXPECT_EQ(evaluateCondition("c1*h1*w1p", v), std::nullopt);  // the op list's typo: not evaluated
    EXPECT_EQ(evaluateCondition("z1<3", v), std::nullopt);
}

TEST(EstimateRange, TheProfilesValidationGivesTheRange) {
    const ChipProfile c = realChip("rk3588");
    ASSERT_GT(c.validation.points, 0) << "rk3588.json has no costModel.validation";
    Model m = convThen({plainNode("relu", "Relu", {"c"}, {"y"})});
    Report r = estimateModel(m, c);
    EXPECT_FALSE(r.run.estimateBasis.empty());
    EXPECT_NEAR(r.run.minUs, r.run.medianUs / c.validation.slowRatioP90, 1e-9);
    EXPECT_NEAR(r.run.maxUs, r.run.medianUs / c.validation.fastRatioP10, 1e-9);
    EXPECT_LE(r.run.minUs, r.run.medianUs);
    EXPECT_GE(r.run.maxUs, r.run.medianUs);
    Report back = reportFromJson(toJson(r));
    EXPECT_EQ(back.run.estimateBasis, r.run.estimateBasis);
}
