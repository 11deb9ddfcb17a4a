// Local execution: stage models compute what the whole model computes, workers pin and hand frames through bounded
// queues, and every stage of every frame lands in the measured timeline.
#include <gtest/gtest.h>

#include <sched.h>

#include <atomic>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "npuwb/DeviceProfile.h"
#include "npuwb/Error.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Partition.h"
#include "npuwb/Profiler.h"
#include "npuwb/Session.h"
#include "partition/PipelineExecutor.h"
#include "partition/Worker.h"

using namespace npuwb;
using namespace npuwb::partition;
namespace fs = std::filesystem;

namespace {

const fs::path kSample = fs::path(NPUWB_SOURCE_DIR) / "resources" / "samples" / "tiny_mobilenet.onnx";

int cpuCount() {
    cpu_set_t set;
    CPU_ZERO(&set);
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

/// Two reference-kernel units, pinned to CPUs 0 and 1 when there are two.
DeviceProfile localReference() {
    auto unit = [](const char* name, int cpu) {
        nlohmann::json exec = {{"backend", "reference"}, {"threads", 1}};
        if (cpuCount() >= 2) exec["cpus"] = {cpu};
        return nlohmann::json{{"name", name}, {"kind", "cpu"}, {"costs", "calibrated"}, {"executor", exec}};
    };
    nlohmann::json j = {{"name", "two reference workers"},
                        {"affinityFactors", {{"excellent", 1.0}}},
                        {"units", {unit("w0", 0), unit("w1", 1)}},
                        {"transfer", {{"syncUs", "calibrate"}, {"gbytesPerSecond", 0}}}};
    return deviceProfileFromJson(j, "local-reference.json");
}

}  // namespace

TEST(PartitionExecutor, StagesComputeWhatTheWholeModelComputes) {
    auto model = std::make_shared<const Model>(loadModel(kSample.string()));
    DeviceProfile d = localReference();
    WorkGraph w = buildWorkGraph(model, d, {"w0", "w1"}, 1);
    // Alternate units every five nodes: many cuts, constants made in one stage and read in another.
    std::vector<int> unitOf;
    for (size_t n = 0; n < w.nodes.size(); ++n) unitOf.push_back(int(n / 5 % 2));
    StagePlan plan = buildStages(w, unitOf, d.transfer);
    ASSERT_GT(plan.stages.size(), 4u);
    Session whole(model);
    auto inputs = makeInputs(whole, 3);
    auto expected = whole.runTensors(inputs);
    std::map<std::string, Value> values(inputs.begin(), inputs.end());
    for (size_t i = 0; i < plan.stages.size(); ++i) {
        std::vector<size_t> nodes;
        for (int n : plan.stages[i].nodes) nodes.push_back(w.nodes[size_t(n)].graphIndex);
        Session stage(stageModel(*model, nodes, plan.stages[i].inputs, plan.stages[i].outputs, "s" + std::to_string(i)));
        std::map<std::string, Value> feeds;
        for (const auto& in : plan.stages[i].inputs) feeds[in] = values.at(in);
        for (auto& [name, v] : stage.run(feeds)) values[name] = v;
    }
    for (const auto& [name, t] : expected) {
        SCOPED_TRACE(name);
        const Tensor& got = values.at(name).tensor;
        ASSERT_EQ(got.shape(), t.shape());
        for (int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(got.data<float>()[i], t.data<float>()[i]);
    }
}

TEST(PartitionExecutor, RunsThreeSchedulesAndRecordsEveryStage) {
    auto model = std::make_shared<const Model>(loadModel(kSample.string()));
    PartitionOptions o;
    o.frames = 6;
    o.warmupFrames = 1;
    o.calibrationRuns = 2;
    std::vector<std::string> phases;
    PartitionControl control;
    control.progress = [&](const std::string& phase, int, int) { phases.push_back(phase); };
    Report r = partitionModel(model, localReference(), o, control);
    ASSERT_TRUE(r.partition);
    const auto& p = *r.partition;
    EXPECT_GE(p.syncUs, 0);
    for (const char* schedule : {"single", "serial", "pipelined"}) {
        SCOPED_TRACE(schedule);
        const ScheduleResult& s = scheduleResult(r, schedule);
        ASSERT_TRUE(s.measured);
        EXPECT_GT(s.measured->framesPerSecond, 0);
        EXPECT_GT(s.predicted.framesPerSecond, 0);
        const Trace* measured = nullptr;
        for (const auto& t : r.traces)
            if (t.name == schedule && t.source == "measured") measured = &t;
        ASSERT_NE(measured, nullptr);
        const size_t stages = std::string(schedule) == "single" ? 1 : p.stages.size();
        EXPECT_EQ(measured->events.size(), stages * 6);
        std::set<int64_t> frames;
        for (const auto& e : measured->events) {
            frames.insert(e.frame);
            EXPECT_LE(*e.readyUs, e.startUs);
            EXPECT_LE(e.startUs, e.endUs);
        }
        EXPECT_EQ(frames.size(), 6u);
    }
    // Serial never overlaps two stages; each frame passes its stages in order.
    for (const auto& t : r.traces) {
        if (t.name != "serial" || t.source != "measured") continue;
        for (size_t i = 1; i < t.events.size(); ++i) EXPECT_GE(t.events[i].startUs, t.events[i - 1].endUs);
    }
    EXPECT_NE(std::find(phases.begin(), phases.end(), "pipelined"), phases.end());
}

TEST(PartitionExecutor, CancelStopsTheRun) {
    auto model = std::make_shared<const Model>(loadModel(kSample.string()));
    std::atomic<bool> cancel{false};
    PartitionControl control;
    control.cancel = &cancel;
    control.progress = [&](const std::string& phase, int, int) {
        if (phase == "serial") cancel = true;
    };
    PartitionOptions o;
    o.frames = 50;
    o.calibrationRuns = 1;
    try {
        partitionModel(model, localReference(), o, control);
        FAIL() << "expected a cancellation";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Cancelled);
    }
}

TEST(PartitionExecutor, PinningToAMissingCpuIsNamed) {
    try {
        Worker w("ghost", {4000}, 4);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("unit 'ghost': cannot pin its worker to CPU 4000"), std::string::npos)
            << e.what();
    }
    Worker ok("fine", {}, 2);
    EXPECT_EQ(ok.call([] { return 41 + 1; }), 42);
    EXPECT_THROW(ok.call([]() -> int { failInput("inside the worker"); }), Error);
}

TEST(PartitionExecutor, BoundedQueueBlocksWhenFullAndEndsOnClose) {
    BoundedQueue<int> q(2);
    EXPECT_TRUE(q.push(1));
    EXPECT_TRUE(q.push(2));
    std::atomic<bool> pushed{false};
    std::thread producer([&] {
        q.push(3);  // waits for room
        pushed = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(pushed);
    int v = 0;
    EXPECT_TRUE(q.pop(v));
    EXPECT_EQ(v, 1);
    producer.join();
    EXPECT_TRUE(pushed);
    q.close();
    EXPECT_TRUE(q.pop(v));
    EXPECT_EQ(v, 2);
    EXPECT_TRUE(q.pop(v));
    EXPECT_EQ(v, 3);
    EXPECT_FALSE(q.pop(v));
    EXPECT_FALSE(q.push(4));
}
