// What the estimate charges around ops that leave the NPU's NC1HWC2 int8 world (LayerPlanner.h, LayerCost.h): the
// CPU fallback's boundary (conversion of the tensors that cross it, one hand-over per run of CPU layers), pooling
// windows past the kernel limit split into cascaded NPU pools, and the layout conversions around a Transpose that
// moves the channel axis.
#include <gtest/gtest.h>

#include "npuwb/ChipProfile.h"
#include "npuwb/CostModel.h"
#include "npuwb/ModelIO.h"
#include "perfmodel/LayerCost.h"

#include "PerfmodelTestModels.h"

using namespace npuwb;
using namespace npuwb::unittest;

namespace {

Node maxPool(const std::string& name, const std::string& in, const std::string& out, int64_t k) {
    Node n = plainNode(name, "MaxPool", {in}, {out});
    n.attributes["kernel_shape"] = intsAttribute({k, k});
    n.attributes["pads"] = intsAttribute({k / 2, k / 2, k / 2, k / 2});
    return n;
}

}  // namespace

TEST(CpuBoundary, ConversionAndHandOverAreChargedOncePerRunOfCpuLayers) {
    CpuProfile cpu{"test", 2.0, 4.0, 10.0};
    CostCoefficients k;
    k.cpuConvertMacsPerElement = 8;
    k.cpuSwitchOverheads = 3;
    // 1000 elements x 8 MAC-equivalents at 2 GMAC/s = 4 us; a hand-over is 3 x 10 us.
    EXPECT_DOUBLE_EQ(cpuBoundaryTimeUs(1000, false, cpu, k), 4.0);
    EXPECT_DOUBLE_EQ(cpuBoundaryTimeUs(1000, true, cpu, k), 34.0);

    // conv (NPU) -> Div by itself (CPU at int8) -> Div again (CPU) -> Relu (NPU): one hand-over, and only the
    // first Div's input and the second Div's output cross the boundary.
    Model m = convThen({plainNode("d1", "Div", {"c", "c"}, {"a"}), plainNode("d2", "Div", {"a", "a"}, {"b"}),
                        plainNode("relu", "Relu", {"b"}, {"y"})});
    ChipProfile rk = realChip("rk3588");
    const int64_t elements = 16 * 32 * 32;
    EstimateOptions none, some;
    none.coefficients = rk.coefficients;
    none.coefficients->cpuConvertMacsPerElement = 0;
    none.coefficients->cpuSwitchOverheads = 0;
    some.coefficients = k;
    Report r0 = estimateModel(m, rk, none);
    Report r = estimateModel(m, rk, some);
    ASSERT_EQ(r.layers.size(), 4u);
    ASSERT_EQ(r.layers[1].target, "CPU");
    ASSERT_EQ(r.layers[2].target, "CPU");
    EXPECT_NEAR(r.layers[1].timeUs - r0.layers[1].timeUs, cpuBoundaryTimeUs(elements, true, rk.cpu, k), 1e-6);
    EXPECT_NEAR(r.layers[2].timeUs - r0.layers[2].timeUs, cpuBoundaryTimeUs(elements, false, rk.cpu, k), 1e-6);
}

TEST(CpuBoundary, PoolingWindowPastTheLimitRunsAsCascadedNpuPools) {
    ChipProfile rk = realChip("rk3588");  // MaxPool kernel limit 1..7
    Report within = estimateModel(convThen({maxPool("p", "c", "y", 5)}), rk);
    Report spp = estimateModel(convThen({maxPool("p", "c", "y", 13)}), rk);
    ASSERT_EQ(spp.layers.size(), 2u);
    EXPECT_TRUE(spp.fallbacks.empty());
    EXPECT_EQ(spp.layers[1].target, "NPU");
    // 13 = two stride-1 7-wide passes: two layers' overhead and twice the traffic of one 5-wide pool.
    ASSERT_TRUE(spp.layers[1].cyclesTotal && within.layers[1].cyclesTotal);
    EXPECT_GT(*spp.layers[1].cyclesTotal, *within.layers[1].cyclesTotal + rk.coefficients.layerOverheadCycles * 0.99);
    EXPECT_EQ(spp.layers[1].bytesRead, 2 * within.layers[1].bytesRead);

    // An average pool past the limit has no exact cascade here: it stays a CPU fallback.
    Node avg = plainNode("a", "AveragePool", {"c"}, {"y"});
    avg.attributes["kernel_shape"] = intsAttribute({9, 9});
    avg.attributes["pads"] = intsAttribute({4, 4, 4, 4});
    Report cpu = estimateModel(convThen({avg}), rk);
    ASSERT_EQ(cpu.fallbacks.size(), 1u);
    EXPECT_EQ(cpu.fallbacks[0].opType, "AveragePool");
}

TEST(CpuBoundary, TransposeOfTheChannelAxisPaysTwoLayoutConversions) {
    ChipProfile rk = realChip("rk3588");
    // A Transpose feeding the graph output would be absorbed by the output conversion: a Relu follows.
    Node t = plainNode("t", "Transpose", {"c"}, {"tt"});
    t.attributes["perm"] = intsAttribute({0, 1, 3, 2});  // H <-> W: channels stay in place
    Node tc = plainNode("t", "Transpose", {"c"}, {"tt"});
    tc.attributes["perm"] = intsAttribute({0, 2, 3, 1});  // channels moved last: out of NC1HWC2 and back
    Node relu = plainNode("relu", "Relu", {"tt"}, {"y"});
    Report spatial = estimateModel(convThen({t, relu}), rk);
    Report channel = estimateModel(convThen({tc, relu}, {1, 32, 32, 16}), rk);
    ASSERT_EQ(spatial.layers.size(), 3u);
    ASSERT_EQ(channel.layers.size(), 3u);
    ASSERT_EQ(spatial.layers[1].opType, "Transpose");
    ASSERT_EQ(channel.layers[1].target, "NPU");
    ASSERT_TRUE(channel.layers[1].cyclesTotal && spatial.layers[1].cyclesTotal);
    // Two more layers' overhead, and every element out and back at one per cycle on the NPU side.
    const double overhead = rk.coefficients.layerOverheadCycles;
    EXPECT_GE(*channel.layers[1].cyclesTotal, *spatial.layers[1].cyclesTotal + 2 * overhead - 1);
    ASSERT_TRUE(channel.layers[1].cyclesNpu && spatial.layers[1].cyclesNpu);
    EXPECT_GE(*channel.layers[1].cyclesNpu, *spatial.layers[1].cyclesNpu + 2 * 16 * 32 * 32 - 1);
}
