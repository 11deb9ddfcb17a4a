// OptimizerOptions::onlyAt: a pass rewrites only the sites anchored at the chosen nodes, proven as usual, and leaves
// every other site of the same pattern as it was.
#include <set>

#include "PassTestUtil.h"
#include "passes/Pass.h"

namespace npuwb::passes::testing {
namespace {

Tensor scalar(float v) { return Tensor::fromVector<float>({}, {v}); }

/// Three spelled-out HardSwish sites on x: y_k = x * Clip(x + 3, 0, 6) / 6, k = 0..2.
Model threeHardSwishSites() {
    ModelBuilder b(14);
    b.input("x", {1, 3, 5, 5});
    b.constant("three", scalar(3.f)).constant("zero", scalar(0.f)).constant("six", scalar(6.f));
    for (int k = 0; k < 3; ++k) {
        const std::string s = std::to_string(k);
        b.output("y" + s);
        b.node("Add", {"x", "three"}, {"a" + s});
        b.node("Clip", {"a" + s, "zero", "six"}, {"c" + s});
        b.node("Mul", {"x", "c" + s}, {"m" + s});
        b.node("Div", {"m" + s, "six"}, {"y" + s});
    }
    return b.build();
}

std::vector<Match> applicableMatches(const Model& m, const std::string& pass) {
    auto p = PassRegistry::instance().create(pass);
    PassConfig config;
    config.opset = m.opset("");
    p->configure(config);
    std::vector<Match> out;
    for (auto& match : p->findMatches(m.graph))
        if (match.applicable()) out.push_back(std::move(match));
    return out;
}

std::set<std::string> nodeNames(const Model& m) {
    std::set<std::string> names;
    for (const auto& n : m.graph.nodes) names.insert(n.name);
    return names;
}

OptimizeResult runAt(const Model& m, std::vector<std::string> anchors) {
    OptimizerOptions o;
    o.passes = {"fuse_hardswish"};
    o.onlyAt = std::move(anchors);
    o.proof.randomInputSets = 2;
    return optimize(m, o);
}

TEST(OptimizerOnlyAt, RewritesTheChosenSiteAndLeavesTheOthers) {
    const Model m = threeHardSwishSites();
    const auto sites = applicableMatches(m, "fuse_hardswish");
    ASSERT_EQ(sites.size(), 3u);
    const Match& chosen = sites[1];
    auto r = runAt(m, {chosen.nodes.front()});
    expectProven(r, "fuse_hardswish");
    ASSERT_EQ(r.applied.size(), 1u);
    EXPECT_EQ(r.applied[0].match.nodes, chosen.nodes);
    EXPECT_EQ(count(r, "HardSwish"), 1);
    EXPECT_EQ(count(r, "Clip"), 2);
    // Every node of the other two sites is still there, under its own name.
    const auto after = nodeNames(r.model);
    for (size_t i : {size_t(0), size_t(2)})
        for (const auto& n : sites[i].nodes) EXPECT_TRUE(after.count(n)) << n << " of an unchosen site was rewritten";
    for (const auto& n : chosen.nodes) EXPECT_FALSE(after.count(n) && n != chosen.nodes.front()) << n;
    // The two untouched sites still match, so a later "apply to all" finds exactly them.
    EXPECT_EQ(applicableMatches(r.model, "fuse_hardswish").size(), 2u);
}

TEST(OptimizerOnlyAt, SeveralChosenSitesAndEmptyMeansEverywhere) {
    const Model m = threeHardSwishSites();
    const auto sites = applicableMatches(m, "fuse_hardswish");
    ASSERT_EQ(sites.size(), 3u);
    auto two = runAt(m, {sites[0].nodes.front(), sites[2].nodes.front()});
    expectProven(two, "fuse_hardswish");
    EXPECT_EQ(count(two, "HardSwish"), 2);
    auto all = runAt(m, {});
    EXPECT_EQ(count(all, "HardSwish"), 3);
}

TEST(OptimizerOnlyAt, ANodeThatAnchorsNoSiteRewritesNothing) {
    const Model m = threeHardSwishSites();
    auto r = runAt(m, {"no_such_node"});
    EXPECT_TRUE(r.applied.empty());
    EXPECT_TRUE(r.rolledBack.empty());
    EXPECT_EQ(r.nodesAfter, r.nodesBefore);
    EXPECT_TRUE(r.endToEnd.passed);
}

TEST(OptimizerOnlyAt, AWrongRewriteAtTheChosenSiteIsStillRolledBack) {
    // The proof is not skipped for a restricted run: test_wrong_relu_to_neg (optimizer_test.cpp) at one Relu.
    ModelBuilder b;
    b.input("x", {4}).output("y").output("z");
    b.node("Relu", {"x"}, {"y"}, "relu_a");
    b.node("Relu", {"x"}, {"z"}, "relu_b");
    OptimizerOptions o;
    o.passes = {"test_wrong_relu_to_neg"};
    o.onlyAt = {"relu_b"};
    auto r = optimize(b.build(), o);
    ASSERT_EQ(r.rolledBack.size(), 1u);
    EXPECT_EQ(r.rolledBack[0].match.nodes.front(), "relu_b");
    EXPECT_FALSE(r.rolledBack[0].proof.passed);
    EXPECT_TRUE(r.applied.empty());
}

}  // namespace
}  // namespace npuwb::passes::testing
