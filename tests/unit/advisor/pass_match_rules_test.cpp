// graph-rewrite and near-miss: pass predicates become findings; near misses carry the deviating connection.
#include "AdvisorTestUtil.h"

#include <algorithm>

using namespace npuwb;
using namespace npuwb::advisor;
using namespace npuwb::advisor::testing;

namespace {
/// ReduceMean+Sub+Pow+ReduceMean+Add+Sqrt+Div+Mul+Add over the last axis (as in the pass tests).
Model layerNorm(float exponent) {
    ModelBuilder b(17);
    b.input("x", {1, 64, 256}).output("y").decomposedLayerNorm("x", "y", 256, exponent);
    return b.build();
}
}  // namespace

TEST(GraphRewriteRule, LayerNormSubgraphPointsAtTheFusionPass) {
    Model m = layerNorm(2.0f);
    auto f = findings("graph-rewrite", m);
    const Finding* ln = nullptr;
    for (const auto& x : f)
        if (x.pass == "fuse_layernorm") ln = &x;
    ASSERT_TRUE(ln);
    EXPECT_EQ(ln->nodes.size(), 9u);
    EXPECT_EQ(ln->guideSection, "5.2.5.3");
    // The site's anchor, what "Apply to This Site" restricts the optimizer to: the match's first node.
    EXPECT_EQ(ln->passAnchor, ln->nodes.front());
    EXPECT_FALSE(ln->passAnchor.empty());
    // Nine separate layers become one: the gain is their time minus the largest of them as an NPU layer (a CPU
    // fallback among them counts at its NPU time, so the gain is at least the sum minus the largest row).
    Report e = estimateOf(m);
    double sum = 0, largest = 0;
    for (const auto& l : e.layers) sum += l.timeUs, largest = std::max(largest, l.timeUs);
    EXPECT_GE(ln->estimatedGainUs, sum - largest - 1e-9);
    EXPECT_LT(ln->estimatedGainUs, sum);
    EXPECT_TRUE(findings("near-miss", m).empty());
}

TEST(NearMissRule, WrongExponentIsTheDeviatingConnection) {
    Model m = layerNorm(3.0f);
    auto f = findings("near-miss", m);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].severity, "low");
    EXPECT_EQ(f[0].pass, "");
    EXPECT_NE(f[0].hazard.find("exponent"), std::string::npos) << f[0].hazard;
    for (const auto& x : findings("graph-rewrite", m)) EXPECT_NE(x.pass, "fuse_layernorm");
}

TEST(PassMatchRules, SilentOnAPlainConv) {
    Model m = singleConv(32, 32, 16, 16, 3);
    EXPECT_TRUE(findings("graph-rewrite", m).empty());
    EXPECT_TRUE(findings("near-miss", m).empty());
}
