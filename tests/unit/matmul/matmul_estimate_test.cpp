// The cost model's matmul estimate: the MAC array per cycle is B's native block (so the peaks follow table 4-3),
// weights dominate at M = 1 (DDR-bound), compute at large M, and alignment padding is charged.
#include <gtest/gtest.h>

#include <filesystem>

#include "npuwb/Error.h"
#include "npuwb/Matmul.h"

using namespace npuwb;

namespace {

ChipProfile chip(const std::string& name) {
    return loadChipProfile(
        (std::filesystem::path(NPUWB_SOURCE_DIR) / "resources" / "chips" / (name + ".json")).string());
}

MatmulSpec spec(MatmulType type, int64_t K, int64_t N) {
    MatmulSpec s;
    s.type = type;
    s.K = K;
    s.N = N;
    return s;
}

}  // namespace

TEST(MatmulEstimate, PeaksFollowTheNativeBBlock) {
    const ChipProfile rk3588 = chip("rk3588"), rk3566 = chip("rk3566"), rk3576 = chip("rk3576");
    EXPECT_DOUBLE_EQ(estimateMatmul(spec(MatmulType::Int8xInt8ToInt32, 64, 64), 1, rk3588).peakGops, 2048);
    EXPECT_DOUBLE_EQ(estimateMatmul(spec(MatmulType::Int8xInt8ToInt32, 64, 64), 1, rk3588, 3).peakGops, 6144);
    EXPECT_DOUBLE_EQ(estimateMatmul(spec(MatmulType::Fp16xFp16ToFp32, 64, 64), 1, rk3588).peakGops, 1024);
    EXPECT_DOUBLE_EQ(estimateMatmul(spec(MatmulType::Int4xInt4ToInt16, 64, 64), 1, rk3588).peakGops, 4096);
    EXPECT_DOUBLE_EQ(estimateMatmul(spec(MatmulType::Int8xInt8ToInt32, 64, 64), 1, rk3566).peakGops, 1024);
    EXPECT_DOUBLE_EQ(estimateMatmul(spec(MatmulType::Fp16xFp16ToFp16, 64, 64), 1, rk3566).peakGops, 256);
    // fp16 x int4 on RK3576 runs on the fp16 array (B takes the fp16 layout).
    EXPECT_DOUBLE_EQ(estimateMatmul(spec(MatmulType::Fp16xInt4ToFp32, 64, 64), 1, rk3576).peakGops, 1024);
}

TEST(MatmulEstimate, DecodeIsBandwidthBoundAndPrefillUsesTheArrayFarBetter) {
    const ChipProfile rk3588 = chip("rk3588");
    // An LLM projection: decode (M = 1) reads every weight for one row; a 256-token prefill reuses them 256 times.
    // With the DDR efficiency fitted on the model zoo (about 30 % of the theoretical bandwidth) and weights larger
    // than the NPU buffer re-read per input tile, even the prefill stays DDR-bound here, so the test asserts the
    // ratio rather than which side wins (NPU/DDR cycles: decode 0.17, prefill 0.82).
    const MatmulSpec s = spec(MatmulType::Int8xInt8ToInt32, 1024, 1024);
    const MatmulEstimate decode = estimateMatmul(s, 1, rk3588), prefill = estimateMatmul(s, 256, rk3588);
    EXPECT_GT(decode.ddrCycles, decode.npuCycles);
    EXPECT_GT(prefill.npuCycles / prefill.ddrCycles, 4 * decode.npuCycles / decode.ddrCycles);
    EXPECT_GT(prefill.macUsagePercent, 4 * decode.macUsagePercent);
    EXPECT_GT(prefill.timeUs, decode.timeUs);
    EXPECT_GE(decode.bytesMoved, 1024 * 1024);  // every int8 weight read once
    EXPECT_LT(prefill.macUsagePercent, 100.0);
    // N = 100 is charged as the 128 columns the 32-wide array computes.
    EXPECT_EQ(estimateMatmul(spec(MatmulType::Int8xInt8ToInt32, 64, 100), 64, rk3588).paddedMacs, 64 * 64 * 128);
    EXPECT_THROW(estimateMatmul(s, 1, chip("rv1106")), Error);
}
