// merge_chains and hoist_common_factor (5.2.4.4).
#include "PassTestUtil.h"

using namespace npuwb;
using namespace npuwb::passes;
using namespace npuwb::passes::testing;

TEST(MergeChains, MergesReshapesTransposesAndConstantArithmetic) {
    ModelBuilder b;
    b.input("x", {2, 3, 4}).output("y").ints("s1", {6, 4}).ints("s2", {4, 6});
    b.random("a", {4}).random("c", {1}, 4).random("m", {6}, 5);
    b.constant("d", Tensor::fromVector<float>({1}, {1.5f}));
    b.node("Transpose", {"x"}, {"t1"}).attributes["perm"] = Attribute::ofInts({0, 2, 1});
    b.node("Transpose", {"t1"}, {"t2"}).attributes["perm"] = Attribute::ofInts({1, 0, 2});
    b.node("Reshape", {"t2", "s1"}, {"r1"});
    b.node("Reshape", {"r1", "s2"}, {"r2"});
    b.node("Sub", {"r2", "c"}, {"e1"});
    b.node("Add", {"m", "e1"}, {"e2"});
    b.node("Div", {"e2", "d"}, {"e3"});
    b.node("Mul", {"e3", "m"}, {"y"});
    auto r = runPasses(b.build(), {"merge_chains"});
    expectProven(r, "merge_chains");
    EXPECT_EQ(count(r, "Transpose"), 1);
    EXPECT_EQ(count(r, "Reshape"), 1);
    EXPECT_EQ(r.nodesAfter, 4u);
}

TEST(MergeChains, ReportsSharedIntermediate) {
    ModelBuilder b;
    b.input("x", {2, 3}).output("y").output("t1");
    b.node("Transpose", {"x"}, {"t1"}).attributes["perm"] = Attribute::ofInts({1, 0});
    b.node("Transpose", {"t1"}, {"y"}).attributes["perm"] = Attribute::ofInts({1, 0});
    auto r = runPasses(b.build(), {"merge_chains"});
    expectNearMiss(r, "merge_chains", "deviating connection");
    EXPECT_EQ(count(r, "Transpose"), 2);
}

TEST(HoistCommonFactor, SharedActivationMovesBehindConcatAndDuplicatesMerge) {
    ModelBuilder b;
    b.input("x", {1, 2, 3}).input("z", {1, 4, 3}).output("y").output("s");
    b.node("Relu", {"x"}, {"rx"});
    b.node("Relu", {"z"}, {"rz"});
    b.node("Concat", {"rx", "rz"}, {"y"}).attributes["axis"] = Attribute::ofInt(1);
    b.node("Sigmoid", {"x"}, {"g1"});
    b.node("Sigmoid", {"x"}, {"g2"});
    b.node("Add", {"g1", "g2"}, {"s"});
    auto r = runPasses(b.build(), {"hoist_common_factor"});
    expectProven(r, "hoist_common_factor");
    EXPECT_EQ(count(r, "Relu"), 1);
    EXPECT_EQ(count(r, "Sigmoid"), 1);
}

TEST(HoistCommonFactor, ReportsBranchesWithDifferentParameters) {
    ModelBuilder b;
    b.input("x", {1, 2}).input("z", {1, 2}).output("y");
    b.node("LeakyRelu", {"x"}, {"a"}).attributes["alpha"] = Attribute::ofFloat(0.1f);
    b.node("LeakyRelu", {"z"}, {"c"}).attributes["alpha"] = Attribute::ofFloat(0.2f);
    b.node("Concat", {"a", "c"}, {"y"}).attributes["axis"] = Attribute::ofInt(1);
    auto r = runPasses(b.build(), {"hoist_common_factor"});
    expectNearMiss(r, "hoist_common_factor", "differ in parameters");
    EXPECT_EQ(count(r, "LeakyRelu"), 2);
}
