// One-pass calibration statistics: the streaming histogram against a fixed-range one, exact merging, and the
// prefix-sum KL threshold search against the direct TensorRT formulation.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "quant/Observer.h"
#include "quant/StreamingHistogram.h"

using namespace npuwb::quant;

namespace {

// TensorRT's entropy calibration written out directly (O(bins) per threshold): the oracle for klThreshold.
float directKlThreshold(const Histogram& h, int levels) {
    const size_t bins = h.counts.size(), nq = static_cast<size_t>(levels);
    double best = std::numeric_limits<double>::infinity();
    size_t bestI = bins;
    double total = 0;
    std::vector<double> counts = h.counts;
    counts[0] = counts[1];  // the zero bin does not count (pytorch-quantization's entropy calibrator)
    for (double c : counts) total += c;
    for (size_t i = nq; i <= bins; ++i) {
        if (counts[i - 1] == 0 && i < bins) continue;
        std::vector<double> p(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(i)), q(i, 0.0);
        double kept = 0;
        for (double c : p) kept += c;
        p[i - 1] += total - kept;
        for (size_t level = 0; level < nq; ++level) {
            const size_t start = level * i / nq, stop = (level + 1) * i / nq;
            double sum = 0, nonEmpty = 0;
            for (size_t k = start; k < stop; ++k) {
                sum += counts[k];
                nonEmpty += counts[k] != 0;
            }
            for (size_t k = start; k < stop; ++k)
                if (counts[k] != 0) q[k] = sum / nonEmpty;
        }
        double ps = 0, qs = 0, kl = 0;
        for (size_t k = 0; k < i; ++k) {
            ps += p[k];
            qs += q[k];
        }
        for (size_t k = 0; k < i; ++k)
            if (p[k] > 0) kl += p[k] / ps * std::log((p[k] / ps) / (q[k] / qs));
        if (kl < best) {
            best = kl;
            bestI = i;
        }
    }
    return h.lo + static_cast<float>(bestI) * h.binWidth();
}

std::vector<float> sample(std::mt19937& rng, size_t n, float scale, float outlier) {
    std::normal_distribution<float> d(0.0f, scale);
    std::vector<float> v(n);
    for (auto& x : v) x = std::max(0.0f, d(rng)) + (rng() % 997 == 0 ? outlier : 0.0f);  // Relu-like with outliers
    return v;
}

ValueStats streamed(const std::vector<std::vector<float>>& batches, bool absolute) {
    ValueStats s(2048, absolute);
    for (const auto& b : batches) s.add(b);
    return s;
}

}  // namespace

TEST(QuantStreamingHistogram, KlThresholdMatchesDirectSearch) {
    std::mt19937 rng(3);
    for (int round = 0; round < 4; ++round) {
        const auto v = sample(rng, 200000, 1.0f + round, 20.0f * (round + 1));
        MinMax mm;
        mm.add(v);
        Histogram h(0.0f, mm.absMax(), 2048, true);
        h.add(v);
        EXPECT_FLOAT_EQ(klThreshold(h, 128), directKlThreshold(h, 128)) << "round " << round;
    }
}

TEST(QuantStreamingHistogram, GrowingRangeKeepsEveryValueAndEnoughResolution) {
    std::mt19937 rng(5);
    std::vector<std::vector<float>> batches;
    for (int b = 0; b < 6; ++b) batches.push_back(sample(rng, 5000, 0.5f * static_cast<float>(1 << b), 0.0f));
    for (bool absolute : {true, false}) {
        const ValueStats s = streamed(batches, absolute);
        const Histogram h = s.histogram.histogram();
        double total = 0;
        for (double c : h.counts) total += c;
        EXPECT_EQ(total, 6 * 5000.0);
        EXPECT_LE(h.lo, 0.0f);
        EXPECT_GE(h.hi, s.range.max);
        // The range grew 32x over the batches; the data still spans at least half the bins.
        EXPECT_GE(static_cast<double>(s.range.max - std::min(0.0f, s.range.min)) / h.binWidth(), 1024.0);
        EXPECT_LE(h.counts.size(), 2048u);
        // Every value sits in the bin that holds it.
        const float x = batches[5][17];
        const size_t bin = static_cast<size_t>((std::fabs(x) - h.lo) / h.binWidth());
        EXPECT_GT(h.counts[std::min(bin, h.counts.size() - 1)], 0.0);
    }
}

TEST(QuantStreamingHistogram, MergeOfWorkersEqualsOneStream) {
    std::mt19937 rng(7);
    std::vector<std::vector<float>> batches;
    for (int b = 0; b < 8; ++b) batches.push_back(sample(rng, 3000, 0.3f * static_cast<float>(b + 1), 5.0f * b));
    // Signed data too: shift half of the batches negative.
    for (size_t b = 0; b < batches.size(); b += 2)
        for (auto& x : batches[b]) x = -x;
    for (bool absolute : {true, false}) {
        const ValueStats all = streamed(batches, absolute);
        ValueStats even(2048, absolute), odd(2048, absolute);
        for (size_t b = 0; b < batches.size(); ++b) (b % 2 ? odd : even).add(batches[b]);
        even.merge(odd);
        const Histogram a = all.histogram.histogram(), m = even.histogram.histogram();
        ASSERT_EQ(all.histogram.exponent(), even.histogram.exponent());
        EXPECT_EQ(a.lo, m.lo);
        EXPECT_EQ(a.hi, m.hi);
        EXPECT_EQ(a.counts, m.counts);
        EXPECT_EQ(all.range.min, even.range.min);
        EXPECT_EQ(all.range.max, even.range.max);
    }
}

TEST(QuantStreamingHistogram, IgnoresNonFiniteAndConstantZero) {
    ValueStats s(2048, true);
    std::vector<float> zeros(50000, 0.0f);
    s.add(zeros);
    EXPECT_EQ(klThreshold(s.histogram.histogram(), 128) > 0.0f, true);  // any threshold: the range stays [0, 0]
    std::vector<float> v(50000, 1.5f);
    v[3] = std::numeric_limits<float>::quiet_NaN();
    v[9] = std::numeric_limits<float>::infinity();
    v[11] = -std::numeric_limits<float>::infinity();
    s.add(v);
    EXPECT_EQ(s.range.min, 0.0f);
    EXPECT_EQ(s.range.max, 1.5f);
    double total = 0;
    for (double c : s.histogram.histogram().counts) total += c;
    EXPECT_EQ(total, 50000.0 + 50000.0 - 3.0);
}

TEST(QuantStreamingHistogram, LargeTensorsBinOneElementInFiveWithExactMinMax) {
    ValueStats s(2048, false);
    std::vector<float> v(300001);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 1000) / 100.0f;
    v[1] = -7.0f;  // not on the stride: still the min and inside the window
    v[4] = 42.0f;  // not on the stride: still the max
    s.add(v);
    EXPECT_EQ(s.range.min, -7.0f);
    EXPECT_EQ(s.range.max, 42.0f);
    const Histogram h = s.histogram.histogram();
    EXPECT_LE(h.lo, -7.0f);
    EXPECT_GE(h.hi, 42.0f);
    double total = 0;
    for (double c : h.counts) total += c;
    // stride (300001 / 64K) | 1 = 5: one element from each window of 5; the last window holds one element only.
    EXPECT_GE(total, 60000.0);
    EXPECT_LE(total, 60001.0);
}

// A backend shows a value in its blocked layout (nChw16c: 16 channel lanes per pixel). A fixed stride of 15 took
// lane l only at pixels q with q + l = 0 (mod 3), since 16 = 1 (mod 3): a value that depends on (q + l) mod 3
// was sampled as one class only. The hashed pick takes every class about equally.
TEST(QuantStreamingHistogram, SampleFormsNoLatticeWithBlockedChannelLanes) {
    for (size_t pixels : {size_t{14400}, size_t{57600}}) {  // strides 15 (single elements) and 57 (cache-line runs)
        std::vector<float> v(pixels * 16 * 4);  // 4 blocks of 16 channels
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i / 16 + i % 16) % 3);
        std::vector<float> buffer;
        const std::span<const float> sample = ValueStats::histogramSample(v, buffer);
        ASSERT_LT(sample.size(), v.size() / 2);
        double counts[3] = {0, 0, 0};
        for (float x : sample) counts[static_cast<int>(x)] += 1;
        for (double c : counts) {
            EXPECT_GT(c / static_cast<double>(sample.size()), 0.28) << pixels << " pixels";
            EXPECT_LT(c / static_cast<double>(sample.size()), 0.39) << pixels << " pixels";
        }
    }
}

TEST(QuantStreamingHistogram, FiniteRangeSkipsNaNAndInf) {
    std::vector<float> v = {std::numeric_limits<float>::quiet_NaN(), 2.0f, -3.0f, 7.0f, 1.0f, 0.5f,
                            std::numeric_limits<float>::infinity(), -1.0f, 4.0f};
    const FiniteRange r = finiteRange(v);
    EXPECT_TRUE(r.any);
    EXPECT_TRUE(r.nonFinite);
    EXPECT_EQ(r.lo, -3.0f);
    EXPECT_EQ(r.hi, 7.0f);
    const FiniteRange clean = finiteRange(std::span<const float>(v).subspan(1, 5));
    EXPECT_FALSE(clean.nonFinite);
    EXPECT_EQ(clean.lo, -3.0f);
    EXPECT_EQ(clean.hi, 7.0f);
}
