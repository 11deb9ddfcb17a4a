// quantize: an fp16 run gains the fp16-minus-int8 estimate; at int8 the estimate already assumes quantization, so a
// float model gains nothing in it (the finding says what fp16 would cost); Q/DQ models at int8 get no finding.
#include "AdvisorTestUtil.h"

using namespace npuwb;
using namespace npuwb::advisor;
using namespace npuwb::advisor::testing;

namespace {
Model qdqConv() {
    ModelBuilder b;
    b.input("x", {1, 32, 16, 16}).output("y");
    b.constant("s", Tensor::scalar<float>(0.05f)).constant("zp", Tensor::scalar<uint8_t>(128));
    b.node("QuantizeLinear", {"x", "s", "zp"}, {"q"}, "quant");
    b.node("DequantizeLinear", {"q", "s", "zp"}, {"dq"}, "dequant");
    conv(b, "dq", "y", 32, 32, 3);
    return b.build();
}
}  // namespace

TEST(QuantizeRule, AnFp16RunGainsTheFp16MinusInt8Estimate) {
    Model m = singleConv(64, 64, 32, 32, 3);
    auto f = findings("quantize", m, "rk3588", "fp16");
    ASSERT_EQ(f.size(), 1u);
    double gain = estimateOf(m, "rk3588", "fp16").run.medianUs - estimateOf(m).run.medianUs;
    EXPECT_GT(gain, 0.0);
    EXPECT_NEAR(f[0].estimatedGainUs, gain, 1e-6);
    f = findings("quantize", m);  // at int8 the estimate already assumes quantization: nothing to gain in it
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].estimatedGainUs, 0.0);
    EXPECT_EQ(f[0].guideSection, "5.2.3");
    ASSERT_EQ(findings("quantize", m, "rk3588", "fp16").size(), 1u);
    EXPECT_EQ(findings("quantize", m, "rk3588", "fp16")[0].severity, "high");
}

TEST(QuantizeRule, SuggestionCitesTheVendorGuideSection) {
    auto f = findings("quantize", singleConv(64, 64, 32, 32, 3));
    ASSERT_EQ(f.size(), 1u);
    const std::string mitigation = toSuggestion(f[0]).mitigation;
    const std::string citation = " (RKNN SDK user guide V2.5.0, 5.2.3)";
    ASSERT_GE(mitigation.size(), citation.size());
    EXPECT_EQ(mitigation.substr(mitigation.size() - citation.size()), citation) << mitigation;
}

TEST(QuantizeRule, Int8OnlyChipSaysQuantizationIsRequired) {
    auto f = findings("quantize", singleConv(64, 64, 16, 16, 3), "rv1106");
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].hazard.find("int8 only"), std::string::npos) << f[0].hazard;
}

TEST(QuantizeRule, SilentOnAQuantizedModelAtInt8) {
    Model m = qdqConv();
    EXPECT_TRUE(findings("quantize", m).empty());
    EXPECT_EQ(findings("quantize", m, "rk3588", "fp16").size(), 1u);  // running it at fp16 is still worth a finding
}
