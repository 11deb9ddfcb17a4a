// channel-alignment and hw-alignment: padded channels/pixels are flagged and cost the time the estimate charges.
#include "AdvisorTestUtil.h"

using namespace npuwb;
using namespace npuwb::advisor;
using namespace npuwb::advisor::testing;

namespace {
/// x[1,64,16,16] -> Conv a (64->mid) -> Relu -> Conv y (mid->64)
Model convPair(int64_t mid) {
    ModelBuilder b;
    b.input("x", {1, 64, 16, 16}).output("y");
    conv(b, "x", "a", 64, mid, 3);
    b.node("Relu", {"a"}, {"r"}, "relu");
    conv(b, "r", "y", mid, 64, 3);
    return b.build();
}

const Finding* findingAt(const std::vector<Finding>& f, const std::string& node) {
    for (const auto& x : f)
        if (x.nodes.front() == node) return &x;
    return nullptr;
}
}  // namespace

TEST(ChannelAlignmentRule, FlagsBothSidesOfAnUnalignedChannelCount) {
    Model m = convPair(48);  // RK3588 int8: outputs in blocks of 32, inputs reduced in blocks of 32
    auto f = findings("channel-alignment", m);
    ASSERT_EQ(f.size(), 2u);
    const Finding* producer = findingAt(f, "a");
    const Finding* consumer = findingAt(f, "y");
    ASSERT_TRUE(producer && consumer);
    EXPECT_EQ(producer->pass, "pad_channels");  // Conv -> Relu -> Conv: the pass applies
    EXPECT_EQ(consumer->pass, "");
    EXPECT_NE(producer->hazard.find("output channels 48 are computed as 64"), std::string::npos) << producer->hazard;
    EXPECT_NE(consumer->hazard.find("input channels 48 are reduced as 64"), std::string::npos) << consumer->hazard;
    Report e = estimateOf(m);
    ASSERT_EQ(e.layers.size(), 2u);
    EXPECT_NEAR(producer->estimatedGainUs, scaledGainUs(e.layers[0], 1000, 48.0 / 64.0), 1e-6);
    EXPECT_GT(producer->estimatedGainUs, 0.0);
}

TEST(ChannelAlignmentRule, AlignmentComesFromTheChipProfile) {
    // RK3566 int8 aligns outputs to 16, so 48 output channels are fine; the 32-wide reduction still pads 48.
    auto f = findings("channel-alignment", convPair(48), "rk3566");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].nodes.front(), "y");
}

TEST(ChannelAlignmentRule, SilentOnAlignedChannels) { EXPECT_TRUE(findings("channel-alignment", convPair(64)).empty()); }

TEST(HwAlignmentRule, FlagsOutputPixelsNotAMultipleOfFour) {
    Model m = singleConv(32, 32, 5, 5);  // 5x5 = 25 pixels, computed as 28
    auto f = findings("hw-alignment", m);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].hazard.find("25 pixels"), std::string::npos) << f[0].hazard;
    Report e = estimateOf(m);
    EXPECT_NEAR(f[0].estimatedGainUs, scaledGainUs(e.layers[0], 1000, 25.0 / 28.0), 1e-6);
}

TEST(HwAlignmentRule, SilentOnAlignedMaps) { EXPECT_TRUE(findings("hw-alignment", singleConv(32, 32, 8, 8)).empty()); }
