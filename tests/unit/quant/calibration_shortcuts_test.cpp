// Calibration computes some observed values' statistics without fetching them from the run: scalar Mul/Add
// results from their input (range mapped exactly through the steps) and whole-factor nearest upsamplings from
// their source (same range and histogram). These tests hold the shortcuts to what fetching every value gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "npuwb/ModelIO.h"
#include "npuwb/NpySampleSource.h"
#include "quant/QuantGraph.h"
#include "npuwb/Quantizer.h"
#include "quant/StreamingHistogram.h"
#include "npuwb/Session.h"

using namespace npuwb;
using namespace npuwb::quant;

namespace {

Node node(std::string name, std::string op, std::vector<std::string> inputs, std::string output) {
    Node n;
    n.name = std::move(name);
    n.opType = std::move(op);
    n.inputs = std::move(inputs);
    n.outputs = {std::move(output)};
    return n;
}

// x -> Conv -> c -> Mul(-0.37) -> m -> Add(1.25) -> a -> Resize(nearest, x2) -> u -> Add(u, u) -> y.
// c, m, a and u are all observed (inputs of quantizable nodes).
Model shortcutModel(std::string coordinateMode) {
    Model m;
    m.opsetImports[""] = 13;
    Graph& g = m.graph;
    g.inputs.push_back({"x", {ValueType::Kind::Tensor, DType::F32, SymShape{Dim::of(1), Dim::of(3), Dim::of(9), Dim::of(7)}, {}}});
    g.outputs.push_back({"y", {ValueType::Kind::Tensor, DType::F32, std::nullopt, {}}});
    std::mt19937 rng(3);
    std::normal_distribution<float> d(0.0f, 0.7f);
    Tensor w(DType::F32, {5, 3, 1, 1});
    for (auto& v : w.values<float>()) v = d(rng);
    g.initializers["w"] = w;
    g.initializers["k"] = Tensor::scalar<float>(-0.37f);
    g.initializers["b"] = Tensor::scalar<float>(1.25f);
    g.initializers["scales"] = Tensor::fromVector<float>({4}, {1.0f, 1.0f, 2.0f, 3.0f});
    Node resize = node("up", "Resize", {"a", "", "scales"}, "u");
    resize.attributes["mode"] = Attribute::ofString("nearest");
    resize.attributes["coordinate_transformation_mode"] = Attribute::ofString(std::move(coordinateMode));
    resize.attributes["nearest_mode"] = Attribute::ofString("floor");
    g.nodes = {node("conv", "Conv", {"x", "w"}, "c"), node("mul", "Mul", {"c", "k"}, "m"),
               node("add", "Add", {"m", "b"}, "a"), resize, node("sum", "Add", {"u", "u"}, "y")};
    // Shapes, as a loaded model has them (the upsampling check reads them).
    return loadModelFromBytes(serializeModel(m), ".", "shortcuts.onnx");
}

MemorySampleSource samples(size_t n) {
    std::mt19937 rng(11);
    std::normal_distribution<float> d(0.0f, 2.0f);
    std::vector<Sample> out;
    for (size_t i = 0; i < n; ++i) {
        Tensor t(DType::F32, {1, 3, 9, 7});
        for (auto& v : t.values<float>()) v = d(rng);
        out.push_back({{{"x", t}}, "sample " + std::to_string(i)});
    }
    return MemorySampleSource(std::move(out));
}

// The exact min/max of every observed value, from a run that fetches them all.
std::map<std::string, std::pair<float, float>> fetchedRanges(const Model& m, const SampleSource& source) {
    const Model all = detail::withExtraOutputs(m, {"c", "m", "a", "u"});
    Session s(std::make_shared<const Model>(all));
    std::map<std::string, std::pair<float, float>> out;
    for (size_t i = 0; i < source.size(); ++i)
        for (const auto& [name, t] : s.runTensors(source.load(i).inputs)) {
            auto [lo, hi] = std::minmax_element(t.values<float>().begin(), t.values<float>().end());
            auto [it, fresh] = out.emplace(name, std::pair{*lo, *hi});
            if (!fresh) it->second = {std::min(it->second.first, *lo), std::max(it->second.second, *hi)};
        }
    return out;
}

}  // namespace

TEST(QuantCalibrationShortcuts, DerivedRangesEqualFetchedOnes) {
    const Model m = shortcutModel("asymmetric");
    const MemorySampleSource data = samples(5);
    QuantizeOptions o;
    o.executor.backend = "reference";
    const Calibration cal = calibrate(m, data, o);
    const auto exact = fetchedRanges(m, data);
    for (const char* v : {"c", "m", "a", "u"}) {
        ASSERT_TRUE(cal.ranges.count(v)) << v;
        EXPECT_EQ(cal.ranges.at(v).observedMin, exact.at(v).first) << v;
        EXPECT_EQ(cal.ranges.at(v).observedMax, exact.at(v).second) << v;
    }
    EXPECT_LT(cal.ranges.at("m").observedMin, 0.0f);  // the negative constant flipped the ends
}

TEST(QuantCalibrationShortcuts, WholeFactorUpsamplingSharesItsSourcesHistogram) {
    const MemorySampleSource data = samples(5);
    QuantizeOptions o;
    o.executor.backend = "reference";
    o.observer = ObserverKind::KL;
    const Calibration replicated = calibrate(shortcutModel("asymmetric"), data, o);
    EXPECT_EQ(replicated.ranges.at("u").min, replicated.ranges.at("a").min);
    EXPECT_EQ(replicated.ranges.at("u").max, replicated.ranges.at("a").max);
    // half_pixel coordinates are not the floor rule the shortcut needs: u is fetched; its exact range still
    // equals a's (nearest copies elements), which the fetched path must find by itself.
    const Model halfPixel = shortcutModel("half_pixel");
    const Calibration fetched = calibrate(halfPixel, data, o);
    const auto exact = fetchedRanges(halfPixel, data);
    EXPECT_EQ(fetched.ranges.at("u").observedMin, exact.at("u").first);
    EXPECT_EQ(fetched.ranges.at("u").observedMax, exact.at("u").second);
}

TEST(QuantCalibrationShortcuts, HistogramSampleSpreadsOverLargeTensors) {
    std::vector<float> buffer;
    std::vector<float> small(1000, 1.0f);
    EXPECT_EQ(ValueStats::histogramSample(small, buffer).size(), small.size());  // small: every element
    std::vector<float> medium(250000, 1.0f);  // BlazeFace / PP-OCRv4 rec sizes: every element too
    EXPECT_EQ(ValueStats::histogramSample(medium, buffer).size(), medium.size());
    for (size_t n : {size_t{300000}, size_t{3000000}}) {
        std::vector<float> v(n);
        for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
        const auto picked = ValueStats::histogramSample(v, buffer);
        EXPECT_GT(picked.size(), 20000u) << n;
        EXPECT_LT(picked.size(), 70000u) << n;
        // Spread over the whole tensor, not its first part.
        EXPECT_LT(picked.front(), static_cast<float>(n) * 0.01f) << n;
        EXPECT_GT(picked.back(), static_cast<float>(n) * 0.99f) << n;
    }
}
