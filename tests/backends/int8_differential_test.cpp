// int8 differential tests: seeded random QDQ graphs (Int8Cases.h: QuantizeLinear/DequantizeLinear around Conv, Gemm,
// MatMul, Add, MaxPool; per-channel and per-tensor s8 weights, u8 and s8 activations with zero points, int32 bias) run
// by the reference executor and by each fast backend (cpu-xnnpack's run is xnnpack_int8_test.cpp). The backend
// computes in int32 and requantizes once, the reference in float, so results may differ by one quantization step near
// rounding boundaries (see plugins/cpu-onednn/OnednnQuant.h): the test fails on any difference above 1 LSB and prints how many elements differ by one. It also
// checks that the fused int8 kernel was used (one kernel timing the anchor op and its QuantizeLinear), not a float
// round trip.
#include <gtest/gtest.h>

#include <cstdlib>

#include "Int8Cases.h"
#include "backend/Backend.h"

using namespace npuwb;
using namespace npuwb::int8test;

namespace {

/// Backends with int8 paths (NPUWB_TEST_BACKENDS narrows the set, as in the float differential test).
std::vector<std::string> int8Backends() {
    std::vector<std::string> found = availableBackends(), out;
    std::string only = std::getenv("NPUWB_TEST_BACKENDS") ? std::getenv("NPUWB_TEST_BACKENDS") : "";
    for (const auto& b : found)
        if (b == "cpu-onednn" && (only.empty() || only.find(b) != std::string::npos)) out.push_back(b);
    return out;
}

}  // namespace

class Int8Differential : public ::testing::TestWithParam<std::string> {};

TEST_P(Int8Differential, MatchesReferenceWithinOneStep) {
    const std::string backend = GetParam();
    auto cases = int8Cases(20261129);
    ASSERT_GT(cases.size(), 50u);
    Int8Tally tally;
    for (const auto& k : cases) {
        Int8Outcome o = runInt8Case(k, backend);
        EXPECT_TRUE(o.passed) << backend << ": " << k.c.label << ": " << o.message;
        EXPECT_TRUE(o.claimed && o.fused) << backend << ": " << k.c.label << ": " << o.message;
        tally.add(k, o);
    }
    tally.print(backend);
    // Off-by-one is the documented exception at rounding boundaries, not the rule.
    EXPECT_LT(tally.offByOne * 100, tally.elements) << "more than 1% of elements differ by a step";
}

INSTANTIATE_TEST_SUITE_P(Plugins, Int8Differential, ::testing::ValuesIn(int8Backends()), [](const auto& info) {
    std::string n = info.param;
    for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return n;
});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Int8Differential);
