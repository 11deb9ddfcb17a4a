// GPTQ weight rounding: the rounding itself on known correlations, the patch correlations of a Conv against a
// brute-force computation, int4 least-squares clipping, and the QDQ export (integer weights in range, lower error).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "npuwb/NpySampleSource.h"
#include "npuwb/Quantizer.h"
#include "quant/WeightRounding.h"

using namespace npuwb;
using namespace npuwb::quant;

namespace {

/// Inputs sharing a common component (like neighbouring pixels): x_k = a + 0.1 n_k.
std::vector<double> correlatedInputs(size_t count, int64_t k, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> d(0.0, 1.0);
    std::vector<double> x(count * static_cast<size_t>(k));
    for (size_t i = 0; i < count; ++i) {
        const double common = d(rng);
        for (int64_t j = 0; j < k; ++j) x[i * static_cast<size_t>(k) + static_cast<size_t>(j)] = common + 0.1 * d(rng);
    }
    return x;
}

InputCorrelation correlationOf(const std::vector<double>& x, int64_t k) {
    InputCorrelation h;
    h.k = k;
    h.h.assign(static_cast<size_t>(k * k), 0.0);
    const size_t count = x.size() / static_cast<size_t>(k);
    for (size_t i = 0; i < count; ++i)
        for (int64_t a = 0; a < k; ++a)
            for (int64_t b = 0; b < k; ++b)
                h.h[static_cast<size_t>(a * k + b)] += x[i * k + a] * x[i * k + b] / static_cast<double>(count);
    h.patches = static_cast<double>(count);
    return h;
}

/// Mean squared output error E[((W_q - W) x)^2] over the inputs, all rows.
double outputError(const std::vector<float>& w, const std::vector<int8_t>& q, const std::vector<float>& scales,
                   int64_t rows, int64_t k, const std::vector<double>& x) {
    const size_t count = x.size() / static_cast<size_t>(k);
    double total = 0.0;
    for (int64_t r = 0; r < rows; ++r)
        for (size_t i = 0; i < count; ++i) {
            double e = 0.0;
            for (int64_t j = 0; j < k; ++j)
                e += (q[r * k + j] * double(scales[r]) - w[r * k + j]) * x[i * k + j];
            total += e * e;
        }
    return total / static_cast<double>(count * static_cast<size_t>(rows));
}

struct RoundingCase {
    std::vector<float> w, scales;
    int64_t rows = 8, k = 25;
};

RoundingCase randomWeights(int qmax) {
    RoundingCase c;
    std::mt19937 rng(3);
    std::normal_distribution<float> d(0.0f, 0.2f);
    c.w.resize(static_cast<size_t>(c.rows * c.k));
    for (auto& v : c.w) v = d(rng);
    for (int64_t r = 0; r < c.rows; ++r) {
        float m = 0.0f;
        for (int64_t j = 0; j < c.k; ++j) m = std::max(m, std::fabs(c.w[r * c.k + j]));
        c.scales.push_back(m / static_cast<float>(qmax));
    }
    return c;
}

std::vector<int8_t> nearestRounding(const RoundingCase& c, int qmin, int qmax) {
    std::vector<int8_t> q;
    for (int64_t r = 0; r < c.rows; ++r)
        for (int64_t j = 0; j < c.k; ++j)
            q.push_back(static_cast<int8_t>(
                std::clamp(std::nearbyint(double(c.w[r * c.k + j]) / c.scales[r]), double(qmin), double(qmax))));
    return q;
}

}  // namespace

TEST(WeightRounding, UncorrelatedInputsRoundToNearest) {
    // With H diagonal no error can be compensated elsewhere: GPTQ is plain rounding.
    const RoundingCase c = randomWeights(127);
    InputCorrelation h;
    h.k = c.k;
    h.h.assign(static_cast<size_t>(c.k * c.k), 0.0);
    for (int64_t i = 0; i < c.k; ++i) h.h[static_cast<size_t>(i * c.k + i)] = 1.0 + 0.1 * static_cast<double>(i);
    const auto q = roundWithFeedback(c.w.data(), c.rows, c.k, [&](int64_t r, int64_t) { return c.scales[r]; }, -127,
                                     127, h);
    EXPECT_EQ(q, nearestRounding(c, -127, 127));
}

TEST(WeightRounding, CorrelatedInputsLowerTheOutputError) {
    const std::vector<double> calib = correlatedInputs(4000, 25, 11), held = correlatedInputs(4000, 25, 12);
    const InputCorrelation h = correlationOf(calib, 25);
    for (int qmax : {7, 127}) {
        const int qmin = qmax == 7 ? -8 : -127;
        const RoundingCase c = randomWeights(qmax);
        const auto nearest = nearestRounding(c, qmin, qmax);
        const auto gptq = roundWithFeedback(c.w.data(), c.rows, c.k, [&](int64_t r, int64_t) { return c.scales[r]; },
                                            qmin, qmax, h);
        for (int8_t v : gptq) {
            EXPECT_GE(v, qmin);
            EXPECT_LE(v, qmax);
        }
        const double en = outputError(c.w, nearest, c.scales, c.rows, c.k, held);
        const double eg = outputError(c.w, gptq, c.scales, c.rows, c.k, held);
        std::printf("qmax %d: output MSE nearest %.3g, gptq %.3g (held-out inputs)\n", qmax, en, eg);
        EXPECT_LT(eg, 0.5 * en) << "qmax " << qmax;
    }
}

TEST(WeightRounding, SingularCorrelationFallsBackToNearest) {
    const RoundingCase c = randomWeights(127);
    InputCorrelation h;
    h.k = c.k;
    h.h.assign(static_cast<size_t>(c.k * c.k), 0.0);  // no input ever seen
    const auto q = roundWithFeedback(c.w.data(), c.rows, c.k, [&](int64_t r, int64_t) { return c.scales[r]; }, -127,
                                     127, h);
    EXPECT_EQ(q, nearestRounding(c, -127, 127));
    EXPECT_THROW(weightRoundingFromName("stochastic"), Error);
    EXPECT_EQ(weightRoundingFromName("gptq"), WeightRounding::Gptq);
}

namespace {

// x [1, 4, 6, 6] -> Conv(4 -> 4, 3x3, pads 1, stride 2, group `group`) -> y.
Model convModel(int64_t group) {
    Model m;
    m.opsetImports[""] = 13;
    Graph& g = m.graph;
    g.inputs.push_back({"x", {ValueType::Kind::Tensor, DType::F32, SymShape{Dim::of(1), Dim::of(4), Dim::of(6), Dim::of(6)}, {}}});
    g.outputs.push_back({"y", {ValueType::Kind::Tensor, DType::F32, std::nullopt, {}}});
    std::mt19937 rng(5);
    std::normal_distribution<float> d(0.0f, 0.5f);
    Tensor w(DType::F32, {4, 4 / group, 3, 3});
    for (auto& v : w.values<float>()) v = d(rng);
    g.initializers["w"] = w;
    g.initializers["b"] = Tensor(DType::F32, {4});
    Node c;
    c.name = "conv";
    c.opType = "Conv";
    c.inputs = {"x", "w", "b"};
    c.outputs = {"y"};
    auto ints = [](std::vector<int64_t> v) {
        Attribute a;
        a.kind = Attribute::Kind::Ints;
        a.ints = std::move(v);
        return a;
    };
    c.attributes["pads"] = ints({1, 1, 1, 1});
    c.attributes["strides"] = ints({2, 2});
    Attribute groupAttr;
    groupAttr.kind = Attribute::Kind::Int;
    groupAttr.i = group;
    c.attributes["group"] = groupAttr;
    g.nodes = {c};
    return m;
}

/// Smooth inputs (a ramp plus noise per channel), so neighbouring patch elements correlate.
MemorySampleSource smoothSamples(size_t n) {
    std::mt19937 rng(9);
    std::normal_distribution<float> d(0.0f, 1.0f);
    std::vector<Sample> samples;
    for (size_t i = 0; i < n; ++i) {
        Tensor t(DType::F32, {1, 4, 6, 6});
        float* p = t.data<float>();
        for (int c = 0; c < 4; ++c) {
            const float base = d(rng);
            for (int y = 0; y < 6; ++y)
                for (int x = 0; x < 6; ++x) p[(c * 6 + y) * 6 + x] = base + 0.05f * static_cast<float>(x + y) + 0.05f * d(rng);
        }
        samples.push_back({{{"x", t}}, "sample " + std::to_string(i)});
    }
    return MemorySampleSource(std::move(samples));
}

}  // namespace

TEST(WeightRounding, ConvPatchCorrelationMatchesBruteForce) {
    for (int64_t group : {1, 2, 4}) {
        const Model m = convModel(group);
        const MemorySampleSource data = smoothSamples(3);
        CorrelationOptions o;
        o.executor.backend = "reference";
        const InputCorrelations all = collectInputCorrelations(m, data, o);
        ASSERT_EQ(all.count("w"), 1u);
        const InputCorrelation& h = *all.at("w");
        const int64_t cpg = 4 / group, k = cpg * 9;
        ASSERT_EQ(h.k, k);
        ASSERT_EQ(h.groups, group);
        // Every output position of every sample (3 x 3 x 3 = 27 patches per group).
        EXPECT_EQ(h.patches, 27.0);
        std::vector<double> expected(static_cast<size_t>(group * k * k), 0.0);
        for (size_t s = 0; s < data.size(); ++s) {
            const Tensor x = data.load(s).inputs.at("x");
            const float* p = x.data<float>();
            for (int64_t oy = 0; oy < 3; ++oy)
                for (int64_t ox = 0; ox < 3; ++ox)
                    for (int64_t g = 0; g < group; ++g) {
                        std::vector<double> patch;
                        for (int64_t c = g * cpg; c < (g + 1) * cpg; ++c)
                            for (int64_t ky = 0; ky < 3; ++ky)
                                for (int64_t kx = 0; kx < 3; ++kx) {
                                    const int64_t y = oy * 2 - 1 + ky, xx = ox * 2 - 1 + kx;
                                    patch.push_back(y >= 0 && y < 6 && xx >= 0 && xx < 6 ? p[(c * 6 + y) * 6 + xx] : 0.0);
                                }
                        for (int64_t a = 0; a < k; ++a)
                            for (int64_t b = 0; b < k; ++b)
                                expected[static_cast<size_t>((g * k + a) * k + b)] += patch[a] * patch[b] / 27.0;
                    }
        }
        for (size_t i = 0; i < expected.size(); ++i) ASSERT_NEAR(h.h[i], expected[i], 1e-5) << "group " << group << " element " << i;
    }
}

TEST(WeightRounding, LeastSquaresClipCutsAnOutlierOnly) {
    // 31 small values and one outlier: 16 levels over the outlier's range leave the rest on 2-3 levels.
    std::vector<float> v(32);
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.1f * std::sin(static_cast<float>(i));
    v[7] = 1.0f;
    const float bound = leastSquaresAbsMax(v.data(), 32, 7);
    EXPECT_LT(bound, 1.0f);
    EXPECT_GE(bound, 0.6f);
    // Values exactly on the max-abs grid: nothing to gain, the bound stays.
    std::vector<float> grid;
    for (int q = -7; q <= 7; ++q) grid.push_back(0.5f * static_cast<float>(q) / 7.0f);
    EXPECT_EQ(leastSquaresAbsMax(grid.data(), static_cast<int64_t>(grid.size()), 7), 0.5f);
    EXPECT_EQ(leastSquaresAbsMax(std::vector<float>(4, 0.0f).data(), 4, 7), 0.0f);
}

TEST(WeightRounding, GptqExportLowersError) {
    const Model m = convModel(1);
    const MemorySampleSource data = smoothSamples(16);
    QuantizeOptions o;
    o.executor.backend = "reference";
    o.scheme = Scheme::W4A16;
    o.prepare = false;
    const QuantizeResult nearest = quantizeModel(m, data, o);
    o.weightRounding = WeightRounding::Gptq;
    const QuantizeResult gptq = quantizeModel(m, data, o);
    EXPECT_EQ(gptq.model.metadata.at("npuwb.quant.weight_rounding"), "gptq");
    EXPECT_EQ(nearest.model.metadata.at("npuwb.quant.weight_rounding"), "nearest");
    // Same layout; an int4 group's scale may only shrink (least-squares clipping).
    const Tensor& sn = nearest.model.graph.initializers.at("w_scale");
    const Tensor& sg = gptq.model.graph.initializers.at("w_scale");
    ASSERT_EQ(sn.numel(), sg.numel());
    for (int64_t i = 0; i < sn.numel(); ++i) EXPECT_LE(sg.elementAsDouble(i), sn.elementAsDouble(i));
    const Tensor& qn = nearest.model.graph.initializers.at("w_int4");
    const Tensor& qg = gptq.model.graph.initializers.at("w_int4");
    EXPECT_NE(std::vector<int8_t>(qn.values<int8_t>().begin(), qn.values<int8_t>().end()),
              std::vector<int8_t>(qg.values<int8_t>().begin(), qg.values<int8_t>().end()));
    for (int8_t v : qg.values<int8_t>()) {
        EXPECT_GE(v, -8);
        EXPECT_LE(v, 7);
    }
    const double cn = outputCosine(m, nearest.model, data, 16, {.backend = kReferenceBackend, .threads = 1});
    const double cg = outputCosine(m, gptq.model, data, 16, {.backend = kReferenceBackend, .threads = 1});
    std::printf("w4a16 output cosine: nearest %.6f, gptq %.6f\n", cn, cg);
    EXPECT_GT(1.0 - cn, 1.25 * (1.0 - cg)) << "gptq should cut the int4 error";
}
