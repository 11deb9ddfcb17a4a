#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>

#include "npuwb/ModelIO.h"
#include "npuwb/Profiler.h"
#include "npuwb/Session.h"

using namespace npuwb;

namespace {
/// x -> Relu -> Neg -> ... (n nodes) -> y
std::shared_ptr<Model> chainModel(int n) {
    auto m = std::make_shared<Model>();
    m->opsetImports[""] = 13;
    ValueInfo in{"x", {}};
    in.type.dtype = DType::F32;
    in.type.shape = SymShape{Dim::named("batch"), Dim::of(8)};
    m->graph.inputs.push_back(in);
    std::string prev = "x";
    for (int i = 0; i < n; ++i) {
        Node node;
        node.name = "n" + std::to_string(i);
        node.opType = i % 2 ? "Neg" : "Relu";
        node.inputs = {prev};
        prev = i + 1 == n ? "y" : "v" + std::to_string(i);
        node.outputs = {prev};
        m->graph.nodes.push_back(node);
    }
    ValueInfo out{"y", {}};
    out.type.dtype = DType::F32;
    m->graph.outputs.push_back(out);
    return m;
}
}  // namespace

TEST(Session, RunsAndReportsProgress) {
    Session s(chainModel(4));
    size_t calls = 0, lastTotal = 0;
    RunControl rc;
    rc.progress = [&](size_t done, size_t total) { ++calls; lastTotal = total; EXPECT_LE(done, total); };
    auto out = s.runTensors({{"x", Tensor::fromVector<float>({1, 8}, {-2, -1, 0, 1, 2, 3, 4, 5})}}, rc);
    // Relu, Neg, Relu, Neg: negatives become 0, then everything is negated twice with a Relu between.
    EXPECT_EQ(out.at("y").toFloatVector(), (std::vector<float>{0, 0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(calls, 4u);
    EXPECT_EQ(lastTotal, 4u);
}

TEST(Session, CancelStopsTheRun) {
    Session s(chainModel(10));
    std::atomic<bool> cancel{false};
    RunControl rc;
    rc.cancel = &cancel;
    rc.progress = [&](size_t done, size_t) { if (done == 3) cancel = true; };
    try {
        s.runTensors({{"x", Tensor(DType::F32, {2, 8})}}, rc);
        FAIL() << "expected a cancellation";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Cancelled);
    }
}

TEST(Profiler, ReportHasOneRowPerNodeAndSaneTotals) {
    RunOptions opts;
    opts.runs = 3;
    opts.warmup = 1;
    opts.symbolicDimValue = 4;
    Report r = profileModel(chainModel(6), opts);
    ASSERT_EQ(r.layers.size(), 6u);
    EXPECT_EQ(r.run.runs, 3);
    EXPECT_EQ(r.run.samplesUs.size(), 3u);
    EXPECT_LE(r.run.minUs, r.run.medianUs);
    EXPECT_EQ(r.layers[0].inputShapes[0], (std::vector<int64_t>{4, 8}));
    EXPECT_EQ(r.layers[5].fullName, "n5");
    EXPECT_EQ(r.layers[2].bytesRead, 4 * 8 * 4);
    // 5 intermediates of 128 bytes, each live for two steps: two at a time at most.
    EXPECT_EQ(r.memory.lowerBoundBytes, 2 * 128);
    EXPECT_EQ(r.memory.ioBytes, 2 * 128);
    double pct = 0;
    for (const auto& l : r.layers) pct += l.timePercent;
    EXPECT_NEAR(pct, 100.0, 0.01);
    Report back = reportFromJson(toJson(r));
    EXPECT_EQ(back.layers.size(), r.layers.size());
    EXPECT_EQ(back.memory.arenaBytes, r.memory.arenaBytes);
}

TEST(Profiler, LastRunKernelsAreATraceWithMeasuredStartAndEnd) {
    RunOptions opts;
    opts.executor.backend = kReferenceBackend;
    opts.runs = 2;
    opts.warmup = 1;
    opts.symbolicDimValue = 4;
    Report r = profileModel(chainModel(6), opts);
    ASSERT_EQ(r.traces.size(), 1u);
    const Trace& t = r.traces[0];
    EXPECT_EQ(t.name, "kernels");
    EXPECT_EQ(t.source, "measured");
    EXPECT_EQ(t.lanes, (std::vector<std::string>{"reference kernels"}));
    ASSERT_EQ(t.events.size(), 6u) << "one kernel per node of the last run, not of every run";
    for (size_t i = 0; i < t.events.size(); ++i) {
        EXPECT_EQ(t.events[i].name, r.layers[i].fullName);
        EXPECT_EQ(t.events[i].kind, "kernel");
        EXPECT_LE(t.events[i].startUs, t.events[i].endUs);
        if (i > 0) {
            EXPECT_GE(t.events[i].startUs, t.events[i - 1].endUs) << "one after another";
        }
    }
    EXPECT_LE(t.events.back().endUs, r.run.maxUs + 1.0) << "times from the start of that run";
    EXPECT_EQ(reportFromJson(toJson(r)).traces.size(), 1u);
}

TEST(Profiler, ZeroRunsIsAUserError) {
    RunOptions opts;
    opts.runs = 0;
    EXPECT_THROW(profileModel(chainModel(2), opts), Error);
}
