// Per-layer rows of a profile on a backend that fuses: a fused kernel is one row (its first node's) holding the
// kernel's time once and naming the nodes fused into it; those nodes keep their own rows and IDs, time 0, pointing
// at the layer that holds their time. The JSON report keeps both links. Every row's ID is its node's position in
// the model as given, and the nodes the session's exact rewrites removed are listed with theirs.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include <nlohmann/json.hpp>

#include "DifferentialHarness.h"
#include "npuwb/LayerIds.h"
#include "npuwb/Profiler.h"
#include "npuwb/Report.h"

using namespace npuwb;
using namespace npuwb::difftest;

namespace {

bool onednnBuilt() {
    const auto found = availableBackends();
    return std::find(found.begin(), found.end(), "cpu-onednn") != found.end();
}

/// X[1,8,16,16] -> Conv 3x3 (8 -> 16) -> Relu -> MaxPool 2x2 -> Y: the Relu is the Conv's post-op. With
/// `weightsIdentity`, an Identity named "weights_identity" feeds the Conv its weights, first in the file, and the
/// Relu is unnamed (its row is named by its output, "r").
Case convReluPool(bool weightsIdentity = false) {
    std::mt19937 rng(20261207);
    std::vector<Node> nodes{
        makeNode("Conv", {"X", weightsIdentity ? "W2" : "W", "B"}, {"c"},
                 {{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})}}),
        makeNode("Relu", {"c"}, {"r"}),
        makeNode("MaxPool", {"r"}, {"Y"},
                 {{"kernel_shape", Attribute::ofInts({2, 2})}, {"strides", Attribute::ofInts({2, 2})}})};
    nodes[0].name = "conv";
    nodes[1].name = weightsIdentity ? "" : "relu";
    nodes[2].name = "pool";
    if (weightsIdentity) {
        nodes.insert(nodes.begin(), makeNode("Identity", {"W"}, {"W2"}));
        nodes[0].name = "weights_identity";
    }
    return makeCase("Conv+Relu+MaxPool", nodes, {{"X", {1, 8, 16, 16}}}, {"Y"},
                    {{"W", randomTensor({16, 8, 3, 3}, rng)}, {"B", randomTensor({16}, rng)}}, rng);
}

const LayerRow& rowNamed(const Report& report, const std::string& name) {
    for (const LayerRow& row : report.layers)
        if (row.fullName == name) return row;
    throw std::runtime_error("no row " + name);
}

}  // namespace

TEST(ProfileRows, AFusedKernelIsOneRowAndItsNodesPointAtIt) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    const Case c = convReluPool();
    RunOptions options;
    options.executor.backend = "cpu-onednn";
    options.executor.threads = 1;
    options.runs = 5;
    options.warmup = 1;
    options.inputs = c.inputs;
    const Report report = profileModel(c.model, options);
    ASSERT_EQ(report.environment.backend, "cpu-onednn");
    ASSERT_EQ(report.layers.size(), 3u);
    for (size_t i = 0; i < report.layers.size(); ++i) EXPECT_EQ(report.layers[i].id, int64_t(i));  // all kept

    const LayerRow& conv = rowNamed(report, "conv");
    const LayerRow& relu = rowNamed(report, "relu");
    const LayerRow& pool = rowNamed(report, "pool");
    EXPECT_EQ(conv.fusedNodes, (std::vector<std::string>{"relu"}));
    EXPECT_TRUE(conv.fusedInto.empty());
    EXPECT_GT(conv.timeUs, 0.0);
    EXPECT_EQ(relu.fusedInto, "conv");
    EXPECT_EQ(relu.timeUs, 0.0);  // counted once, on the Conv's row
    EXPECT_EQ(relu.timePercent, 0.0);
    EXPECT_EQ(relu.outputShapes, (std::vector<Shape>{{1, 16, 16, 16}}));  // its shapes stay its own
    EXPECT_TRUE(pool.fusedNodes.empty() && pool.fusedInto.empty());
    EXPECT_GT(pool.timeUs, 0.0);
    EXPECT_NEAR(conv.timePercent + pool.timePercent, 100.0, 1e-6);

    const Report back = reportFromJson(toJson(report));
    EXPECT_EQ(rowNamed(back, "conv").fusedNodes, conv.fusedNodes);
    EXPECT_EQ(rowNamed(back, "relu").fusedInto, "conv");
    EXPECT_TRUE(rowNamed(back, "pool").fusedInto.empty());
}

// The reference executor runs node by node: no row is fused, every node has its own time.
TEST(ProfileRows, TheReferenceTimesEveryNodeOnItsOwn) {
    const Case c = convReluPool();
    RunOptions options;
    options.executor.backend = "reference";
    options.runs = 2;
    options.warmup = 0;
    options.inputs = c.inputs;
    const Report report = profileModel(c.model, options);
    ASSERT_EQ(report.layers.size(), 3u);
    for (const LayerRow& row : report.layers) {
        EXPECT_TRUE(row.fusedNodes.empty() && row.fusedInto.empty()) << row.fullName;
        EXPECT_GT(row.timeUs, 0.0) << row.fullName;
    }
}

// Identity on the Conv's weights comes first in the file: the session bypasses it before running, so the run has
// three steps. The rows keep the model's IDs (the Conv is 1, not step 0) and the Identity is listed as removed.
TEST(ProfileRows, IdsAreTheModelsAndRemovedNodesAreListed) {
    const Case c = convReluPool(/*weightsIdentity=*/true);
    RunOptions options;
    options.executor.backend = "reference";
    options.runs = 1;
    options.warmup = 0;
    options.inputs = c.inputs;
    const Report report = profileModel(c.model, options);
    ASSERT_EQ(report.layers.size(), 3u);
    EXPECT_EQ(rowNamed(report, "conv").id, 1);
    EXPECT_EQ(rowNamed(report, "r").id, 2);
    EXPECT_EQ(rowNamed(report, "pool").id, 3);
    ASSERT_EQ(report.removedLayers.size(), 1u);
    EXPECT_EQ(report.removedLayers[0].id, 0);
    EXPECT_EQ(report.removedLayers[0].fullName, "weights_identity");
    EXPECT_EQ(report.removedLayers[0].opType, "Identity");
    EXPECT_FALSE(report.removedLayers[0].removedBy.empty());

    const Report back = reportFromJson(toJson(report));
    ASSERT_EQ(back.removedLayers.size(), 1u);
    EXPECT_EQ(back.removedLayers[0].id, 0);
    EXPECT_EQ(back.removedLayers[0].removedBy, report.removedLayers[0].removedBy);

    // A name the model did not have (a rewrite made it) is numbered after the model's, once.
    LayerIds ids(c.model->graph);
    EXPECT_EQ(ids.modelLayers(), 4);
    EXPECT_EQ(ids.idOf("fused_hardswish"), 4);
    EXPECT_EQ(ids.idOf("fused_hardswish"), 4);
    EXPECT_EQ(ids.idOf("conv"), 1);
    EXPECT_FALSE(ids.find("never_seen").has_value());
}
