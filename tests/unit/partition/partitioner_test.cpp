// The partitioner's three steps (affinity, locality, balance), stages and cuts, and the schedule arithmetic, on
// small graphs built here with a device profile written here.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "npuwb/ChipProfile.h"
#include "npuwb/CostModel.h"
#include "npuwb/DeviceProfile.h"
#include "npuwb/Error.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Partition.h"
#include "partition/Partitioner.h"
#include "partition/Schedule.h"

#include "../UnitTestSupport.h"

using namespace npuwb;
using namespace npuwb::unittest;
using namespace npuwb::partition;

namespace {

/// A chain x -> op[0] -> op[1] -> ...: MatMul with a [256,256] weight, other ops elementwise on [64,256].
std::shared_ptr<const Model> chain(const std::vector<std::string>& ops) {
    auto model = std::make_shared<Model>();
    model->opsetImports[""] = 17;
    Graph& g = model->graph;
    const Shape act = {64, 256};
    g.inputs.push_back(tensorInfo("x", act));
    std::string prev = "x";
    for (size_t i = 0; i < ops.size(); ++i) {
        Node n;
        n.name = "n" + std::to_string(i);
        n.opType = ops[i];
        n.inputs = {prev};
        if (ops[i] == "MatMul") {
            std::string w = "w" + std::to_string(i);
            g.initializers[w] = Tensor(DType::F32, {256, 256});
            n.inputs.push_back(w);
        }
        prev = "v" + std::to_string(i);
        n.outputs = {prev};
        g.valueInfo[prev] = tensorInfo(prev, act);
        g.nodes.push_back(std::move(n));
    }
    g.outputs.push_back(tensorInfo(prev, act));
    return model;
}

/// Convolutions of a real network's size: `count` 3x3 convs, 64 -> 64 channels on 56x56 (about 116 M MACs each).
std::shared_ptr<const Model> convChain(int count) {
    auto model = std::make_shared<Model>();
    model->opsetImports[""] = 17;
    Graph& g = model->graph;
    const Shape act = {1, 64, 56, 56};
    g.inputs.push_back(tensorInfo("x", act));
    std::string prev = "x";
    for (int i = 0; i < count; ++i) {
        Node n;
        n.name = "conv" + std::to_string(i);
        n.opType = "Conv";
        const std::string w = "w" + std::to_string(i);
        g.initializers[w] = Tensor(DType::F32, {64, 64, 3, 3});
        n.inputs = {prev, w};
        Attribute pads;
        pads.kind = Attribute::Kind::Ints;
        pads.ints = {1, 1, 1, 1};
        n.attributes["pads"] = pads;
        prev = "c" + std::to_string(i);
        n.outputs = {prev};
        g.valueInfo[prev] = tensorInfo(prev, act);
        g.nodes.push_back(std::move(n));
    }
    g.outputs.push_back(tensorInfo(prev, act));
    return model;
}

/// Units A (GEMM excellent, activations `aActivations`) and B (GEMM good, activations excellent); rates 100 GMAC/s
/// and 10 GB/s each.
nlohmann::json twoUnits(double syncUs, double gbytesPerSecond, const char* aActivations = "good") {
    auto unit = [](const char* name, const char* gemm, const char* act) {
        return nlohmann::json{{"name", name},
                              {"kind", "npu"},
                              {"costs", "roofline"},
                              {"gmacsPerSecond", 100},
                              {"gbytesPerSecond", 10},
                              {"affinity",
                               {{"gemm", gemm}, {"conv", gemm}, {"elementwise", act}, {"activation", act},
                                {"softmax", act}, {"reduce", act}, {"control", "none"}, {"reorganize", act}}}};
    };
    return {{"name", "test device"},
            {"affinityFactors", {{"excellent", 1.0}, {"good", 4.0}}},
            {"units", {unit("A", "excellent", aActivations), unit("B", "good", "excellent")}},
            {"transfer", {{"syncUs", syncUs}, {"gbytesPerSecond", gbytesPerSecond}}}};
}

WorkGraph work(std::shared_ptr<const Model> m, const DeviceProfile& d) {
    WorkGraph w = buildWorkGraph(m, d, {"A", "B"}, 1);
    fillModelledCosts(w, d);
    return w;
}

}  // namespace

TEST(Partitioner, AffinityPutsEachNodeOnItsCheapestUnit) {
    DeviceProfile d = deviceProfileFromJson(twoUnits(0, 0), "test.json");
    WorkGraph w = work(chain({"MatMul", "Sigmoid", "MatMul"}), d);
    // MatMul: 64x256x256 MACs = 4.19 M at 100 GMAC/s = 41.9 us on A, x4 on B.
    EXPECT_NEAR(w.nodes[0].costUs[0], 41.94, 0.01);
    EXPECT_NEAR(w.nodes[0].costUs[1], 4 * 41.94, 0.05);
    Placement p = placeNodes(w, d.transfer, "affinity");
    EXPECT_EQ(p.unitOf, (std::vector<int>{0, 1, 0}));
    EXPECT_EQ(p.step[1], PlanStep::Affinity);
    EXPECT_NE(p.reason[1].find("cheapest on B"), std::string::npos) << p.reason[1];
}

TEST(Partitioner, LocalityKeepsNeighboursTogetherUnlessTheGainBeatsTheTransfer) {
    // Sigmoid on [64,256] moves 128 KB: 13.1 us on B, 52.4 us on A; its two hand-offs move 2 x 64 KB.
    DeviceProfile slowLink = deviceProfileFromJson(twoUnits(20, 1), "test.json");  // 20 us + 65.5 us per hand-off
    Placement kept = placeNodes(work(chain({"MatMul", "Sigmoid", "MatMul"}), slowLink), slowLink.transfer, "locality");
    EXPECT_EQ(kept.unitOf, (std::vector<int>{0, 0, 0}));
    EXPECT_EQ(kept.step[1], PlanStep::Locality);
    EXPECT_NE(kept.reason[1].find("locality: stays with its neighbours on A"), std::string::npos) << kept.reason[1];

    DeviceProfile fastLink = deviceProfileFromJson(twoUnits(1, 100), "test.json");  // 1 us + 0.66 us per hand-off
    Placement moved = placeNodes(work(chain({"MatMul", "Sigmoid", "MatMul"}), fastLink), fastLink.transfer, "locality");
    EXPECT_EQ(moved.unitOf, (std::vector<int>{0, 1, 0}));
}

TEST(Partitioner, BalanceSplitsAChainForPipelining) {
    DeviceProfile d = deviceProfileFromJson(twoUnits(0, 0, "excellent"), "test.json");
    WorkGraph w = work(chain(std::vector<std::string>(8, "Sigmoid")), d);
    // Equal costs everywhere: affinity keeps all eight with their inputs on A; balance moves the tail to B.
    Placement p = placeNodes(w, d.transfer, "balanced");
    StagePlan plan = buildStages(w, p.unitOf, d.transfer);
    ASSERT_EQ(plan.stages.size(), 2u);
    EXPECT_NEAR(plan.unitLoadUs[0], 4 * 13.1072, 1e-6);
    EXPECT_NEAR(plan.unitLoadUs[1], 4 * 13.1072, 1e-6);
    EXPECT_NEAR(plan.boundUs, plan.serialUs / 2, 1e-6);
    for (size_t n = 0; n < w.nodes.size(); ++n)
        EXPECT_EQ(p.step[n], p.unitOf[n] == 1 ? PlanStep::Balance : PlanStep::Affinity) << p.reason[n];
    // With A four times slower on activations, one node on A is the best balance (52 us vs 7 x 13 us on B).
    DeviceProfile uneven = deviceProfileFromJson(twoUnits(0, 0), "test.json");
    WorkGraph w2 = work(chain(std::vector<std::string>(8, "Sigmoid")), uneven);
    StagePlan plan2 = buildStages(w2, placeNodes(w2, uneven.transfer, "balanced").unitOf, uneven.transfer);
    EXPECT_NEAR(plan2.unitLoadUs[0], 4 * 13.1072, 1e-6);
    EXPECT_NEAR(plan2.unitLoadUs[1], 7 * 13.1072, 1e-6);
}

TEST(Partitioner, StagesAndCutsFollowTheValues) {
    DeviceProfile d = deviceProfileFromJson(twoUnits(5, 10), "test.json");
    WorkGraph w = work(chain({"MatMul", "Sigmoid", "MatMul", "Relu"}), d);
    StagePlan plan = buildStages(w, {0, 1, 0, 1}, d.transfer);
    ASSERT_EQ(plan.stages.size(), 4u);
    EXPECT_EQ(plan.stages[1].inputs, (std::vector<std::string>{"v0"}));
    EXPECT_EQ(plan.stages[1].outputs, (std::vector<std::string>{"v1"}));
    EXPECT_EQ(plan.stages[3].outputs, (std::vector<std::string>{"v3"}));  // the graph output
    ASSERT_EQ(plan.cuts.size(), 3u);
    EXPECT_EQ(plan.cuts[0].value, "v0");
    EXPECT_EQ(plan.cuts[0].bytes, 64 * 256 * 4);
    // Each hand-off: 5 us sync + 64 KB at 10 GB/s.
    EXPECT_NEAR(plan.stages[1].handoffUs, 5 + 65536 / 1e4, 1e-9);
    double compute = 0;
    for (const auto& s : plan.stages) compute += s.computeUs;
    EXPECT_NEAR(plan.serialUs, compute + 3 * (5 + 6.5536), 1e-6);
    EXPECT_EQ(linkName(w, {0, 1}), "A<->B");
    EXPECT_NEAR(plan.linkLoadUs.at({0, 1}), 3 * (5 + 6.5536), 1e-6);
}

TEST(Partitioner, ANodeNoUnitCanRunIsNamed) {
    DeviceProfile d = deviceProfileFromJson(twoUnits(0, 0), "test.json");
    WorkGraph w = work(chain({"MatMul", "NonZero"}), d);  // control: "none" on both
    try {
        placeNodes(w, d.transfer, "balanced");
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("node 'n1' (NonZero): no unit can run it"), std::string::npos) << e.what();
    }
    EXPECT_THROW(placeNodes(w, d.transfer, "fastest"), Error);
}

TEST(Schedule, SerialSumsAndPipelinedOverlaps) {
    DeviceProfile d = deviceProfileFromJson(twoUnits(0, 0), "test.json");
    WorkGraph w = work(chain({"MatMul", "Sigmoid"}), d);
    StagePlan plan = buildStages(w, {0, 1}, d.transfer);
    const std::vector<double> stageUs = {100, 60};
    plan.stages[1].handoffUs = 10;
    const int frames = 20;
    SimulatedSchedule serial = simulate(stageChainSchedule(w, plan, stageUs, "serial", 1, frames));
    EXPECT_NEAR(serial.figures.makespanUs, frames * (100 + 10 + 60), 1e-9);
    EXPECT_NEAR(serial.figures.latencyUs, 170, 1e-9);
    SimulatedSchedule piped = simulate(stageChainSchedule(w, plan, stageUs, "pipelined", 2, frames));
    // Fill: the first frame's 170 us; then one frame per 100 us (the busiest lane, A).
    EXPECT_NEAR(piped.figures.makespanUs, 170 + (frames - 1) * 100, 1e-9);
    EXPECT_NEAR(piped.figures.framesPerSecond, frames * 1e6 / (170 + (frames - 1) * 100), 1e-6);
    // Frame f+1 starts on A while frame f runs on B; nothing overlaps on one lane.
    std::map<std::string, double> laneEnd;
    for (const auto& e : piped.trace.events) {
        EXPECT_GE(e.startUs + 1e-9, laneEnd[e.lane]) << e.lane << " frame " << e.frame;
        laneEnd[e.lane] = e.endUs;
    }
    SimulatedSchedule single = simulate(singleUnitSchedule(w, 0, 150, frames));
    EXPECT_NEAR(single.figures.makespanUs, frames * 150, 1e-9);
    EXPECT_EQ(single.trace.events.size(), size_t(frames));
}

TEST(Partition, ReportCarriesThePlanAndRoundTrips) {
    DeviceProfile d = deviceProfileFromJson(twoUnits(5, 10), "test.json");
    PartitionOptions o;
    o.frames = 10;
    Report r = partitionModel(chain({"MatMul", "Sigmoid", "MatMul", "Sigmoid"}), d, o);
    ASSERT_TRUE(r.partition);
    EXPECT_EQ(r.kind, "partition");
    EXPECT_EQ(r.partition->assignments.size(), 4u);
    EXPECT_EQ(r.layers.size(), 4u);
    EXPECT_EQ(r.partition->schedules.size(), 3u);
    EXPECT_EQ(r.traces.size(), 3u);  // predicted only: these units have no executors
    Report back = reportFromJson(toJson(r));
    ASSERT_TRUE(back.partition);
    EXPECT_EQ(toJson(back), toJson(r));
    EXPECT_THROW(scheduleResult(r, "fastest"), Error);
    o.schedules = {"pipelined", "bogus"};
    EXPECT_THROW(partitionModel(chain({"MatMul"}), d, o), Error);
    o.schedules = {"serial"};
    o.units = {"A", "C"};
    try {
        partitionModel(chain({"MatMul"}), d, o);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no unit 'C' (units: A, B)"), std::string::npos) << e.what();
    }
}

TEST(Partition, RockchipNpuCostsComeFromTheChipProfile) {
    const std::string root = NPUWB_SOURCE_DIR;
    auto model = std::make_shared<const Model>(loadModel(root + "/resources/samples/tiny_mobilenet.onnx"));
    DeviceProfile rk = loadDeviceProfile(root + "/resources/devices/rk3588.json");
    WorkGraph w = buildWorkGraph(model, rk, {"NPU", "GPU", "CPU-big"}, 1);
    fillModelledCosts(w, rk);
    Report estimate = estimateModel(*model, findChipProfile("rk3588"));
    double npuSum = 0, estimateSum = 0;
    for (const auto& n : w.nodes) npuSum += std::isinf(n.costUs[0]) ? 0 : n.costUs[0];
    for (const auto& row : estimate.layers)
        if (row.target == "NPU") estimateSum += row.timeUs;
    EXPECT_NEAR(npuSum, estimateSum, 1e-6 * estimateSum);
    // Convolutions of a real network's size go to the NPU (on the sample's tiny maps the NPU's fixed per-layer
    // cost lets a CPU win; balancing may also move work off the NPU to fill a pipeline, affinity alone must not).
    PartitionOptions o;
    o.frames = 10;
    o.strategy = "affinity";
    Report r = partitionModel(convChain(4), rk, o);
    int convOnNpu = 0, convs = 0;
    for (const auto& a : r.partition->assignments)
        if (a.opType == "Conv") {
            ++convs;
            convOnNpu += a.unit == "NPU";
        }
    EXPECT_GT(convs, 0);
    EXPECT_GT(convOnNpu, convs / 2);  // the NPU is far faster at convolutions than a Mali or four A76 cores
    EXPECT_EQ(scheduleResult(r, "single").units, (std::vector<std::string>{"NPU"}));
}
