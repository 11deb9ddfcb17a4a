// Pre-quantization optimization (BatchNorm folded before calibration, recorded in the metadata), the Conv-fused
// activation rule (no QDQ between a Conv and its Sigmoid/HardSwish/Swish) and KL's zero-spike handling.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>

#include "npuwb/NpySampleSource.h"
#include "quant/Observer.h"
#include "npuwb/Quantizer.h"

using namespace npuwb;
using namespace npuwb::quant;

namespace {

Tensor randomTensor(std::mt19937& rng, Shape s, float mean = 0.0f, float sd = 0.5f) {
    std::normal_distribution<float> d(mean, sd);
    Tensor t(DType::F32, s);
    for (auto& v : t.values<float>()) v = d(rng);
    return t;
}

Node node(const std::string& name, const std::string& op, std::vector<std::string> in, std::string out) {
    Node n;
    n.name = name;
    n.opType = op;
    n.inputs = std::move(in);
    n.outputs = {std::move(out)};
    return n;
}

// Conv(3->4) -> BatchNormalization -> [tail] -> Conv(4->2): the tail decides the activation between the Convs.
Model convModel(const std::string& tail) {
    std::mt19937 rng(5);
    Model m;
    m.opsetImports[""] = 13;
    Graph& g = m.graph;
    g.inputs.push_back({"x", {ValueType::Kind::Tensor, DType::F32, SymShape{Dim::of(1), Dim::of(3), Dim::of(6), Dim::of(6)}, {}}});
    g.outputs.push_back({"y", {ValueType::Kind::Tensor, DType::F32, std::nullopt, {}}});
    g.initializers["w1"] = randomTensor(rng, {4, 3, 1, 1});
    g.initializers["w2"] = randomTensor(rng, {2, 4, 1, 1});
    g.initializers["scale"] = randomTensor(rng, {4}, 1.0f, 0.1f);
    g.initializers["shift"] = randomTensor(rng, {4});
    g.initializers["mean"] = randomTensor(rng, {4});
    g.initializers["var"] = Tensor::fromVector<float>({4}, {0.5f, 1.0f, 1.5f, 2.0f});
    g.nodes.push_back(node("conv1", "Conv", {"x", "w1"}, "c1"));
    g.nodes.push_back(node("bn", "BatchNormalization", {"c1", "scale", "shift", "mean", "var"}, "b1"));
    std::string last = "b1";
    if (tail == "swish") {
        g.nodes.push_back(node("gate", "Sigmoid", {"b1"}, "s1"));
        g.nodes.push_back(node("swish", "Mul", {"b1", "s1"}, "a1"));
        last = "a1";
    } else if (tail == "hardswish") {
        g.nodes.push_back(node("hswish", "HardSwish", {"b1"}, "a1"));
        last = "a1";
    }
    g.nodes.push_back(node("conv2", "Conv", {last, "w2"}, "y"));
    return m;
}

MemorySampleSource samples(size_t n) {
    std::mt19937 rng(9);
    std::vector<Sample> out;
    for (size_t i = 0; i < n; ++i) out.push_back({{{"x", randomTensor(rng, {1, 3, 6, 6}, 0.0f, 1.0f)}}, std::to_string(i)});
    return MemorySampleSource(std::move(out));
}

size_t countOp(const Model& m, const std::string& op) {
    return static_cast<size_t>(std::count_if(m.graph.nodes.begin(), m.graph.nodes.end(),
                                             [&](const Node& n) { return n.opType == op; }));
}

}  // namespace

TEST(QuantPrepare, FoldsBatchNormBeforeCalibrationAndRecordsIt) {
    const Model m = convModel("");
    const MemorySampleSource data = samples(4);
    QuantizeOptions o;
    const QuantizeResult r = quantizeModel(m, data, o);
    ASSERT_TRUE(r.preparation.ran) << r.preparation.skipped;
    EXPECT_EQ(r.preparation.rewrites.count("fold_batchnorm"), 1u);
    EXPECT_EQ(countOp(r.floatModel, "BatchNormalization"), 0u);
    EXPECT_EQ(countOp(r.model, "BatchNormalization"), 0u);
    const auto meta = nlohmann::json::parse(r.model.metadata.at("npuwb.quant.prepare"));
    EXPECT_TRUE(meta.at("ran").get<bool>());
    EXPECT_EQ(meta.at("rewrites").at("fold_batchnorm").get<int>(), 1);
    EXPECT_NE(std::find_if(r.notes.begin(), r.notes.end(),
                           [](const std::string& n) { return n.find("fold_batchnorm") != std::string::npos; }),
              r.notes.end());

    o.prepare = false;  // as given: the BatchNorm stays, and the metadata says the step was off
    const QuantizeResult plain = quantizeModel(m, data, o);
    EXPECT_EQ(countOp(plain.model, "BatchNormalization"), 1u);
    EXPECT_FALSE(nlohmann::json::parse(plain.model.metadata.at("npuwb.quant.prepare")).at("ran").get<bool>());
}

// The proofs run on the calibration's backend (the reference kernels took 11 of 14 s on PP-OCRv4 det): the same
// rewrites are proven there, and the report says where.
TEST(QuantPrepare, ProofsRunOnTheGivenBackendWithTheSameRewrites) {
    const Model m = convModel("hardswish");
    const MemorySampleSource data = samples(2);
    Preparation onReference, onBackend;
    const Model a = prepareForQuantization(m, data, {.backend = kReferenceBackend}, onReference);
    const Model b = prepareForQuantization(m, data, {.backend = "auto", .threads = 1}, onBackend);
    ASSERT_TRUE(onReference.ran) << onReference.skipped;
    ASSERT_TRUE(onBackend.ran) << onBackend.skipped;
    EXPECT_EQ(onReference.proofBackend, "reference");
    EXPECT_EQ(onBackend.proofBackend, resolveBackendName("auto"));
    EXPECT_EQ(onBackend.rewrites, onReference.rewrites);
    EXPECT_TRUE(onBackend.rolledBack.empty());
    EXPECT_EQ(countOp(b, "BatchNormalization"), 0u);
    EXPECT_EQ(a.graph.nodes.size(), b.graph.nodes.size());
    EXPECT_NE(onBackend.summary().find("proven on " + resolveBackendName("auto")), std::string::npos);
    EXPECT_EQ(nlohmann::json::parse(onBackend.json()).at("proofBackend"), resolveBackendName("auto"));
}

TEST(QuantPrepare, NoQdqBetweenAConvAndItsFusedActivation) {
    for (const std::string tail : {"swish", "hardswish"}) {
        const QuantizeResult r = quantizeModel(convModel(tail), samples(4), {});
        const std::vector<std::string> observed = quantizableActivations(r.floatModel);
        // The Conv output (BatchNorm folded into conv1, its output keeps the name b1) feeds only the fused
        // activation: never an int8 tensor on the NPU. The activation's output, conv2's input, is quantized.
        EXPECT_EQ(std::count(observed.begin(), observed.end(), "b1"), 0) << tail;
        EXPECT_EQ(std::count(observed.begin(), observed.end(), "a1"), 1) << tail;
        EXPECT_EQ(std::count(observed.begin(), observed.end(), "s1"), 0) << tail;
    }
}

TEST(QuantPrepare, KlIgnoresTheZeroSpikeOfRelu) {
    // Relu of a unit Gaussian: half the values are exactly 0. The spike used to pull the threshold to the few bins
    // whose first level holds bin 0 alone (about an eighth of the range here).
    std::mt19937 rng(3);
    std::normal_distribution<float> d(0.0f, 1.0f);
    std::vector<float> v(200000);
    for (auto& x : v) x = std::max(0.0f, d(rng));
    MinMax mm;
    mm.add(v);
    Histogram h(0.0f, mm.absMax(), 2048, true);
    h.add(v);
    const float t = klThreshold(h, 256);
    EXPECT_GT(t, 2.5f) << "KL should keep the bulk of the half-Gaussian (max " << mm.max << ")";
    EXPECT_LE(t, mm.max);
}
