// layout_to_conv (5.2.4.1), move_activation_to_conv (5.2.4.2), focus_to_conv (5.2.4.3), move_cast_before_layout.
#include "PassTestUtil.h"

using namespace npuwb;
using namespace npuwb::passes;
using namespace npuwb::passes::testing;

namespace {
/// x[1,8,4,4] -> Conv -> Reshape[1,g,8/g,4,4] -> Transpose(perm) -> Reshape[1,8,4,4] -> y
Model shuffleModel(std::vector<int64_t> perm) {
    ModelBuilder b;
    b.input("x", {1, 8, 4, 4}).output("y").random("w", {8, 8, 1, 1});
    b.ints("split", {1, 2, 4, 4, 4}).ints("back", {1, 8, 4, 4});
    b.node("Conv", {"x", "w"}, {"c"});
    b.node("Reshape", {"c", "split"}, {"r1"});
    b.node("Transpose", {"r1"}, {"t"}).attributes["perm"] = Attribute::ofInts(perm);
    b.node("Reshape", {"t", "back"}, {"y"});
    return b.build();
}
}  // namespace

TEST(LayoutToConv, ChannelShuffleBecomesOneByOneConv) {
    auto r = runPasses(shuffleModel({0, 2, 1, 3, 4}), {"layout_to_conv"});
    expectProven(r, "layout_to_conv");
    EXPECT_EQ(count(r, "Transpose"), 0);
    EXPECT_EQ(count(r, "Reshape"), 0);
    EXPECT_EQ(count(r, "Conv"), 2);
    EXPECT_EQ(r.applied[0].guideSection, "5.2.4.1");
}

TEST(LayoutToConv, ReportsChainThatMovesSpatialPositions) {
    auto r = runPasses(shuffleModel({0, 1, 2, 4, 3}), {"layout_to_conv"});  // transposes H and W
    expectNearMiss(r, "layout_to_conv", "spatial");
    EXPECT_EQ(count(r, "Transpose"), 1);
}

namespace {
Model convTransposeActivation(bool fromConv) {
    ModelBuilder b;
    b.input("x", {1, 4, 3, 5}).output("y").random("w", {4, 4, 1, 1});
    b.constant("lo", Tensor::scalar<float>(-0.2f)).constant("hi", Tensor::scalar<float>(0.3f));
    std::string src = "x";
    if (fromConv) {
        b.node("Conv", {"x", "w"}, {"c"});
        src = "c";
    }
    b.node("Transpose", {src}, {"t"}).attributes["perm"] = Attribute::ofInts({0, 2, 3, 1});
    b.node("Clip", {"t", "lo", "hi"}, {"y"});
    return b.build();
}
}  // namespace

TEST(MoveActivationToConv, ClipMovesInFrontOfTranspose) {
    auto r = runPasses(convTransposeActivation(true), {"move_activation_to_conv"});
    expectProven(r, "move_activation_to_conv");
    const auto& nodes = r.model.graph.nodes;
    ASSERT_EQ(nodes.size(), 3u);
    EXPECT_EQ(nodes[1].opType, "Clip");  // right after the Conv: fusable
    EXPECT_EQ(nodes[1].inputs[0], nodes[0].outputs[0]);
    EXPECT_EQ(nodes[2].opType, "Transpose");
    EXPECT_EQ(nodes[2].outputs[0], "y");
}

TEST(MoveActivationToConv, ReportsActivationWithoutConvBefore) {
    auto r = runPasses(convTransposeActivation(false), {"move_activation_to_conv"});
    expectNearMiss(r, "move_activation_to_conv", "no Conv");
}

namespace {
/// YOLOv5 Focus as PyTorch exports it: x[..., ::2, ::2] is a Slice on H then a Slice on W.
Model focusModel(bool oneSource) {
    ModelBuilder b;
    b.input("x", {1, 3, 8, 8}).input("x2", {1, 3, 8, 8}).output("y");
    b.ints("ax2", {2}).ints("ax3", {3}).ints("s0", {0}).ints("s1", {1}).ints("end", {1 << 30}).ints("st", {2});
    std::vector<std::pair<int, int>> offsets{{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    std::vector<std::string> parts;
    for (size_t i = 0; i < offsets.size(); ++i) {
        std::string h = "h" + std::to_string(i), p = "p" + std::to_string(i);
        b.node("Slice", {i == 3 && !oneSource ? "x2" : "x", offsets[i].first ? "s1" : "s0", "end", "ax2", "st"}, {h});
        b.node("Slice", {h, offsets[i].second ? "s1" : "s0", "end", "ax3", "st"}, {p});
        parts.push_back(p);
    }
    b.node("Concat", parts, {"y"}).attributes["axis"] = Attribute::ofInt(1);
    return b.build();
}
}  // namespace

TEST(FocusToConv, SlicesAndConcatBecomeOneStridedConv) {
    auto r = runPasses(focusModel(true), {"focus_to_conv"});
    expectProven(r, "focus_to_conv");
    ASSERT_EQ(r.nodesAfter, 1u);
    const Node& conv = r.model.graph.nodes[0];
    EXPECT_EQ(conv.opType, "Conv");
    EXPECT_EQ(conv.attrInts("strides"), (std::vector<int64_t>{2, 2}));
    EXPECT_EQ(r.model.graph.initializers.at(conv.inputs[1]).shape(), (Shape{12, 3, 2, 2}));
}

TEST(FocusToConv, ReportsSlicesOfDifferentInputs) {
    auto r = runPasses(focusModel(false), {"focus_to_conv"});
    expectNearMiss(r, "focus_to_conv", "different inputs");
    EXPECT_EQ(count(r, "Slice"), 8);
}

namespace {
/// x[2,5] -> Cast(int32) -> Unsqueeze -> Unsqueeze -> Cast(float) -> y; with `shared`, one Unsqueeze whose output
/// two Casts read (y and z).
Model castBehindUnsqueezes(bool shared) {
    ModelBuilder b;
    b.input("x", {2, 5}).output("y").ints("axis0", {0}).ints("axis1", {1});
    b.node("Cast", {"x"}, {"i"}).attributes["to"] = Attribute::ofInt(6);  // INT32: truncates, as a mask would be
    b.node("Unsqueeze", {"i", "axis1"}, {"u1"});
    if (shared) {
        b.node("Cast", {"u1"}, {"y"}).attributes["to"] = Attribute::ofInt(1);
        b.node("Cast", {"u1"}, {"z"}).attributes["to"] = Attribute::ofInt(1);
        b.output("z");
        return b.build();
    }
    b.node("Unsqueeze", {"u1", "axis0"}, {"u2"});
    b.node("Cast", {"u2"}, {"y"}).attributes["to"] = Attribute::ofInt(1);
    return b.build();
}
}  // namespace

TEST(MoveCastBeforeLayout, FloatCastMovesToTheFrontOfTheUnsqueezes) {
    auto r = runPasses(castBehindUnsqueezes(false), {"move_cast_before_layout"});
    expectProven(r, "move_cast_before_layout");
    const Graph& g = r.model.graph;
    const auto order = g.topologicalOrder();
    // The float Cast now reads the int32 Cast's output; the Unsqueezes work on float values and end in y.
    std::vector<std::string> ops;
    for (size_t i : order) ops.push_back(g.nodes[i].opType);
    EXPECT_EQ(ops, (std::vector<std::string>{"Cast", "Cast", "Unsqueeze", "Unsqueeze"}));
    EXPECT_EQ(g.nodes[order.back()].outputs[0], "y");
}

TEST(MoveCastBeforeLayout, StaysWhenTheLayoutOutputIsReadElsewhere) {
    auto r = runPasses(castBehindUnsqueezes(true), {"move_cast_before_layout"});
    expectNearMiss(r, "move_cast_before_layout", "also read by other nodes");
}
