// The plain matmul reference against hand-computed results: exact integer sums with zero points, requantization
// (round half to even, saturation), int16 saturation of int4 x int4, per-group parameters, fp16/bf16 rounding.
#include <gtest/gtest.h>

#include <cmath>

#include "npuwb/ir/Half.h"
#include "npuwb/sdk/MatmulKernel.h"

using namespace npuwb;

namespace {

MatmulKernelSpec kspec(MatmulType type, int64_t M, int64_t K, int64_t N) {
    MatmulKernelSpec s;
    s.type = type;
    s.mValues = {M};
    s.K = K;
    s.N = N;
    return s;
}

std::vector<uint8_t> packInt4(const std::vector<int>& values) {
    std::vector<uint8_t> packed((values.size() + 1) / 2, 0);
    for (size_t i = 0; i < values.size(); ++i) setInt4(packed.data(), int64_t(i), values[i]);
    return packed;
}

}  // namespace

TEST(MatmulReference, Int8ToInt32IsTheExactSum) {
    const std::vector<int8_t> a = {1, -2, 3, 127, -128, 5};  // 2 x 3
    const std::vector<int8_t> b = {4, -1, 0, 2, -128, 127};  // 3 x 2
    std::vector<int32_t> c(4);
    referenceMatmul(kspec(MatmulType::Int8xInt8ToInt32, 2, 3, 2), 2, a.data(), b.data(), c.data());
    EXPECT_EQ(c, (std::vector<int32_t>{1 * 4 + -2 * 0 + 3 * -128, 1 * -1 + -2 * 2 + 3 * 127,
                                       127 * 4 + -128 * 0 + 5 * -128, 127 * -1 + -128 * 2 + 5 * 127}));
    // TP_NORM: the same B given as [N,K].
    const std::vector<int8_t> bt = {4, 0, -128, -1, 2, 127};
    MatmulKernelSpec t = kspec(MatmulType::Int8xInt8ToInt32, 2, 3, 2);
    t.bTransposed = true;
    std::vector<int32_t> ct(4);
    referenceMatmul(t, 2, a.data(), bt.data(), ct.data());
    EXPECT_EQ(ct, c);
}

TEST(MatmulReference, ZeroPointsPerLayerAndPerChannel) {
    const std::vector<int8_t> a = {10, 20};      // 1 x 2, zA = 3
    const std::vector<int8_t> b = {1, 2, 3, 4};  // 2 x 2, zB = {1, -2} per channel
    MatmulKernelSpec s = kspec(MatmulType::Int8xInt8ToInt32, 1, 2, 2);
    s.a.scales = {1.0f};
    s.a.zeroPoints = {3};
    s.b.granularity = QuantGranularity::PerChannel;
    s.b.scales = {1.0f, 1.0f};
    s.b.zeroPoints = {1, -2};
    std::vector<int32_t> c(2);
    referenceMatmul(s, 1, a.data(), b.data(), c.data());
    EXPECT_EQ(c[0], (10 - 3) * (1 - 1) + (20 - 3) * (3 - 1));
    EXPECT_EQ(c[1], (10 - 3) * (2 + 2) + (20 - 3) * (4 + 2));
}

// int8 C: C = saturate(round_half_even(sA * sB * acc / sC) + zC).
TEST(MatmulReference, Int8OutputRoundsHalfToEvenAndSaturates) {
    const std::vector<int8_t> b = {1};
    MatmulKernelSpec s = kspec(MatmulType::Int8xInt8ToInt8, 1, 1, 1);
    s.a.scales = {0.5f};
    s.b.scales = {1.0f};
    s.c.scales = {1.0f};
    s.c.zeroPoints = {-3};
    struct Case {
        int8_t a;
        int8_t expected;
    };
    // acc = a; v = a / 2: 5 -> 2.5 -> 2, 7 -> 3.5 -> 4, -5 -> -2.5 -> -2; then + zC = -3; 127 -> 63.5 -> 64 - 3.
    for (const Case& k : {Case{5, 2 - 3}, Case{7, 4 - 3}, Case{-5, -2 - 3}, Case{127, 64 - 3}}) {
        int8_t c = 0;
        referenceMatmul(s, 1, &k.a, b.data(), &c);
        EXPECT_EQ(c, k.expected) << int(k.a);
    }
    s.a.scales = {4.0f};  // 127 * 4 = 508 -> 127; -128 * 4 -> -128
    for (const Case& k : {Case{127, 127}, Case{-128, -128}}) {
        int8_t c = 0;
        referenceMatmul(s, 1, &k.a, b.data(), &c);
        EXPECT_EQ(c, k.expected) << int(k.a);
    }
}

// int4 x int4 -> int16: sums beyond int16 saturate.
TEST(MatmulReference, Int4ToInt16Saturates) {
    const int64_t K = 1024;
    const auto a = packInt4(std::vector<int>(K, -8));
    const auto b = packInt4([&] {
        std::vector<int> v(size_t(K * 2));
        for (int64_t k = 0; k < K; ++k) {
            v[size_t(k * 2)] = -8;                 // column 0: 64 per row -> 65536 -> 32767
            v[size_t(k * 2 + 1)] = k < 4 ? 7 : 0;  // column 1: 4 x -56 = -224 (in range)
        }
        return v;
    }());
    std::vector<int16_t> c(2);
    referenceMatmul(kspec(MatmulType::Int4xInt4ToInt16, 1, K, 2), 1, a.data(), b.data(), c.data());
    EXPECT_EQ(c[0], 32767);
    EXPECT_EQ(c[1], -224);
    const auto positive = packInt4(std::vector<int>(K, 7));
    referenceMatmul(kspec(MatmulType::Int4xInt4ToInt16, 1, K, 2), 1, positive.data(), b.data(), c.data());
    EXPECT_EQ(c[0], -32768);  // 7 x -8 x 1024 = -57344
}

// Per group: v = sA * sum_g sB[g,n] * acc_g, groups of K, parameters stored group-major.
TEST(MatmulReference, PerGroupScalesAndZeroPoints) {
    const std::vector<int8_t> a = {1, 2, 3, 4};             // 1 x 4, two groups of 2
    const auto b = packInt4({1, -1, 2, -2, 3, -3, 4, -4});  // 4 x 2
    MatmulKernelSpec s = kspec(MatmulType::Int8xInt4ToFp16, 1, 4, 2);
    s.b.granularity = QuantGranularity::PerGroup;
    s.b.groupSize = 2;
    s.b.scales = {0.5f, 0.25f, 2.0f, 4.0f};  // [g0 n0, g0 n1, g1 n0, g1 n1]
    s.b.zeroPoints = {1, 0, -1, 2};
    std::vector<uint16_t> c(2);
    referenceMatmul(s, 1, a.data(), b.data(), c.data());
    const double n0 = 0.5 * (1 * (1 - 1) + 2 * (2 - 1)) + 2.0 * (3 * (3 + 1) + 4 * (4 + 1));
    const double n1 = 0.25 * (1 * -1 + 2 * -2) + 4.0 * (3 * (-3 - 2) + 4 * (-4 - 2));
    EXPECT_EQ(c[0], floatToHalfBits(float(n0)));
    EXPECT_EQ(c[1], floatToHalfBits(float(n1)));
}

// fp16 A: fp32 accumulation of A x real(B), rounded once to the output type.
TEST(MatmulReference, Fp16TypesAccumulateInFp32AndRoundOnce) {
    const int64_t K = 3;
    const std::vector<uint16_t> a = {floatToHalfBits(0.1f), floatToHalfBits(-2.5f), floatToHalfBits(1000.0f)};
    const std::vector<uint16_t> b = {floatToHalfBits(3.0f), floatToHalfBits(0.333f), floatToHalfBits(0.001f)};
    const float sum = halfBitsToFloat(a[0]) * halfBitsToFloat(b[0]) + halfBitsToFloat(a[1]) * halfBitsToFloat(b[1]) +
                      halfBitsToFloat(a[2]) * halfBitsToFloat(b[2]);
    float c32 = 0;
    referenceMatmul(kspec(MatmulType::Fp16xFp16ToFp32, 1, K, 1), 1, a.data(), b.data(), &c32);
    EXPECT_FLOAT_EQ(c32, sum);
    uint16_t c16 = 0;
    referenceMatmul(kspec(MatmulType::Fp16xFp16ToFp16, 1, K, 1), 1, a.data(), b.data(), &c16);
    EXPECT_EQ(c16, floatToHalfBits(c32));
    // int4 B dequantized per channel; bf16 C.
    const auto q = packInt4({-8, 7, 3});
    MatmulKernelSpec w4 = kspec(MatmulType::Fp16xInt4ToBf16, 1, K, 1);
    w4.b.granularity = QuantGranularity::PerChannel;
    w4.b.scales = {0.125f};
    w4.b.zeroPoints = {-1};
    uint16_t cb = 0;
    referenceMatmul(w4, 1, a.data(), q.data(), &cb);
    const float expected =
        halfBitsToFloat(a[0]) * 0.125f * -7 + halfBitsToFloat(a[1]) * 0.125f * 8 + halfBitsToFloat(a[2]) * 0.125f * 4;
    EXPECT_EQ(cb, floatToBFloat16Bits(expected));
}
