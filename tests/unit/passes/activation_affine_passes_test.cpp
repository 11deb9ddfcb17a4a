// fuse_hardswish and fold_affine: the spelled-out forms exporters write, each proven by the optimizer.
#include "PassTestUtil.h"

namespace npuwb::passes::testing {
namespace {

Tensor scalar(float v) { return Tensor::fromVector<float>({}, {v}); }

TEST(FuseHardSwish, ReplacesBothSpellingsAtOpset14) {
    ModelBuilder b(14);
    b.input("x", {1, 3, 5, 5}).output("y").output("z");
    b.constant("three", scalar(3.f)).constant("zero", scalar(0.f)).constant("six", scalar(6.f));
    b.constant("sixth", scalar(1.f / 6.f));
    // y = (x * Clip(x + 3, 0, 6)) / 6
    b.node("Add", {"x", "three"}, {"a"});
    b.node("Clip", {"a", "zero", "six"}, {"c"});
    b.node("Mul", {"x", "c"}, {"m"});
    b.node("Div", {"m", "six"}, {"y"});
    // z = x * (Clip(3 + x, 0, 6) * 1/6)
    b.node("Add", {"three", "x"}, {"a2"});
    b.node("Clip", {"a2", "zero", "six"}, {"c2"});
    b.node("Mul", {"c2", "sixth"}, {"s2"});
    b.node("Mul", {"x", "s2"}, {"z"});
    auto r = runPasses(b.build(), {"fuse_hardswish"});
    expectProven(r, "fuse_hardswish");
    EXPECT_EQ(count(r, "HardSwish"), 2);
    EXPECT_EQ(r.nodesAfter, 2u);
}

TEST(FuseHardSwish, UsesHardSigmoidBeforeOpset14AndSkipsOtherBounds) {
    ModelBuilder b(11);
    b.input("x", {1, 4, 3, 3}).output("y").output("z");
    b.constant("three", scalar(3.f)).constant("zero", scalar(0.f)).constant("six", scalar(6.f));
    b.node("Add", {"x", "three"}, {"a"});
    b.node("Clip", {"a", "zero", "six"}, {"c"});
    b.node("Mul", {"x", "c"}, {"m"});
    b.node("Div", {"m", "six"}, {"y"});
    // Clip to [0, 3]: not HardSwish.
    b.node("Add", {"x", "three"}, {"a2"});
    b.node("Clip", {"a2", "zero", "three"}, {"c2"});
    b.node("Mul", {"x", "c2"}, {"m2"});
    b.node("Div", {"m2", "six"}, {"z"});
    auto r = runPasses(b.build(), {"fuse_hardswish"});
    expectProven(r, "fuse_hardswish");
    EXPECT_EQ(count(r, "HardSigmoid"), 1);
    EXPECT_EQ(count(r, "HardSwish"), 0);
    EXPECT_EQ(count(r, "Clip"), 1);
}

TEST(FoldAffine, FoldsScalarAndPerChannelConstantsIntoConv) {
    ModelBuilder b;
    b.input("x", {1, 3, 6, 6}).output("y").output("z");
    b.random("w", {4, 3, 3, 3}).random("bias", {4}, 4).random("w2", {4, 3, 1, 1}, 5);
    b.constant("s", scalar(1.7f)).constant("t", Tensor::fromVector<float>({4, 1, 1}, {0.1f, -0.2f, 0.3f, 0.4f}));
    b.constant("u", Tensor::fromVector<float>({1, 4, 1, 1}, {2.f, -1.f, 0.5f, 3.f}));
    b.node("Conv", {"x", "w", "bias"}, {"c"});
    b.node("Mul", {"c", "s"}, {"m"});
    b.node("Add", {"t", "m"}, {"y"});
    b.node("Conv", {"x", "w2"}, {"c2"});  // no bias: the fold creates one
    b.node("Mul", {"c2", "u"}, {"z"});
    auto r = runPasses(b.build(), {"fold_affine"});
    expectProven(r, "fold_affine");
    EXPECT_EQ(count(r, "Mul"), 0);
    EXPECT_EQ(count(r, "Add"), 0);
    EXPECT_EQ(r.nodesAfter, 2u);
}

TEST(FoldAffine, LeavesConstantsThatAreNotPerChannel) {
    ModelBuilder b;
    b.input("x", {1, 2, 4, 4}).output("y").output("c");
    b.random("w", {2, 2, 1, 1}).random("row", {4}, 6);
    b.node("Conv", {"x", "w"}, {"c"});
    b.node("Mul", {"c", "row"}, {"y"});  // broadcasts along W, not channels; and c is read elsewhere
    auto r = runPasses(b.build(), {"fold_affine"});
    EXPECT_EQ(count(r, "Mul"), 1);
}

}  // namespace
}  // namespace npuwb::passes::testing
