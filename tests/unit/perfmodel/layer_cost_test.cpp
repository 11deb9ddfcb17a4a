// The cost formula on layers small enough to compute by hand, and the NPU/CPU placement on tiny models.
#include <gtest/gtest.h>

#include <filesystem>

#include "npuwb/ChipProfile.h"
#include "npuwb/ModelIO.h"
#include "npuwb/CostModel.h"
#include "perfmodel/LayerCost.h"

using namespace npuwb;

namespace {

/// 32x32 MAC array at 1 GHz; DDR 10 GB/s at 50% efficiency = 5 bytes per NPU cycle.
ChipProfile handChip() {
    ChipProfile c;
    c.name = "HAND";
    c.cores = 2;
    c.clockMHz = 1000;
    c.hwAlign = 4;
    c.bufferBytesPerCore = 1 << 20;
    c.ddrBandwidthGBps = 10;
    c.dtypes["int8"] = NpuDTypeRates{32, 32, 1024, 16, 32, 16, 1};
    return c;
}

CostCoefficients handCoefficients() {
    CostCoefficients k;
    k.computeEfficiency = 1.0;
    k.ddrEfficiency = 0.5;
    k.layerOverheadCycles = 1000;
    k.minStripePixels = 16;
    return k;
}

NpuWork conv(int64_t cin, int64_t cout, int64_t k, int64_t outH, int64_t outW) {
    NpuWork w;
    w.kind = NpuWorkKind::Conv;
    w.conv = ConvGeometry{.batch = 1, .inChannelsPerGroup = cin, .outChannels = cout, .groups = 1, .kernelH = k,
                          .kernelW = k, .outH = outH, .outW = outW};
    w.macs = cin * cout * k * k * outH * outW;
    return w;
}

}  // namespace

TEST(LayerCost, AlignedPointwiseConvByHand) {
    ChipProfile chip = handChip();
    NpuWork w = conv(64, 64, 1, 8, 8);
    w.activationReadBytes = 64 * 64;
    w.weightBytes = 64 * 64;
    w.writeBytes = 64 * 64;
    NpuLayerCost c = npuLayerCost(w, chip, chip.rates("int8"), 1, handCoefficients());
    EXPECT_EQ(c.paddedMacs, 262144);
    // 262144 / 1024 = 256 MAC cycles, but the output stage writes 64 pixels x 2 blocks of 32 channels at 4 cycles
    EXPECT_DOUBLE_EQ(c.npuCycles, 512.0);
    EXPECT_DOUBLE_EQ(c.ddrCycles, 12288.0 / 5.0);    // bytes / (5 bytes per cycle)
    EXPECT_DOUBLE_EQ(c.totalCycles, 2457.6 + 1000);  // DDR-bound, plus overhead
    EXPECT_DOUBLE_EQ(c.timeUs, 3.4576);
    EXPECT_NEAR(c.macUsagePercent, 100.0 * 262144 / (3457.6 * 1024), 1e-9);
}

TEST(LayerCost, ChannelAlignmentWastesMacs) {
    ChipProfile chip = handChip();
    // 40 input channels pad to 64, 33 output channels pad to 64: 64*64/(40*33) times the useful work.
    NpuWork w = conv(40, 33, 3, 16, 16);
    EXPECT_EQ(paddedConvMacs(w, chip.rates("int8"), chip, handCoefficients()), 256 * 9 * 64 * 64);
}

TEST(LayerCost, SmallChannelInputIsReducedPerKernelTap) {
    // The RK3588 perf log's first conv (3 -> 16 channels, 3x3) takes 9 cycles per output pixel: no packing of
    // the window into the 32 input lanes.
    ChipProfile chip = handChip();
    NpuWork w = conv(3, 32, 3, 16, 16);
    EXPECT_EQ(paddedConvMacs(w, chip.rates("int8"), chip, handCoefficients()), 256 * 9 * 32 * 32);
}

TEST(LayerCost, OutputStageBoundsPointwiseConvs) {
    ChipProfile chip = handChip();
    NpuWork w = conv(32, 32, 1, 16, 16);  // 1 MAC cycle per pixel, 4 output-stage cycles per pixel
    EXPECT_DOUBLE_EQ(outputStageCycles(w, chip.rates("int8"), chip, handCoefficients()), 256 * 4);
    EXPECT_DOUBLE_EQ(npuLayerCost(w, chip, chip.rates("int8"), 1, handCoefficients()).npuCycles, 256 * 4);
    NpuWork wide = conv(256, 32, 1, 16, 16);  // 8 MAC cycles per pixel: the array bounds it
    EXPECT_DOUBLE_EQ(npuLayerCost(wide, chip, chip.rates("int8"), 1, handCoefficients()).npuCycles, 256 * 8);
}

TEST(LayerCost, LookupTableActivationsAddCycles) {
    ChipProfile chip = handChip();
    CostCoefficients k = handCoefficients();
    k.lutElementsPerLane = 0.25;  // 32 lanes x 0.25 = 8 elements per cycle
    NpuWork w = conv(256, 32, 1, 16, 16);
    const double plain = npuLayerCost(w, chip, chip.rates("int8"), 1, k).npuCycles;
    w.lutElements = 32 * 256;
    EXPECT_DOUBLE_EQ(npuLayerCost(w, chip, chip.rates("int8"), 1, k).npuCycles, plain + 32 * 256 / 8.0);
}

TEST(LayerCost, DepthwiseUsesOneInputLane) {
    ChipProfile chip = handChip();
    NpuWork w;
    w.kind = NpuWorkKind::DepthwiseConv;
    w.conv = ConvGeometry{.batch = 1, .inChannelsPerGroup = 1, .outChannels = 48, .groups = 48, .kernelH = 3,
                          .kernelW = 3, .outH = 8, .outW = 8};
    // 48 channels pad to 64 output lanes; each uses 1 of 32 input lanes.
    EXPECT_EQ(paddedConvMacs(w, chip.rates("int8"), chip, handCoefficients()), 64 * 9 * 64 * 32);
}

TEST(LayerCost, OutputPixelsGoInBlocksOfSixteen) {
    // The RK3588 perf log charges a 60x34 output (2040 pixels) as 2048.
    ChipProfile chip = handChip();
    NpuWork tiny = conv(32, 32, 1, 2, 3);   // 6 pixels -> 16
    NpuWork odd = conv(32, 32, 1, 5, 5);    // 25 pixels -> 32
    EXPECT_EQ(paddedConvMacs(tiny, chip.rates("int8"), chip, handCoefficients()), 16 * 32 * 32);
    EXPECT_EQ(paddedConvMacs(odd, chip.rates("int8"), chip, handCoefficients()), 32 * 32 * 32);
}

TEST(LayerCost, MultiCoreSplitsComputeNotBandwidth) {
    ChipProfile chip = handChip();
    NpuWork w = conv(256, 256, 3, 32, 32);
    w.activationReadBytes = 1000;
    w.splitsAcrossCores = true;
    NpuLayerCost one = npuLayerCost(w, chip, chip.rates("int8"), 1, handCoefficients());
    NpuLayerCost two = npuLayerCost(w, chip, chip.rates("int8"), 2, handCoefficients());
    EXPECT_DOUBLE_EQ(two.npuCycles, one.npuCycles / 2);
    EXPECT_DOUBLE_EQ(two.ddrCycles, one.ddrCycles);
    EXPECT_EQ(two.coresUsed, 2);
    w.splitsAcrossCores = false;
    EXPECT_DOUBLE_EQ(npuLayerCost(w, chip, chip.rates("int8"), 2, handCoefficients()).npuCycles, one.npuCycles);
}

TEST(LayerCost, WeightsReReadPerTileWhenNothingFitsTheBuffer) {
    NpuWork w;
    w.activationReadBytes = 80;
    w.weightBytes = 80;
    EXPECT_EQ(ddrReadBytes(w, 1000), 160);      // both fit
    EXPECT_EQ(ddrReadBytes(w, 100), 80 + 2 * 80);  // half-buffer tiles of 50: input in 2 tiles
    w.weightBytes = 40;
    EXPECT_EQ(ddrReadBytes(w, 100), 120);       // weights stay resident
}

TEST(LayerCost, CpuFallbackTime) {
    CpuProfile cpu{"test", 2.0, 4.0, 10.0};
    // 10 us + 2e6 MACs at 2 GMAC/s (1000 us) + 8e3 bytes at 4 GB/s (2 us)
    EXPECT_DOUBLE_EQ(cpuLayerTimeUs(2000000, 8000, cpu), 1012.0);
}

TEST(LayerCost, ActivationBytesPadChannelsToC2) {
    NpuDTypeRates r{32, 32, 1024, 16, 32, 16, 1};
    EXPECT_EQ(npuActivationBytes({1, 3, 10, 10}, r), 16 * 100);
    r.bytes = 2;
    EXPECT_EQ(npuActivationBytes({1, 17, 2, 2}, r), 32 * 4 * 2);
    EXPECT_EQ(npuActivationBytes({5, 7}, r), 70);  // not 4-D: no channel blocks
}
