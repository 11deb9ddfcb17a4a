// The AVX-512 quantize / dequantize / requantize / binary loops of cpu-onednn (plugins/cpu-onednn/OnednnQuantAvx512.h)
// against the rule the reference kernels follow, element by element and bit for bit: divide in float, round half to
// even, add the zero point, saturate (NaN to the lowest value). Seeded random values plus exact ties, huge values,
// infinities and NaN.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "OnednnQuantAvx512.h"

using namespace npuwb::onednn;

namespace {

template <class Q> Q quantizeScalar(float real, float scale, int32_t zero) {
    const float lo = std::numeric_limits<Q>::lowest(), hi = std::numeric_limits<Q>::max();
    const float v = real / scale;
    if (std::isnan(v)) return static_cast<Q>(lo);
    return static_cast<Q>(std::min(hi, std::max(lo, std::nearbyint(std::min(4.0e6f, std::max(-4.0e6f, v))) +
                                                        static_cast<float>(zero))));
}

template <class Q> float dequantizeScalar(Q q, int32_t zero, float scale) {
    return static_cast<float>(static_cast<int32_t>(q) - zero) * scale;
}

/// Random reals with every 7th an exact tie (k + 0.5 steps) and a few extremes.
std::vector<float> reals(size_t n, float scale, std::mt19937& rng) {
    std::normal_distribution<float> normal(0.f, 80.f * scale);
    std::uniform_int_distribution<int> step(-300, 300);
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = i % 7 == 3 ? (static_cast<float>(step(rng)) + 0.5f) * scale : normal(rng);
    const float extremes[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN(), 1e30f, -1e30f, 0.f, -0.f};
    for (size_t i = 0; i < std::size(extremes) && i * 11 < n; ++i) v[i * 11] = extremes[i];
    return v;
}

template <class Q> std::vector<Q> bytes(size_t n, std::mt19937& rng) {
    std::uniform_int_distribution<int> d(std::numeric_limits<Q>::lowest(), std::numeric_limits<Q>::max());
    std::vector<Q> v(n);
    for (auto& x : v) x = static_cast<Q>(d(rng));
    return v;
}

class QuantAvx512 : public ::testing::Test {
protected:
    void SetUp() override {
        if (!avx512::available()) GTEST_SKIP() << "no AVX-512F on this CPU";
    }
    std::mt19937 rng{20261202};
    const size_t n = 16 * 37;  // whole 16-element steps: the loops stop at the last one
    const float scales[3] = {0.0625f, 0.0178f, 3.1f};  // a power of two makes the ties exact
};

template <class Q> void checkQuantize(std::mt19937& rng, size_t n, float scale, int32_t zero) {
    const std::vector<float> in = reals(n, scale, rng);
    std::vector<Q> out(n);
    ASSERT_EQ(avx512::quantize<Q>(in.data(), out.data(), 0, n, scale, static_cast<float>(zero)), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], quantizeScalar<Q>(in[i], scale, zero)) << in[i] << " / " << scale;
}

template <class I, class O> void checkRequantize(std::mt19937& rng, size_t n, float si, int32_t zi, float so, int32_t zo) {
    const std::vector<I> in = bytes<I>(n, rng);
    std::vector<O> out(n);
    std::vector<float> real(n);
    ASSERT_EQ(avx512::dequantize<I>(in.data(), real.data(), 0, n, zi, si), n);
    ASSERT_EQ((avx512::requantize<I, O>(in.data(), out.data(), 0, n, zi, si, so, static_cast<float>(zo))), n);
    for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(real[i], dequantizeScalar(in[i], zi, si));
        ASSERT_EQ(out[i], quantizeScalar<O>(dequantizeScalar(in[i], zi, si), so, zo)) << int(in[i]);
    }
}

template <bool Multiply, class A, class B, class Y> void checkBinary(std::mt19937& rng, size_t n, float lo, float hi) {
    const std::vector<A> a = bytes<A>(n, rng);
    const std::vector<B> b = bytes<B>(n, rng);
    std::vector<Y> out(n);
    const int32_t za = std::is_signed_v<A> ? 3 : 128, zb = std::is_signed_v<B> ? -5 : 121, zy = std::is_signed_v<Y> ? 0 : 7;
    const float sa = 0.0213f, sb = 0.0371f, sy = Multiply ? 0.51f : 0.0625f;
    ASSERT_EQ((avx512::binary<Multiply, A, B, Y>(a.data(), b.data(), out.data(), 0, n, za, sa, zb, sb, sy,
                                                 static_cast<float>(zy), lo, hi)),
              n);
    for (size_t i = 0; i < n; ++i) {
        const float va = dequantizeScalar(a[i], za, sa), vb = dequantizeScalar(b[i], zb, sb);
        const float v = std::min(hi, std::max(lo, Multiply ? va * vb : va + vb));
        ASSERT_EQ(out[i], quantizeScalar<Y>(v, sy, zy)) << int(a[i]) << " " << int(b[i]);
    }
}

}  // namespace

TEST_F(QuantAvx512, QuantizeMatchesTheReferenceRule) {
    for (float s : scales) {
        checkQuantize<uint8_t>(rng, n, s, 128);
        checkQuantize<uint8_t>(rng, n, s, 0);
        checkQuantize<int8_t>(rng, n, s, 0);
        checkQuantize<int8_t>(rng, n, s, -17);
    }
}

TEST_F(QuantAvx512, DequantizeAndRequantizeMatchTheReferenceRule) {
    for (float s : scales) {
        checkRequantize<uint8_t, uint8_t>(rng, n, s, 131, 0.05f, 120);
        checkRequantize<uint8_t, int8_t>(rng, n, s, 0, 0.125f, 0);
        checkRequantize<int8_t, uint8_t>(rng, n, s, -3, 0.0625f, 99);
        checkRequantize<int8_t, int8_t>(rng, n, s, 0, s * 1.5f, 4);
    }
}

TEST_F(QuantAvx512, BinaryMatchesTheReferenceRule) {
    const float inf = std::numeric_limits<float>::infinity();
    checkBinary<false, uint8_t, uint8_t, uint8_t>(rng, n, -inf, inf);
    checkBinary<false, uint8_t, uint8_t, uint8_t>(rng, n, 0.f, inf);  // Relu
    checkBinary<false, int8_t, uint8_t, int8_t>(rng, n, 0.f, 6.f);    // Clip
    checkBinary<false, uint8_t, int8_t, int8_t>(rng, n, -inf, inf);
    checkBinary<true, uint8_t, uint8_t, uint8_t>(rng, n, -inf, inf);
    checkBinary<true, int8_t, int8_t, uint8_t>(rng, n, 0.f, inf);
}

TEST_F(QuantAvx512, StopsBeforeAPartialStep) {
    std::vector<float> in(40, 1.f);
    std::vector<uint8_t> out(40, 0);
    EXPECT_EQ(avx512::quantize<uint8_t>(in.data(), out.data(), 3, 40, 1.f, 0.f), 35u);  // 3 + 2 * 16
    EXPECT_EQ(out[2], 0);
    EXPECT_EQ(out[3], 1);
    EXPECT_EQ(out[35], 0);
}

TEST_F(QuantAvx512, ByteLookUpReadsEveryTableEntry) {
    if (!avx512::byteLookupAvailable()) GTEST_SKIP() << "no AVX-512 VBMI on this CPU";
    std::vector<uint8_t> table = bytes<uint8_t>(256, rng), in(5 + 64 * 9), out(in.size(), 0);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 7 + 3);  // every value, both halves
    EXPECT_EQ(avx512::lookUp(table.data(), in.data(), out.data(), 5, in.size()), in.size());
    for (size_t i = 0; i < 5; ++i) EXPECT_EQ(out[i], 0);
    for (size_t i = 5; i < in.size(); ++i) ASSERT_EQ(out[i], table[in[i]]) << "input " << int(in[i]);
}
