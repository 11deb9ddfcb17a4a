// Observers on known distributions, quantization rules, QDQ structure, bias int32, streaming and cancel.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "npuwb/ModelIO.h"
#include "npuwb/Accuracy.h"
#include "npuwb/NpySampleSource.h"
#include "quant/Observer.h"
#include "npuwb/Quantizer.h"
#include "npuwb/Session.h"

using namespace npuwb;
using namespace npuwb::quant;

namespace {

std::vector<float> gaussianWithOutliers(size_t n, size_t outliers, float outlierValue) {
    std::mt19937 rng(42);
    std::normal_distribution<float> d(0.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    for (size_t i = 0; i < outliers; ++i) v[i] = outlierValue;
    return v;
}

// Conv(3->4, 3x3) + bias -> Relu -> Conv(4->2, 1x1): small enough for many tests.
Model tinyConvModel() {
    Model m;
    m.opsetImports[""] = 13;
    Graph& g = m.graph;
    g.inputs.push_back({"x", {ValueType::Kind::Tensor, DType::F32, SymShape{Dim::of(1), Dim::of(3), Dim::of(8), Dim::of(8)}, {}}});
    g.outputs.push_back({"y", {ValueType::Kind::Tensor, DType::F32, std::nullopt, {}}});
    std::mt19937 rng(1);
    std::normal_distribution<float> d(0.0f, 0.5f);
    auto randomTensor = [&](Shape s) {
        Tensor t(DType::F32, s);
        for (auto& v : t.values<float>()) v = d(rng);
        return t;
    };
    g.initializers["w1"] = randomTensor({4, 3, 3, 3});
    g.initializers["b1"] = randomTensor({4});
    g.initializers["w2"] = randomTensor({2, 4, 1, 1});
    Node c1;
    c1.name = "conv1";
    c1.opType = "Conv";
    c1.inputs = {"x", "w1", "b1"};
    c1.outputs = {"c1"};
    Attribute pads;
    pads.kind = Attribute::Kind::Ints;
    pads.ints = {1, 1, 1, 1};
    c1.attributes["pads"] = pads;
    Node r;
    r.name = "relu";
    r.opType = "Relu";
    r.inputs = {"c1"};
    r.outputs = {"r1"};
    Node c2;
    c2.name = "conv2";
    c2.opType = "Conv";
    c2.inputs = {"r1", "w2"};
    c2.outputs = {"y"};
    g.nodes = {c1, r, c2};
    return m;
}

MemorySampleSource randomSamples(size_t n, unsigned seed = 7) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> d(0.0f, 1.0f);
    std::vector<Sample> samples;
    for (size_t i = 0; i < n; ++i) {
        Tensor t(DType::F32, {1, 3, 8, 8});
        for (auto& v : t.values<float>()) v = d(rng);
        samples.push_back({{{"x", t}}, "sample " + std::to_string(i)});
    }
    return MemorySampleSource(std::move(samples));
}

const Node* findOp(const Model& m, const std::string& op, const std::string& output) {
    for (const auto& n : m.graph.nodes)
        if (n.opType == op && (output.empty() || n.outputs[0] == output)) return &n;
    return nullptr;
}

}  // namespace

TEST(QuantObserver, KlThresholdClipsOutliersOfAGaussian) {
    auto v = gaussianWithOutliers(200000, 20, 40.0f);
    MinMax mm;
    mm.add(v);
    Histogram h(0.0f, mm.absMax(), 2048, true);
    h.add(v);
    const float t = klThreshold(h, 128);
    EXPECT_EQ(mm.max, 40.0f);
    EXPECT_LT(t, 20.0f) << "KL should clip the far outliers";
    EXPECT_GT(t, 2.5f) << "but keep the bulk of a unit Gaussian";
    std::printf("KL threshold %.3f (max %.1f)\n", t, mm.max);
}

TEST(QuantObserver, PercentileAndMmseInsideMinMax) {
    auto v = gaussianWithOutliers(100000, 5, -30.0f);
    MinMax mm;
    mm.add(v);
    Histogram h(mm.min, mm.max, 2048, false);
    h.add(v);
    ClipRange p = percentileRange(h, 99.99);
    ClipRange p2 = percentileRange(h, 99.0);
    EXPECT_GT(p.min, -30.0f);
    EXPECT_LE(p2.max, p.max);   // a lower percentile clips more
    EXPECT_GE(p2.min, p.min);
    ClipRange m = mmseRange(h, 256);
    EXPECT_GE(m.min, mm.min);
    EXPECT_LE(m.max, mm.max);
    EXPECT_GT(m.min, -30.0f) << "MMSE trades a few clipped outliers for finer steps";
    EXPECT_GT(m.max, 2.0f);
}

TEST(QuantObserver, HistogramMergeEqualsOnePass) {
    auto v = gaussianWithOutliers(1000, 0, 0);
    Histogram a(-4, 4, 64, false), b(-4, 4, 64, false), all(-4, 4, 64, false);
    a.add(std::span(v).subspan(0, 500));
    b.add(std::span(v).subspan(500));
    all.add(v);
    a.merge(b);
    EXPECT_EQ(a.counts, all.counts);
    EXPECT_DOUBLE_EQ(a.total(), 1000.0);
}

TEST(QuantRules, RoundHalfToEvenAndSaturate) {
    QuantParams q{1.0f, 0};
    EXPECT_EQ(quantizeValue(2.5f, q, -128, 127), 2);
    EXPECT_EQ(quantizeValue(3.5f, q, -128, 127), 4);
    EXPECT_EQ(quantizeValue(-2.5f, q, -128, 127), -2);
    EXPECT_EQ(quantizeValue(1000.0f, q, -128, 127), 127);
    EXPECT_EQ(quantizeValue(-1000.0f, q, -128, 127), -128);
    QuantParams a = asymmetricParams(-1.0f, 3.0f, DType::U8);
    EXPECT_NEAR(a.scale, 4.0f / 255.0f, 1e-7);
    EXPECT_EQ(a.zeroPoint, 64);  // round(255/4)
    EXPECT_EQ(quantizeValue(0.0f, a, 0, 255), a.zeroPoint) << "zero must be exact";
    QuantParams relu = asymmetricParams(0.5f, 6.0f, DType::U8);  // range widened to contain 0
    EXPECT_EQ(relu.zeroPoint, 0);
}

TEST(QuantQdq, PerChannelWeightsInt32BiasAndActivationPairs) {
    Model m = tinyConvModel();
    auto data = randomSamples(3);
    QuantizeOptions o;
    o.executor.backend = "reference";
    QuantizeResult r = quantizeModel(m, data, o);
    const Model& q = r.model;
    // Activation QDQ on the conv inputs (x and relu output), not on the conv1 output feeding Relu.
    ASSERT_NE(findOp(q, "QuantizeLinear", "x_quantized"), nullptr);
    ASSERT_NE(findOp(q, "QuantizeLinear", "r1_quantized"), nullptr);
    EXPECT_EQ(findOp(q, "QuantizeLinear", "c1_quantized"), nullptr);
    // Weights: int8, per channel (axis 0, 4 scales), zero point 0, within [-127, 127].
    const Tensor& w = q.graph.initializers.at("w1_quantized");
    EXPECT_EQ(w.dtype(), DType::I8);
    EXPECT_EQ(q.graph.initializers.at("w1_scale").numel(), 4);
    for (int8_t v : w.values<int8_t>()) EXPECT_GE(v, -127);
    EXPECT_FALSE(q.graph.initializers.count("w1")) << "float weights are dropped";
    // Bias: int32 with scale = input scale * weight scale per channel.
    const Tensor& b = q.graph.initializers.at("b1_quantized");
    EXPECT_EQ(b.dtype(), DType::I32);
    const float xs = q.graph.initializers.at("x_scale").data<float>()[0];
    const Tensor& bs = q.graph.initializers.at("b1_scale");
    const Tensor& ws = q.graph.initializers.at("w1_scale");
    for (int64_t c = 0; c < 4; ++c) {
        EXPECT_FLOAT_EQ(bs.data<float>()[c], xs * ws.data<float>()[c]);
        const float bf = m.graph.initializers.at("b1").data<float>()[c];
        EXPECT_EQ(b.data<int32_t>()[c], static_cast<int32_t>(std::nearbyint(bf / bs.data<float>()[c])));
    }
    EXPECT_EQ(q.metadata.at("npuwb.quant.scheme"), "w8a8");
    EXPECT_EQ(q.metadata.at("npuwb.quant.dataset_hash"), data.contentHash());
    // Serialises, reloads and runs close to float.
    Model reloaded = loadModelFromBytes(serializeModel(q), "/tmp", "qdq");
    const double cos = outputCosine(m, reloaded, data, 3, {.backend = kReferenceBackend, .threads = 1});
    EXPECT_GT(cos, 0.99);
    EXPECT_LT(cos, 1.0 - 1e-9) << "quantization must change something";
}

TEST(QuantQdq, PerTensorHasScalarScales) {
    Model m = tinyConvModel();
    auto data = randomSamples(2);
    QuantizeOptions o;
    o.executor.backend = "reference";
    o.perChannel = false;
    Model q = quantizeModel(m, data, o).model;
    EXPECT_EQ(q.graph.initializers.at("w1_scale").numel(), 1);
}

TEST(QuantQdq, W4A16GroupsAndFp16Casts) {
    Model m = tinyConvModel();
    auto data = randomSamples(2);
    QuantizeOptions o;
    o.executor.backend = "reference";
    o.scheme = Scheme::W4A16;
    o.groupSize = 9;  // rows of 27 = 3 groups (quantizeModel and the CLI take 32..256; the builder any divisor)
    EXPECT_THROW(quantizeModel(m, data, o), Error);
    Calibration cal = calibrate(m, data, o);
    Model q = buildQdqModel(m, cal, o, defaultPrecisions(m, o));
    const Tensor& w = q.graph.initializers.at("w1_int4");
    EXPECT_EQ(w.shape(), (Shape{12, 9}));
    for (int8_t v : w.values<int8_t>()) {
        EXPECT_GE(v, -8);
        EXPECT_LE(v, 7);
    }
    EXPECT_NE(findOp(q, "Cast", "x_fp16"), nullptr);
    EXPECT_GT(outputCosine(m, q, data, 2, {.backend = kReferenceBackend, .threads = 1}), 0.95);
    o.scheme = Scheme::FP16;
    Model h = quantizeModel(m, data, o).model;
    EXPECT_EQ(h.graph.initializers.at("w1_fp16").dtype(), DType::F16);
    EXPECT_GT(outputCosine(m, h, data, 2, {.backend = kReferenceBackend, .threads = 1}), 0.9999);
}

TEST(QuantQdq, OverridesKeepLayersFloat) {
    Model m = tinyConvModel();
    auto data = randomSamples(2);
    QuantizeOptions o;
    o.executor.backend = "reference";
    o.overrides["conv2"] = Precision::Float;
    Model q = quantizeModel(m, data, o).model;
    EXPECT_EQ(findOp(q, "QuantizeLinear", "r1_quantized"), nullptr);
    EXPECT_TRUE(q.graph.initializers.count("w2"));
    o.overrides = {{"nope", Precision::Fp16}};
    EXPECT_THROW(quantizeModel(m, data, o), Error);
}

TEST(QuantQdq, AutoHybridMeetsTarget) {
    Model m = tinyConvModel();
    auto data = randomSamples(3);
    QuantizeOptions o;
    o.executor.backend = "reference";
    o.autoHybridCosine = 0.99999;
    QuantizeResult r = quantizeModel(m, data, o);
    ASSERT_TRUE(r.hybrid);
    EXPECT_TRUE(r.hybrid->targetMet);
    EXPECT_GE(r.hybrid->cosineAfter, 0.99999);
    size_t kept = 0;
    for (const auto& l : r.hybrid->layers) kept += l.kept;
    EXPECT_GE(kept, 1u);
}

TEST(QuantCalibration, CancelStops) {
    Model m = tinyConvModel();
    auto data = randomSamples(4);
    std::atomic<bool> cancel{true};
    QuantizeOptions o;
    o.executor.backend = "reference";
    QuantizeControl c;
    c.cancel = &cancel;
    try {
        calibrate(m, data, o, c);
        FAIL() << "expected Cancelled";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Cancelled);
    }
}

TEST(QuantCalibration, ObserversOrderRanges) {
    Model m = tinyConvModel();
    auto data = randomSamples(4);
    QuantizeOptions o;
    o.executor.backend = "reference";
    o.executor.threads = 2;
    Calibration mm = calibrate(m, data, o);
    o.observer = ObserverKind::Percentile;
    o.percentile = 99.0;
    Calibration pc = calibrate(m, data, o);
    ASSERT_TRUE(mm.ranges.count("r1"));
    EXPECT_EQ(mm.ranges.at("r1").max, mm.ranges.at("r1").observedMax);
    EXPECT_LT(pc.ranges.at("r1").max, mm.ranges.at("r1").max);
    EXPECT_EQ(pc.samples, 4u);
}

TEST(QuantAccuracy, EntireAndSingle) {
    Model m = tinyConvModel();
    auto data = randomSamples(2);
    QuantizeOptions o;
    o.executor.backend = "reference";
    Model q = quantizeModel(m, data, o).model;
    AccuracyOptions ao;
    ao.executor.backend = "reference";
    AccuracySection a = analyzeAccuracy(m, q, data, ao);
    ASSERT_EQ(a.layers.size(), 3u);
    for (const auto& l : a.layers) {
        EXPECT_GT(l.entireCosine, 0.98) << l.fullName;
        ASSERT_TRUE(l.singleCosine) << l.fullName;
    }
    EXPECT_LT(a.layers[2].entireCosine, 1.0);
    EXPECT_EQ(a.layers[1].precision, "float");
    EXPECT_NEAR(*a.layers[1].singleCosine, 1.0, 1e-12) << "Relu itself is not quantized";
    EXPECT_EQ(a.outputs.size(), 1u);
    EXPECT_NE(accuracyToText(a).find("conv2"), std::string::npos);
}

// A BatchNormalization the quantizer folds leaves the Conv's output name holding post-BN values: compared with
// the unprepared float model, that layer's cosine measured two different tensors. floatReferenceFor prepares the
// float model as the quantizer did, so every layer compares like with like.
TEST(QuantAccuracy, FloatReferenceMatchesTheQuantizersPreparation) {
    Model m = tinyConvModel();
    Graph& g = m.graph;
    g.nodes[1].inputs = {"bn"};  // conv1 -> BatchNormalization -> relu
    Node bn;
    bn.name = "bn1";
    bn.opType = "BatchNormalization";
    bn.inputs = {"c1", "gamma", "beta", "mean", "var"};
    bn.outputs = {"bn"};
    g.nodes.insert(g.nodes.begin() + 1, bn);
    g.initializers["gamma"] = Tensor::fromVector<float>({4}, {2.f, -1.5f, 0.5f, 3.f});
    g.initializers["beta"] = Tensor::fromVector<float>({4}, {1.f, 0.5f, -2.f, 0.25f});
    g.initializers["mean"] = Tensor::fromVector<float>({4}, {0.3f, -0.2f, 0.1f, 0.f});
    g.initializers["var"] = Tensor::fromVector<float>({4}, {0.5f, 2.f, 1.f, 0.25f});
    auto data = randomSamples(2);
    QuantizeOptions o;
    o.executor.backend = "reference";
    Model q = quantizeModel(m, data, o).model;
    ASSERT_TRUE(q.metadata.count("npuwb.quant.prepare"));
    std::vector<std::string> notes;
    Model reference = floatReferenceFor(m, q, data, {.backend = kReferenceBackend}, notes);
    ASSERT_FALSE(notes.empty());
    EXPECT_NE(notes.back().find("prepared"), std::string::npos) << notes.back();
    bool bnLeft = false;
    for (const auto& n : reference.graph.nodes) bnLeft = bnLeft || n.opType == "BatchNormalization";
    EXPECT_FALSE(bnLeft) << "the reference should have the BatchNormalization folded like the quantized model";
    AccuracyOptions ao;
    ao.executor.backend = "reference";
    AccuracySection a = analyzeAccuracy(reference, q, data, ao);
    for (const auto& l : a.layers) EXPECT_GT(l.entireCosine, 0.98) << l.fullName;
    // The unprepared float model's conv1 output is the pre-BatchNormalization tensor: not comparable.
    for (const auto& l : analyzeAccuracy(m, q, data, ao).layers)
        if (l.fullName == "conv1") {
            EXPECT_LT(l.entireCosine, 0.9) << "the premise of this test no longer holds";
        }

    o.prepare = false;  // an unprepared export is compared with the float model as given
    Model plain = quantizeModel(m, data, o).model;
    notes.clear();
    EXPECT_EQ(floatReferenceFor(m, plain, data, {.backend = kReferenceBackend}, notes).graph.nodes.size(),
              m.graph.nodes.size());
}
