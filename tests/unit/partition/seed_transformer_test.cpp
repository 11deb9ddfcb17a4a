// The 6-layer transformer of "NPU/GPU operator partitioning with pipeline parallelism on Snapdragon X2 Elite"
// (its shapes: Softmax [12,128,128], GELU [12,128,768]) on its device profile: the planner's schedule arithmetic
// puts the article's split run serially above NPU only, and pipelining below it, each within 15% of the article's
// 28.5 / 31.2 / 19.8 ms.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "npuwb/DeviceProfile.h"
#include "npuwb/Partition.h"

#include "../UnitTestSupport.h"

using namespace npuwb;
using namespace npuwb::unittest;
namespace fs = std::filesystem;

namespace {

const fs::path kDevicesDir = fs::path(NPUWB_SOURCE_DIR) / "resources" / "devices";

/// 12 sequences of 128 tokens, width 768; per layer Q, K, V projections, scores = Q K^T, Softmax, context = P V,
/// output projection, FFN (768 -> 768) with GELU. The article's layer has no residuals or norms, so neither has
/// this one. Weights are deferred: the planner reads their shapes only.
std::shared_ptr<const Model> seedTransformer(int layers) {
    auto model = std::make_shared<Model>();
    model->opsetImports[""] = 20;  // Gelu
    Graph& g = model->graph;
    g.name = "seed_transformer";
    const Shape act = {12, 128, 768}, scores = {12, 128, 128};
    g.inputs.push_back(tensorInfo("x0", act));
    auto weight = [&](const std::string& name) {
        g.initializers[name] = Tensor::deferred(DType::F32, {768, 768}, [] { return Tensor(DType::F32, {768, 768}); });
    };
    auto node = [&](const std::string& op, std::vector<std::string> in, const std::string& out, const Shape& shape) {
        Node n;
        n.name = out;
        n.opType = op;
        n.inputs = std::move(in);
        n.outputs = {out};
        g.nodes.push_back(std::move(n));
        g.valueInfo[out] = tensorInfo(out, shape);
        return &g.nodes.back();
    };
    std::string x = "x0";
    for (int l = 1; l <= layers; ++l) {
        const std::string L = std::to_string(l);
        for (const char* w : {"Wq", "Wk", "Wv", "Wo", "W1", "W2"}) weight(w + L);
        node("MatMul", {x, "Wq" + L}, "q" + L, act);
        node("MatMul", {x, "Wk" + L}, "k" + L, act);
        node("MatMul", {x, "Wv" + L}, "v" + L, act);
        Node* t = node("Transpose", {"k" + L}, "kt" + L, {12, 768, 128});
        t->attributes["perm"].kind = Attribute::Kind::Ints;
        t->attributes["perm"].ints = {0, 2, 1};
        node("MatMul", {"q" + L, "kt" + L}, "scores" + L, scores);
        node("Softmax", {"scores" + L}, "p" + L, scores)->attributes["axis"].i = -1;
        node("MatMul", {"p" + L, "v" + L}, "context" + L, act);
        node("MatMul", {"context" + L, "Wo" + L}, "attn" + L, act);
        node("MatMul", {"attn" + L, "W1" + L}, "ffn1_" + L, act);
        node("Gelu", {"ffn1_" + L}, "gelu" + L, act);
        node("MatMul", {"gelu" + L, "W2" + L}, "y" + L, act);
        x = "y" + L;
    }
    g.outputs.push_back(tensorInfo(x, act));
    return model;
}

double msPerFrame(const Report& r, const std::string& schedule) {
    const ScheduleResult& s = scheduleResult(r, schedule);
    return s.predicted.makespanUs / double(s.frames) / 1000.0;
}

Report plan(const std::string& strategy) {
    PartitionOptions o;
    o.units = {"NPU", "GPU"};  // the article splits between these two
    o.strategy = strategy;
    o.singleUnit = "NPU";
    o.frames = 100;
    return partitionModel(seedTransformer(6), loadDeviceProfile((kDevicesDir / "snapdragon-x2-elite.json").string()), o);
}

}  // namespace

TEST(SeedTransformer, AffinitySplitIsTheArticles) {
    Report r = plan("affinity");
    ASSERT_TRUE(r.partition);
    int gemmOnNpu = 0, softmaxGeluOnGpu = 0;
    for (const auto& a : r.partition->assignments) {
        EXPECT_FALSE(a.reason.empty()) << a.node;
        if (a.opType == "MatMul") gemmOnNpu += a.unit == "NPU";
        if (a.opType == "Softmax" || a.opType == "Gelu") softmaxGeluOnGpu += a.unit == "GPU";
    }
    EXPECT_EQ(gemmOnNpu, 6 * 8);
    EXPECT_EQ(softmaxGeluOnGpu, 6 * 2);
    // Per layer: scores and FFN intermediate go to the GPU, their results come back.
    EXPECT_EQ(r.partition->cuts.size(), 6u * 4u);
    int64_t bytes = 0;
    for (const auto& c : r.partition->cuts) bytes += c.bytes;
    EXPECT_EQ(bytes, 6 * (2 * 12 * 128 * 128 * 4 + 2 * 12 * 128 * 768 * 4));
}

TEST(SeedTransformer, ThreeSchedulesWithin15PercentOfTheArticle) {
    Report affinity = plan("affinity");
    Report balanced = plan("balanced");
    const double single = msPerFrame(affinity, "single");
    const double serial = msPerFrame(affinity, "serial");             // the article's split, one unit at a time
    const double articlePipelined = msPerFrame(affinity, "pipelined");  // the article's split, overlapped
    const double pipelined = msPerFrame(balanced, "pipelined");         // the planner's split for pipelining
    std::printf("Snapdragon X2 Elite article's transformer, ms per frame over 100 frames (article: 28.5 / 31.2 / 19.8)\n"
                "  NPU only %.2f | article's split serial %.2f, pipelined %.2f | balanced split pipelined %.2f "
                "(serial %.2f)\n",
                single, serial, articlePipelined, pipelined, msPerFrame(balanced, "serial"));
    for (const auto& u : balanced.partition->units) std::printf("  balanced load %s %.2f ms\n", u.name.c_str(), u.loadUs / 1000);
    for (const auto& n : balanced.partition->notes) std::printf("  note: %s\n", n.c_str());
    EXPECT_GT(serial, single);
    EXPECT_LT(pipelined, single);
    EXPECT_NEAR(single, 28.5, 28.5 * 0.15);
    EXPECT_NEAR(serial, 31.2, 31.2 * 0.15);
    EXPECT_NEAR(pipelined, 19.8, 19.8 * 0.15);
    // Overlap cannot beat the NPU's own GEMM work (23.7 ms) while every GEMM stays there.
    EXPECT_GT(articlePipelined, 23.7);
}

TEST(SeedTransformer, PredictedTimelinesHaveEveryFrame) {
    Report r = plan("balanced");
    for (const char* schedule : {"single", "serial", "pipelined"}) {
        SCOPED_TRACE(schedule);
        const Trace* trace = nullptr;
        for (const auto& t : r.traces)
            if (t.name == schedule && t.source == "predicted") trace = &t;
        ASSERT_NE(trace, nullptr);
        std::set<int64_t> frames;
        for (const auto& e : trace->events) {
            frames.insert(e.frame);
            EXPECT_LE(e.startUs, e.endUs);
            ASSERT_TRUE(e.readyUs);
            EXPECT_LE(*e.readyUs, e.startUs + 1e-9);
        }
        EXPECT_EQ(frames.size(), 100u);
    }
    EXPECT_FALSE(scheduleResult(r, "pipelined").measured);  // nothing here runs a Hexagon NPU
}
