// The attention core's fused score row (plugins/cpu-onednn/AttentionRowsAvx512.h) against the step-by-step row
// kernels it replaces (AttentionRows.h, fp16 rounding from npuwb/ir/Half.h): every prologue form, with and without the
// probabilities' QDQ, row lengths off the 16-lane steps, masks per element and per row, -inf (masked out) and NaN.
// Softmax values may differ by the order of the sum's terms (a few ulp, more for long rows); quantized probabilities by
// at most one step, and rarely.
#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <limits>
#include <random>
#include <vector>

#include "AttentionRows.h"
#include "AttentionRowsAvx512.h"
#include "OnednnQuantAvx512.h"
#include "npuwb/ir/Half.h"

using namespace npuwb::onednn;

namespace {

/// What AttentionKernel::applySteps does with the same steps, one pass each.
void stepByStep(std::vector<float>& x, const ScorePrologue& pre, const ProbabilityEpilogue& post) {
    const auto n = int64_t(x.size());
    if (pre.roundToHalf)
        for (float& v : x) v = npuwb::halfBitsToFloat(npuwb::floatToHalfBits(v));
    if (pre.scale == ScorePrologue::Scale::Multiply) multiplyRow(x.data(), n, pre.scaleValue);
    if (pre.scale == ScorePrologue::Scale::Divide) divideRow(x.data(), n, pre.scaleValue);
    if (pre.addend) addRow(x.data(), n, pre.addend, pre.addendStride);
    softmaxRow(x.data(), n);
    if (post.quantizeDequantize)
        quantizeDequantizeRow(x.data(), n, post.qScale, post.qZero, post.lo, post.hi, post.dScale, post.dZero);
}

class AttentionRowsAvx512 : public ::testing::Test {
protected:
    void SetUp() override {
        if (!avx512::available()) GTEST_SKIP() << "no AVX-512F on this CPU";
    }
    std::mt19937 rng{20261207};
};

TEST_F(AttentionRowsAvx512, MatchesTheStepsOneByOne) {
    std::normal_distribution<float> score(0.f, 4.f);
    const float inf = std::numeric_limits<float>::infinity();
    int64_t values = 0, quantized = 0, stepsOff = 0;
    for (const int64_t n : {1, 7, 16, 17, 50, 197, 256, 1500}) {
        for (int form = 0; form < 24; ++form) {
            ScorePrologue pre;
            pre.roundToHalf = form % 2;
            pre.scale = ScorePrologue::Scale(form / 2 % 3);
            pre.scaleValue = pre.scale == ScorePrologue::Scale::Divide ? 5.656854f : 0.125f;
            ProbabilityEpilogue post;
            if (form / 6 % 2) post = {.quantizeDequantize = true, .qScale = 1.f / 255.f, .qZero = 0.f, .lo = 0.f,
                                      .hi = 255.f, .dScale = 1.f / 255.f, .dZero = 0.f};
            const bool add = form / 12, perRow = n % 2;  // a mask per element, or one value for the row
            std::vector<float> addend(static_cast<size_t>(n));
            for (float& v : addend) v = score(rng) > 6.f ? -inf : -std::abs(score(rng));
            if (add) pre.addend = addend.data(), pre.addendStride = perRow ? 0 : 1;
            std::vector<float> x(static_cast<size_t>(n));
            for (float& v : x) v = score(rng);
            std::vector<float> want = x;
            stepByStep(want, pre, post);
            avx512::scoreRowSoftmax(x.data(), n, pre, post);
            for (int64_t i = 0; i < n; ++i) {
                const float a = want[size_t(i)], b = x[size_t(i)];
                ++values;
                if (std::isnan(a) || std::isnan(b)) {  // a row masked out entirely: NaN both ways
                    ASSERT_TRUE(std::isnan(a) && std::isnan(b)) << "n " << n << " form " << form << " [" << i << "]";
                    continue;
                }
                if (post.quantizeDequantize) {
                    const double steps = std::abs(double(a) - double(b)) / post.dScale;
                    ASSERT_LE(steps, 1.0 + 1e-3) << "n " << n << " form " << form << " [" << i << "]";
                    stepsOff += steps > 0.5;
                    ++quantized;
                } else {
                    // The sum of n exponentials in another order: its rounding grows with n.
                    ASSERT_NEAR(a, b, (2e-7f + 4e-9f * float(n)) * std::max(std::abs(a), 1e-30f) + 1e-38f)
                        << "n " << n << " form " << form << " [" << i << "]";
                }
            }
        }
    }
    EXPECT_EQ(values, 24 * (1 + 7 + 16 + 17 + 50 + 197 + 256 + 1500));
    EXPECT_LE(stepsOff * 1000, quantized) << "more than 0.1% of probabilities a step apart";
}

// The epilogue's shorter arithmetic is the portable loop's, bit for bit: exact half steps and their neighbours, values
// beyond either bound, infinities and NaN, u8 and s8 parameters with zero points.
TEST_F(AttentionRowsAvx512, QuantizeDequantizeIsThePortableRowBitForBit) {
    std::uniform_int_distribution<int> step(-300, 300);
    std::normal_distribution<float> normal(0.f, 100.f);
    const float inf = std::numeric_limits<float>::infinity();
    struct Params {
        float scale, zero, lo, hi, dScale, dZero;
    };
    const Params params[] = {{1.f / 255.f, 0.f, 0.f, 255.f, 1.f / 255.f, 0.f},
                             {0.0178f, 131.f, 0.f, 255.f, 0.0178f, 131.f},
                             {0.0625f, -3.f, -128.f, 127.f, 0.0625f, -3.f},
                             {3.1f, 7.f, -128.f, 127.f, 0.5f, 2.f}};
    for (const Params& p : params) {
        std::vector<float> x(16 * 40 + 5);
        for (size_t i = 0; i < x.size(); ++i) {
            const float half = (float(step(rng)) + 0.5f) * p.scale;
            x[i] = i % 3 == 0 ? half : i % 3 == 1 ? std::nextafter(half, i % 2 ? inf : -inf) : normal(rng) * p.scale;
        }
        const float extremes[] = {inf, -inf, std::numeric_limits<float>::quiet_NaN(), 1e30f, -1e30f, 0.f, -0.f};
        for (size_t i = 0; i < std::size(extremes); ++i) x[i * 13] = extremes[i];
        std::vector<float> want = x;
        quantizeDequantizeRow(want.data(), int64_t(want.size()), p.scale, p.zero, p.lo, p.hi, p.dScale, p.dZero);
        avx512::quantizeDequantizeRow(x.data(), int64_t(x.size()),
                                      {.quantizeDequantize = true, .qScale = p.scale, .qZero = p.zero, .lo = p.lo,
                                       .hi = p.hi, .dScale = p.dScale, .dZero = p.dZero});
        for (size_t i = 0; i < x.size(); ++i) {
            if (std::isnan(want[i])) {
                EXPECT_TRUE(std::isnan(x[i])) << i;
                continue;
            }
            EXPECT_EQ(want[i], x[i]) << "scale " << p.scale << " [" << i << "]";
        }
    }
}

TEST_F(AttentionRowsAvx512, ARowWithANanIsNanAndMaskedOutEntriesVanish) {
    for (const int64_t n : {5, 16, 40}) {
        std::vector<float> x(static_cast<size_t>(n), 1.f), mask(static_cast<size_t>(n), 0.f);
        x[3] = std::numeric_limits<float>::quiet_NaN();
        ScorePrologue pre{.roundToHalf = true, .scale = ScorePrologue::Scale::Multiply, .scaleValue = 0.5f};
        avx512::scoreRowSoftmax(x.data(), n, pre, {});
        for (float v : x) EXPECT_TRUE(std::isnan(v)) << n;
        std::fill(x.begin(), x.end(), 2.f);
        mask[0] = -std::numeric_limits<float>::infinity();
        pre.addend = mask.data();
        pre.addendStride = 1;
        avx512::scoreRowSoftmax(x.data(), n, pre, {});
        EXPECT_LT(x[0], 1e-37f);  // 2^-126 times 1/sum: gone next to any probability
        for (int64_t i = 1; i < n; ++i) EXPECT_NEAR(x[size_t(i)], 1.f / float(n - 1), 1e-6f) << n;
    }
}

}  // namespace
