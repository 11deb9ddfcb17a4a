// cpu-fallback: limits and op lists put layers on the CPU; the gain is CPU time minus the NPU estimate.
#include "AdvisorTestUtil.h"

using namespace npuwb;
using namespace npuwb::advisor;
using namespace npuwb::advisor::testing;

TEST(CpuFallbackRule, KernelPastTheLimitNamesTheLimitAndGainsTheCpuTime) {
    ModelBuilder b;
    b.input("x", {1, 8, 40, 40}).output("y");
    conv(b, "x", "y", 8, 8, 33, 1, 1, 0);  // RK3588 conv kernel limit is 1..31
    Model m = b.build();
    auto f = findings("cpu-fallback", m);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].nodes.front(), "y");
    EXPECT_NE(f[0].hazard.find("weight.kernel_h = 33"), std::string::npos) << f[0].hazard;
    EXPECT_NE(f[0].mitigation.find("kernel"), std::string::npos);
    Report e = estimateOf(m);
    ASSERT_EQ(e.layers[0].target, "CPU");
    const Evidence* cpu = evidenceOf(f[0], "CPU time");
    const Evidence* npu = evidenceOf(f[0], "NPU time if supported");
    ASSERT_TRUE(cpu && npu);
    EXPECT_DOUBLE_EQ(cpu->value, e.layers[0].timeUs);
    EXPECT_GT(npu->value, 0.0);
    EXPECT_LT(npu->value, cpu->value);
    EXPECT_NEAR(f[0].estimatedGainUs, cpu->value - npu->value, 1e-9);
    // The estimate report records why, too.
    ASSERT_EQ(e.fallbacks.size(), 1u);
    EXPECT_NE(e.fallbacks[0].reason.find("kernel"), std::string::npos);
}

TEST(CpuFallbackRule, OpMissingFromTheOpList) {
    ModelBuilder b;
    b.input("x", {1, 16, 8, 8}).output("y");
    conv(b, "x", "c", 16, 16, 3);
    b.node("Exp", {"c"}, {"y"}, "exp");
    auto f = findings("cpu-fallback", b.build());
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].nodes.front(), "exp");
    EXPECT_NE(f[0].hazard.find("not on RK3588's NPU op list"), std::string::npos) << f[0].hazard;
    EXPECT_TRUE(f[0].severity == "medium" || f[0].severity == "high");
}

TEST(CpuFallbackRule, SilentWhenEverythingRunsOnTheNpu) {
    EXPECT_TRUE(findings("cpu-fallback", singleConv(8, 8, 16, 16, 3)).empty());
}
