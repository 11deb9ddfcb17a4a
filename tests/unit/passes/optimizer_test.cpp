// The optimizer's proof: a wrong rewrite is rolled back with an error naming the pass and the node; the registry
// lists every pass with metadata; default runs reach a fixed point.
#include "PassTestUtil.h"
#include "passes/PatternPass.h"

using namespace npuwb;
using namespace npuwb::passes;
using namespace npuwb::passes::testing;

namespace {
/// Deliberately wrong: turns Relu into Neg. Only runs when named, so other tests never see it.
class WrongReluToNeg final : public PatternPass {
public:
    std::string name() const override { return "test_wrong_relu_to_neg"; }
    std::string description() const override { return "test only: an incorrect rewrite"; }
    bool runsByDefault() const override { return false; }

protected:
    std::optional<Match> matchAt(const Graph&, const GraphIndex&, const Node& n) const override {
        if (n.opType != "Relu") return std::nullopt;
        return hit({n.name}, "Relu as Neg");
    }
    bool rewrite(Graph& g, const Match& m) const override {
        findNode(g, m.nodes[0])->opType = "Neg";
        return true;
    }
};
NPUWB_PASS(WrongReluToNeg);
}  // namespace

TEST(Optimizer, RollsBackAWrongRewriteNamingPassAndNode) {
    ModelBuilder b;
    b.input("x", {4}).output("y");
    b.node("Relu", {"x"}, {"y"}, "the_relu");
    auto r = runPasses(b.build(), {"test_wrong_relu_to_neg"});
    ASSERT_EQ(r.rolledBack.size(), 1u);
    EXPECT_NE(r.rolledBack[0].error.find("test_wrong_relu_to_neg"), std::string::npos);
    EXPECT_NE(r.rolledBack[0].error.find("the_relu"), std::string::npos);
    EXPECT_FALSE(r.rolledBack[0].proof.passed);
    EXPECT_GT(r.rolledBack[0].proof.maxAbsDiff, 0.0);
    EXPECT_EQ(r.model.graph.nodes[0].opType, "Relu");
    EXPECT_TRUE(r.applied.empty());
    EXPECT_TRUE(r.endToEnd.passed);
}

TEST(Optimizer, RegistryListsPassesWithMetadata) {
    auto names = PassRegistry::instance().names();
    for (const char* expected : {"constant_folding", "dead_code_elimination", "remove_identity", "fold_batchnorm",
                                 "layout_to_conv", "move_activation_to_conv", "focus_to_conv", "merge_chains",
                                 "hoist_common_factor", "fuse_layernorm", "fuse_glu", "pad_channels"})
        EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
    EXPECT_EQ(PassRegistry::instance().create("layout_to_conv")->guideSection(), "5.2.4.1");
    EXPECT_THROW(PassRegistry::instance().create("no_such_pass"), Error);
}

TEST(Optimizer, DefaultPassesReachAFixedPointAcrossPasses) {
    // Identity -> Conv -> BN -> Transpose -> Relu: needs remove_identity, fold_batchnorm and the activation move.
    ModelBuilder b;
    b.input("x", {1, 2, 3, 3}).output("y").random("w", {2, 2, 1, 1}).random("g", {2}).random("be", {2}).random("mu", {2});
    b.constant("var", Tensor::fromVector<float>({2}, {0.5f, 2.0f}));
    b.node("Identity", {"x"}, {"i"});
    b.node("Conv", {"i", "w"}, {"c"});
    b.node("BatchNormalization", {"c", "g", "be", "mu", "var"}, {"bn"});
    b.node("Transpose", {"bn"}, {"t"}).attributes["perm"] = Attribute::ofInts({0, 2, 3, 1});
    b.node("Relu", {"t"}, {"y"});
    OptimizerOptions o;
    auto r = optimize(b.build(), o);
    EXPECT_TRUE(r.endToEnd.passed) << r.endToEnd.failure;
    ASSERT_EQ(r.nodesAfter, 3u);
    EXPECT_EQ(r.model.graph.nodes[1].opType, "Relu");
    EXPECT_GT(r.rounds, 1);
}

TEST(Optimizer, ComparesOutputsAgainstTolerance) {
    std::vector<std::map<std::string, Tensor>> ref{{{"y", Tensor::fromVector<float>({2}, {10.0f, -20.0f})}}};
    auto close = ref;
    close[0]["y"] = Tensor::fromVector<float>({2}, {10.0f, -20.001f});
    Proof p = compareOutputs(ref, close, 1e-4);
    EXPECT_TRUE(p.passed);  // 0.001 <= 1e-4 * 20
    EXPECT_NEAR(p.maxAbsDiff, 0.001, 1e-5);
    EXPECT_NEAR(p.maxRelDiff, 0.001 / 20, 1e-6);
    EXPECT_FALSE(compareOutputs(ref, close, 1e-5).passed);
    close[0]["y"] = Tensor::fromVector<float>({1}, {10.0f});
    EXPECT_NE(compareOutputs(ref, close, 1).failure.find("changed"), std::string::npos);
}
