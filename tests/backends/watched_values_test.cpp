// Watched values (SessionOptions::watched, RunControl::values): every backend shows each watched value once per
// run, with the elements a reference run gives it (in any order: oneDNN passes a blocked layout in place, a padded
// one through a plain copy), including values its fusion would otherwise hide; watching changes no output.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "DifferentialHarness.h"
#include "npuwb/sdk/Backend.h"
#include "npuwb/Session.h"

using namespace npuwb;
using namespace npuwb::difftest;

namespace {

const std::vector<std::string> kWatched = {"c1", "r1", "c2", "s2", "d2", "t2", "v", "k", "Y"};

/// X[1,16,9,7] -> Conv -> c1[32] -> Relu -> r1 -> Conv -> c2[24] -> Sigmoid -> s2 -> depthwise Conv -> d2 ->
/// ConvTranspose 2x2/2 -> t2 (oneDNN: nChw16c, 24 channels padded to 32) -> MaxPool 2x2/2 -> Reshape [1,24,63] -> v
/// -> Reshape back -> Conv 1x1 -> * k -> Y, where k = Sqrt(constant) is folded by a backend's plan. Conv+Relu and
/// Conv+Sigmoid fuse unless watched.
Case watchedCase(const std::vector<std::string>& outputs) {
    std::mt19937 rng(11);
    std::map<std::string, Attribute> k3{{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})}};
    std::vector<Node> nodes{makeNode("Conv", {"X", "W1", "B1"}, {"c1"}, k3),
                            makeNode("Relu", {"c1"}, {"r1"}),
                            makeNode("Conv", {"r1", "W2", "B2"}, {"c2"}, k3),
                            makeNode("Sigmoid", {"c2"}, {"s2"}),
                            makeNode("Conv", {"s2", "Wd"}, {"d2"},
                                     {{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})},
                                      {"group", Attribute::ofInt(24)}}),
                            makeNode("ConvTranspose", {"d2", "Wt"}, {"t2"},
                                     {{"kernel_shape", Attribute::ofInts({2, 2})}, {"strides", Attribute::ofInts({2, 2})}}),
                            makeNode("MaxPool", {"t2"}, {"p2"}, {{"kernel_shape", Attribute::ofInts({2, 2})}, {"strides", Attribute::ofInts({2, 2})}}),
                            makeNode("Reshape", {"p2", "flat"}, {"v"}),
                            makeNode("Reshape", {"v", "back"}, {"u"}),
                            makeNode("Conv", {"u", "W3"}, {"y"}, {{"kernel_shape", Attribute::ofInts({1, 1})}}),
                            makeNode("Sqrt", {"four"}, {"k"}),
                            makeNode("Mul", {"y", "k"}, {"Y"})};
    std::map<std::string, Tensor> init{{"W1", randomTensor({32, 16, 3, 3}, rng)}, {"B1", randomTensor({32}, rng)},
                                       {"W2", randomTensor({24, 32, 3, 3}, rng)}, {"B2", randomTensor({24}, rng)},
                                       {"W3", randomTensor({16, 24, 1, 1}, rng)}, {"Wd", randomTensor({24, 1, 3, 3}, rng)},
                                       {"Wt", randomTensor({24, 24, 2, 2}, rng)},
                                       {"four", Tensor::fromVector<float>({1}, {4.f})},
                                       {"flat", Tensor::fromVector<int64_t>({3}, {1, 24, 63})},
                                       {"back", Tensor::fromVector<int64_t>({4}, {1, 24, 9, 7})}};
    return makeCase("watched", nodes, {{"X", {1, 16, 9, 7}}}, outputs, init, rng);
}

struct Recorder : ValueObserver {
    std::map<std::string, std::vector<float>> seen;
    std::map<std::string, int> calls;
    void observe(const std::string& value, std::span<const float> elements) override {
        seen[value].assign(elements.begin(), elements.end());
        ++calls[value];
    }
};

std::vector<float> sorted(std::span<const float> v) {
    std::vector<float> s(v.begin(), v.end());
    std::sort(s.begin(), s.end());
    return s;
}

class WatchedValues : public ::testing::TestWithParam<std::string> {};

TEST_P(WatchedValues, EachIsSeenOnceWithTheReferenceElements) {
    const Case all = watchedCase(kWatched);  // every watched value a graph output, on the reference kernels
    const std::map<std::string, Tensor> expected = Session(all.model).runTensors(all.inputs);
    const Case plain = watchedCase({"Y"});
    SessionOptions options;
    options.executor.backend = GetParam();
    options.executor.threads = 1;
    options.watched = {kWatched.begin(), kWatched.end()};
    Session watching(plain.model, options);
    const std::map<std::string, Tensor> unwatched =
        Session(plain.model, {.executor = {.backend = GetParam(), .threads = 1}}).runTensors(plain.inputs);
    watching.prepare(plain.inputs);  // compiles without observing anything
    Recorder recorder;
    RunControl control;
    control.values = &recorder;
    for (int run = 1; run <= 2; ++run) {
        const std::map<std::string, Tensor> out = watching.runTensors(plain.inputs, control);
        ASSERT_EQ(out.size(), 1u);
        const auto y = out.at("Y").values<float>(), y0 = unwatched.at("Y").values<float>();
        ASSERT_EQ(y.size(), y0.size());
        for (size_t i = 0; i < y.size(); ++i) ASSERT_NEAR(y[i], y0[i], 1e-5f * std::max(1.f, std::fabs(y0[i])));
        for (const auto& name : kWatched) {
            ASSERT_EQ(recorder.calls[name], run) << name << " on " << GetParam();
            const std::vector<float> got = sorted(recorder.seen[name]);
            const std::vector<float> want = sorted(expected.at(name).values<float>());
            ASSERT_EQ(got.size(), want.size()) << name;
            for (size_t i = 0; i < got.size(); ++i)
                ASSERT_NEAR(got[i], want[i], 1e-4f * std::max(1.f, std::fabs(want[i]))) << name << " element " << i;
        }
    }
}

std::vector<std::string> executors() {
    std::vector<std::string> names{"reference"};
    for (const auto& b : availableBackends()) names.push_back(b);
    return names;
}

INSTANTIATE_TEST_SUITE_P(Executors, WatchedValues, ::testing::ValuesIn(executors()), [](const auto& info) {
    std::string n = info.param;
    std::replace(n.begin(), n.end(), '-', '_');
    return n;
});

}  // namespace
