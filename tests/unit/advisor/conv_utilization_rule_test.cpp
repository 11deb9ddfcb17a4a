// conv-utilization: one finding per MAC-utilization heuristic (RKNN SDK user guide V2.5.0, 5.2.5.2) a conv breaks.
#include "AdvisorTestUtil.h"

using namespace npuwb;
using namespace npuwb::advisor;
using namespace npuwb::advisor::testing;

namespace {
bool has(const std::vector<Finding>& f, const std::string& text) {
    for (const auto& x : f)
        if (x.hazard.find(text) != std::string::npos) return true;
    return false;
}
const Finding* with(const std::vector<Finding>& f, const std::string& text) {
    for (const auto& x : f)
        if (x.hazard.find(text) != std::string::npos) return &x;
    return nullptr;
}
}  // namespace

TEST(ConvUtilizationRule, ManyInputChannels) {
    auto f = findings("conv-utilization", singleConv(768, 64, 8, 8, 1));
    EXPECT_TRUE(has(f, "768 input channels (> 512)"));
    EXPECT_FALSE(has(f, "> 6 KB"));  // 1x1x768 bytes is a small filter
}

TEST(ConvUtilizationRule, FilterOverSixKilobytes) {
    auto f = findings("conv-utilization", singleConv(1024, 64, 8, 8, 3));
    EXPECT_TRUE(has(f, "3*3*1024*1 = 9 KB (> 6 KB)"));
    // fp16 doubles the type bytes: 3x3x384 is 3.4 KB at int8 but 6.75 KB at fp16.
    EXPECT_FALSE(has(findings("conv-utilization", singleConv(384, 64, 8, 8, 3)), "> 6 KB"));
    EXPECT_TRUE(has(findings("conv-utilization", singleConv(384, 64, 8, 8, 3), "rk3588", "fp16"), "> 6 KB"));
}

TEST(ConvUtilizationRule, KernelNotLargerThanStride) {
    ModelBuilder b;
    b.input("x", {1, 64, 32, 32}).output("y");
    conv(b, "x", "y", 64, 64, 2, 2, 1, 0);
    EXPECT_TRUE(has(findings("conv-utilization", b.build()), "Ksize/Kstride <= 1"));
    EXPECT_FALSE(has(findings("conv-utilization", singleConv(64, 64, 32, 32, 3, 2)), "Ksize/Kstride"));  // 3/2 is fine
}

TEST(ConvUtilizationRule, SmallOutputMapCostsAFullStripe) {
    Model m = singleConv(64, 64, 3, 3);  // 3x3 = 9 output pixels, the array computes 16
    auto f = findings("conv-utilization", m);
    const Finding* small = with(f, "output H*W = 3x3 = 9");
    ASSERT_TRUE(small);
    EXPECT_NEAR(small->estimatedGainUs, scaledGainUs(estimateOf(m).layers[0], 1000, 9.0 / 16.0), 1e-6);
}

TEST(ConvUtilizationRule, FewOutputChannels) {
    Model m = singleConv(64, 8, 16, 16);
    const std::vector<Finding> all = findings("conv-utilization", m);  // `with` points into it
    const Finding* few = with(all, "8 output channels per group, the array computes 32");
    ASSERT_TRUE(few);
    EXPECT_NEAR(few->estimatedGainUs, scaledGainUs(estimateOf(m).layers[0], 1000, 8.0 / 32.0), 1e-6);
}

TEST(ConvUtilizationRule, SilentOnAWellShapedConv) {
    EXPECT_TRUE(findings("conv-utilization", singleConv(64, 64, 16, 16, 3)).empty());
}
