// The toy backend (ToyBackend.cpp, claims Relu only) through the public API: loaded by name from
// $NPUWB_PLUGIN_PATH, listed by availableBackends(), running a Conv -> Relu -> MaxPool -> Add -> Relu model with
// the Relu nodes on the plugin and everything else on the reference kernels, with the reference's results.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "DifferentialHarness.h"
#include "npuwb/Profiler.h"
#include "npuwb/Session.h"

using namespace npuwb;
using namespace npuwb::difftest;

namespace {

struct ToyPluginPath {
    ToyPluginPath() { setenv("NPUWB_PLUGIN_PATH", NPUWB_TOY_PLUGIN_DIR, 1); }
    ~ToyPluginPath() { unsetenv("NPUWB_PLUGIN_PATH"); }
};

/// X[1,3,8,8] -> Conv 3x3 -> c -> Relu -> r -> MaxPool 2x2 -> p -> Add(p, B) -> s -> Relu -> Y
Case toyCase() {
    std::mt19937 rng(7);
    std::vector<Node> nodes{
        makeNode("Conv", {"X", "W", "Bc"}, {"c"}, {{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})}}),
        makeNode("Relu", {"c"}, {"r"}),
        makeNode("MaxPool", {"r"}, {"p"}, {{"kernel_shape", Attribute::ofInts({2, 2})}, {"strides", Attribute::ofInts({2, 2})}}),
        makeNode("Add", {"p", "B"}, {"s"}),
        makeNode("Relu", {"s"}, {"Y"})};
    nodes[1].name = "relu_1";
    nodes[4].name = "relu_2";
    std::map<std::string, Tensor> init{{"W", randomTensor({4, 3, 3, 3}, rng)}, {"Bc", randomTensor({4}, rng)},
                                       {"B", randomTensor({1, 4, 4, 4}, rng)}};
    return makeCase("toy", nodes, {{"X", {1, 3, 8, 8}}}, {"Y"}, init, rng);
}

}  // namespace

TEST(ToyBackend, LoadsByNameAndIsListed) {
    ToyPluginPath env;
    const std::vector<std::string> names = availableBackends();
    EXPECT_NE(std::find(names.begin(), names.end(), "toy"), names.end());
    SessionOptions options;
    options.executor.backend = "toy";
    EXPECT_EQ(Session(std::make_shared<Model>(), options).backendName(), "toy");
    std::string warning;
    EXPECT_EQ(usableBackendName("toy", warning), "toy");
    EXPECT_EQ(warning, "");
}

TEST(ToyBackend, RunsReluAndFallsBackForTheRest) {
    ToyPluginPath env;
    const Case c = toyCase();
    const Outcome outcome = runCase(c, "toy", 0.0);  // max(x, 0) is exact: equal to the reference bit for bit
    EXPECT_TRUE(outcome.passed) << outcome.message;
    EXPECT_FALSE(outcome.claimed);  // Conv, MaxPool and Add stay on the reference kernels

    SessionOptions options;
    options.executor.backend = "toy";
    Session session(c.model, options);
    std::map<std::string, Value> inputs;
    for (const auto& [name, t] : c.inputs) inputs.emplace(name, Value(t));
    session.run(inputs);  // learns the shapes, compiles the plan
    std::vector<std::string> fellBack;
    for (const FallbackRow& row : session.fallbacks()) {
        fellBack.push_back(row.opType);
        EXPECT_EQ(row.reason, "the toy backend runs Relu only") << row.node;
    }
    EXPECT_EQ(fellBack, (std::vector<std::string>{"Conv", "MaxPool", "Add"}));

    RunOptions profile;
    profile.executor.backend = "toy";
    profile.runs = 2;
    profile.warmup = 1;
    profile.inputs = c.inputs;
    const Report report = profileModel(c.model, profile);
    EXPECT_EQ(report.environment.backend, "toy");
    EXPECT_EQ(report.fallbacks.size(), 3u);
    std::vector<std::string> relus;  // the plugin's kernels report their time under the node names
    for (const LayerRow& row : report.layers)
        if (row.opType == "Relu") relus.push_back(row.fullName);
    std::sort(relus.begin(), relus.end());
    EXPECT_EQ(relus, (std::vector<std::string>{"relu_1", "relu_2"}));
}
