// bandwidth-bound and low-mac-utilization on layers whose bound is clear from the numbers.
#include "AdvisorTestUtil.h"

using namespace npuwb;
using namespace npuwb::advisor;
using namespace npuwb::advisor::testing;

namespace {
Model bigAdd() {
    ModelBuilder b;
    b.input("x", {1, 64, 128, 128}).input("z", {1, 64, 128, 128}).output("y");
    b.node("Add", {"x", "z"}, {"y"}, "add");
    return b.build();
}
}  // namespace

TEST(BandwidthBoundRule, ElementwiseAddOnALargeMapWaitsForDdr) {
    Model m = bigAdd();
    auto f = findings("bandwidth-bound", m);
    ASSERT_EQ(f.size(), 1u);
    Report e = estimateOf(m);
    const LayerRow& row = e.layers[0];
    ASSERT_GT(*row.cyclesDdr, *row.cyclesNpu);
    EXPECT_NEAR(f[0].estimatedGainUs, double(*row.cyclesDdr - *row.cyclesNpu) / 1000.0, 1e-3);
    EXPECT_NE(f[0].mitigation.find("Fuse it into the producing convolution"), std::string::npos);
    EXPECT_EQ(f[0].severity, "high");
}

TEST(BandwidthBoundRule, SilentOnAComputeBoundConv) {
    Model m = singleConv(256, 256, 32, 32, 3);
    Report e = estimateOf(m);
    const LayerRow& row = e.layers[0];
    ASSERT_LT(*row.cyclesDdr, *row.cyclesNpu);
    EXPECT_TRUE(findings("bandwidth-bound", m).empty());
}

TEST(LowMacUtilizationRule, HeavyLayerWithFewOutputChannels) {
    Model m = singleConv(64, 8, 128, 128, 3);  // 8 of 32 output lanes busy
    auto f = findings("low-mac-utilization", m);
    ASSERT_EQ(f.size(), 1u);
    Report e = estimateOf(m);
    const LayerRow& row = e.layers[0];
    EXPECT_LT(*row.macUsagePercent, 30.0);
    double ideal = double(row.macs) / (1024.0 * chip("rk3588").coefficients.computeEfficiency);
    EXPECT_NEAR(f[0].estimatedGainUs, scaledGainUs(row, 1000, ideal / double(*row.cyclesNpu)), 1e-6);
    EXPECT_NE(f[0].hazard.find("compute-bound"), std::string::npos) << f[0].hazard;
}

TEST(LowMacUtilizationRule, SilentOnAnAlignedHeavyConv) {
    EXPECT_TRUE(findings("low-mac-utilization", singleConv(64, 64, 64, 64, 3)).empty());
}
