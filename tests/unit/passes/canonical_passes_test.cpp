// constant_folding, dead_code_elimination, remove_identity, fold_batchnorm: pattern and near miss each.
#include "PassTestUtil.h"

using namespace npuwb;
using namespace npuwb::passes;
using namespace npuwb::passes::testing;

TEST(ConstantFolding, FoldsConstantChainsAndStaticShapes) {
    ModelBuilder b;
    b.input("x", {2, 6}).output("y").random("a", {2, 6}).random("c", {2, 6}, 5).ints("flat", {3, 4});
    b.node("Mul", {"a", "c"}, {"ac"});
    b.node("Shape", {"x"}, {"xs"});  // x has a static shape: Shape -> Reshape(shape) is constant
    b.node("Reshape", {"ac", "flat"}, {"ac34"});
    b.node("Reshape", {"ac34", "xs"}, {"ac26"});
    b.node("Add", {"x", "ac26"}, {"y"});
    auto r = runPasses(b.build(), {"constant_folding"});
    expectProven(r, "constant_folding");
    EXPECT_EQ(r.nodesAfter, 1u);
    EXPECT_EQ(count(r, "Add"), 1);
}

TEST(ConstantFolding, LeavesNodesThatReadInputs) {
    ModelBuilder b;
    b.input("x", {2, 3}).output("y").random("a", {2, 3});
    b.node("Mul", {"x", "a"}, {"y"});
    auto r = runPasses(b.build(), {"constant_folding"});
    EXPECT_TRUE(r.applied.empty());
    EXPECT_EQ(r.nodesAfter, 1u);
}

TEST(DeadCodeElimination, RemovesUnreadChains) {
    ModelBuilder b;
    b.input("x", {4}).output("y");
    b.node("Relu", {"x"}, {"y"});
    b.node("Neg", {"x"}, {"dead1"});
    b.node("Exp", {"dead1"}, {"dead2"});
    auto r = runPasses(b.build(), {"dead_code_elimination"});
    expectProven(r, "dead_code_elimination");
    EXPECT_EQ(r.nodesAfter, 1u);
    EXPECT_EQ(count(r, "Exp"), 0);
}

TEST(DeadCodeElimination, KeepsEverythingThatFeedsAnOutput) {
    ModelBuilder b;
    b.input("x", {4}).output("y").output("z");
    b.node("Relu", {"x"}, {"y"});
    b.node("Neg", {"y"}, {"z"});
    auto r = runPasses(b.build(), {"dead_code_elimination"});
    EXPECT_TRUE(r.applied.empty());
    EXPECT_EQ(r.nodesAfter, 2u);
}

TEST(RemoveIdentity, BypassesIdentityDropoutAndNoOpShapeOps) {
    ModelBuilder b;
    b.input("x", {1, 8}).output("y").ints("same", {1, 8});
    b.node("Identity", {"x"}, {"a"});
    b.node("Dropout", {"a"}, {"b"});
    b.node("Reshape", {"b", "same"}, {"c"});
    b.node("Transpose", {"c"}, {"d"}).attributes["perm"] = Attribute::ofInts({0, 1});
    b.node("Cast", {"d"}, {"e"}).attributes["to"] = Attribute::ofInt(1);
    b.node("Relu", {"e"}, {"y"});
    auto r = runPasses(b.build(), {"remove_identity"});
    expectProven(r, "remove_identity");
    EXPECT_EQ(r.nodesAfter, 1u);
    EXPECT_EQ(r.model.graph.nodes[0].inputs[0], "x");
}

TEST(RemoveIdentity, BypassesATrainingModeDropoutOnlyWhenItsRatioIsZero) {
    // Exporters write attention dropout p=0 in training mode: it keeps every element and scales by 1.
    ModelBuilder b;
    b.input("x", {1, 8}).output("y").output("z");
    b.constant("zero", Tensor::fromVector<float>({}, {0.0f})).constant("half", Tensor::fromVector<float>({}, {0.5f}));
    b.constant("training", Tensor::fromVector<bool>({}, {true}));
    b.node("Dropout", {"x", "zero", "training"}, {"a"});
    b.node("Relu", {"a"}, {"y"});
    b.node("Dropout", {"x", "half", "training"}, {"b"}).attributes["seed"] = Attribute::ofInt(1);  // drops: kept
    b.node("Neg", {"b"}, {"z"});
    auto r = runPasses(b.build(), {"remove_identity"});
    expectProven(r, "remove_identity");
    EXPECT_EQ(count(r, "Dropout"), 1);
    EXPECT_EQ(r.nodesAfter, 3u);
}

TEST(RemoveIdentity, ReportsIdentityBetweenGraphInputAndOutput) {
    ModelBuilder b;
    b.input("x", {1, 8}).output("y").ints("other", {2, 4});
    b.node("Identity", {"x"}, {"y"});
    b.node("Reshape", {"x", "other"}, {"unused"});  // a real reshape is left alone
    auto r = runPasses(b.build(), {"remove_identity"});
    expectNearMiss(r, "remove_identity", "graph output");
    EXPECT_EQ(count(r, "Reshape"), 1);
}

TEST(FoldBatchNorm, FoldsIntoConvAndGemm) {
    ModelBuilder b;
    b.input("x", {1, 3, 6, 6}).input("v", {2, 5}).output("y").output("z");
    b.random("w", {4, 3, 3, 3}).random("bias", {4}, 4).random("g", {4}, 5).random("be", {4}, 6).random("mu", {4}, 7);
    Tensor var(DType::F32, {4});
    for (auto& e : var.values<float>()) e = 0.5f;
    b.constant("var", var).constant("var2", Tensor::fromVector<float>({3}, {0.3f, 0.7f, 1.1f}));
    b.node("Conv", {"x", "w", "bias"}, {"c"});
    b.node("BatchNormalization", {"c", "g", "be", "mu", "var"}, {"y"});
    b.random("gw", {3, 5}, 8).random("g2", {3}, 9).random("b2", {3}, 10).random("m2", {3}, 11);
    Node& gemm = b.node("Gemm", {"v", "gw"}, {"gm"});
    gemm.attributes["transB"] = Attribute::ofInt(1);
    gemm.attributes["alpha"] = Attribute::ofFloat(0.5f);
    b.node("BatchNormalization", {"gm", "g2", "b2", "m2", "var2"}, {"z"});
    auto r = runPasses(b.build(), {"fold_batchnorm"});
    expectProven(r, "fold_batchnorm");
    EXPECT_EQ(count(r, "BatchNormalization"), 0);
    EXPECT_EQ(r.nodesAfter, 2u);
}

TEST(FoldBatchNorm, ReportsConvWhoseOutputIsAlsoReadElsewhere) {
    ModelBuilder b;
    b.input("x", {1, 2, 4, 4}).output("y").output("c");
    b.random("w", {2, 2, 1, 1}).random("g", {2}).random("be", {2}).random("mu", {2});
    b.constant("var", Tensor::fromVector<float>({2}, {1.0f, 2.0f}));
    b.node("Conv", {"x", "w"}, {"c"});
    b.node("BatchNormalization", {"c", "g", "be", "mu", "var"}, {"y"});
    auto r = runPasses(b.build(), {"fold_batchnorm"});
    expectNearMiss(r, "fold_batchnorm", "also read elsewhere");
    EXPECT_EQ(count(r, "BatchNormalization"), 1);
}
