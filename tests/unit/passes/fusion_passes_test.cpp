// fuse_layernorm and fuse_glu (5.2.5.3), pad_channels (optional).
#include "PassTestUtil.h"

using namespace npuwb;
using namespace npuwb::passes;
using namespace npuwb::passes::testing;

namespace {
Model layerNormModel(int64_t opset, float exponent) {
    ModelBuilder b(opset);
    b.input("x", {2, 5, 8}).output("y").decomposedLayerNorm("x", "y", 8, exponent);
    return b.build();
}
}  // namespace

TEST(FuseLayerNorm, NineNodesBecomeLayerNormalization) {
    auto r = runPasses(layerNormModel(17, 2.0f), {"fuse_layernorm"});
    expectProven(r, "fuse_layernorm");
    ASSERT_EQ(r.nodesAfter, 1u);
    EXPECT_EQ(r.model.graph.nodes[0].opType, "LayerNormalization");
    EXPECT_EQ(r.model.graph.nodes[0].attrInt("axis", 0), 2);
}

TEST(FuseLayerNorm, ReportsWrongExponent) {
    auto r = runPasses(layerNormModel(13, 3.0f), {"fuse_layernorm"});
    expectNearMiss(r, "fuse_layernorm", "exponent");
    EXPECT_EQ(r.model.opset(""), 13) << "no site to fuse, so no opset upgrade";
    EXPECT_EQ(r.nodesAfter, 9u);
}

TEST(FuseGlu, HalfSlicesBecomeSplit) {
    ModelBuilder b;
    b.input("x", {1, 8, 3}).output("y").ints("z", {0}).ints("h", {4}).ints("e", {8}).ints("ax", {1});
    b.node("Slice", {"x", "z", "h", "ax"}, {"a"});
    b.node("Slice", {"x", "h", "e", "ax"}, {"bb"});
    b.node("Sigmoid", {"bb"}, {"g"});
    b.node("Mul", {"a", "g"}, {"y"});
    auto r = runPasses(b.build(), {"fuse_glu"});
    expectProven(r, "fuse_glu");
    EXPECT_EQ(count(r, "Slice"), 0);
    EXPECT_EQ(count(r, "Split"), 1);
    bool canonical = false;  // the rewritten site is now reported as already fusible
    for (const auto& n : r.nearMisses) canonical = canonical || n.match.nearMissReason.find("already") != std::string::npos;
    EXPECT_TRUE(canonical);
}

TEST(FuseGlu, ReportsGateOnTheFirstHalf) {
    ModelBuilder b;
    b.input("x", {1, 8}).output("y");
    b.node("Split", {"x"}, {"a", "bb"}).attributes["axis"] = Attribute::ofInt(1);
    b.node("Sigmoid", {"a"}, {"g"});
    b.node("Mul", {"bb", "g"}, {"y"});
    expectNearMiss(runPasses(b.build(), {"fuse_glu"}), "fuse_glu", "first half");
}

namespace {
Model twoConvs(bool extraReader) {
    ModelBuilder b;
    b.input("x", {1, 3, 6, 6}).output("y").random("w1", {24, 3, 3, 3}).random("b1", {24}, 4).random("w2", {8, 24, 1, 1}, 5);
    b.node("Conv", {"x", "w1", "b1"}, {"c1"});
    b.node("Relu", {"c1"}, {"r"});
    b.node("Conv", {"r", "w2"}, {"y"});
    if (extraReader) {
        b.output("s");
        b.node("Sigmoid", {"r"}, {"s"});
    }
    return b.build();
}
}  // namespace

TEST(PadChannels, PadsToTheAlignmentWithZeroFilters) {
    auto r = runPasses(twoConvs(false), {"pad_channels"}, 16);
    expectProven(r, "pad_channels");
    const auto& g = r.model.graph;
    EXPECT_EQ(g.initializers.at(g.nodes[0].inputs[1]).shape(), (Shape{32, 3, 3, 3}));
    EXPECT_EQ(g.initializers.at(g.nodes[2].inputs[1]).shape(), (Shape{8, 32, 1, 1}));
}

TEST(PadChannels, ReportsChannelsReadByMoreThanOneConv) {
    expectNearMiss(runPasses(twoConvs(true), {"pad_channels"}, 16), "pad_channels", "exactly one Conv");
}
