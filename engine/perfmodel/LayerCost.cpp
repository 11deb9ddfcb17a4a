#include "perfmodel/LayerCost.h"

#include <algorithm>

namespace npuwb {

namespace {
int64_t outputPixels(const ConvGeometry& g, const ChipProfile& chip, const CostCoefficients& k) {
    int64_t hw = g.outH * g.outW;
    // Pixels go through the array in blocks (vendor perf detail on RK3588: a 60x34 output costs 2048 pixels).
    return roundUp(std::max<int64_t>(hw, 1), std::max(chip.hwAlign, k.minStripePixels));
}
}  // namespace

int64_t paddedConvMacs(const NpuWork& work, const NpuDTypeRates& rates, const ChipProfile& chip,
                       const CostCoefficients& k) {
    const ConvGeometry& g = work.conv;
    int64_t pixels = g.batch * outputPixels(g, chip, k);
    int64_t window = g.kernelH * g.kernelW;
    if (work.kind == NpuWorkKind::DepthwiseConv) {
        // Each output channel reduces over its own input channel only: one of atomicInputChannels lanes works.
        return pixels * window * roundUp(g.outChannels, rates.atomicOutputChannels) * rates.atomicInputChannels;
    }
    int64_t outPerGroup = g.groups > 0 ? g.outChannels / g.groups : g.outChannels;
    // Even the 3-channel image input is reduced lane-aligned per kernel tap (vendor perf detail on RK3588: a 3x3
    // conv 3 -> 16 channels takes 9 cycles per output pixel).
    int64_t reduction = window * roundUp(g.inChannelsPerGroup, rates.atomicInputChannels);
    return pixels * g.groups * reduction * roundUp(outPerGroup, rates.atomicOutputChannels);
}

double outputStageCycles(const NpuWork& work, const NpuDTypeRates& rates, const ChipProfile& chip,
                         const CostCoefficients& k) {
    const ConvGeometry& g = work.conv;
    const int64_t blocks = (roundUp(g.outChannels, rates.atomicOutputChannels) / rates.atomicOutputChannels);
    return double(g.batch * outputPixels(g, chip, k) * blocks) * k.outputBlockCycles;
}

int64_t ddrReadBytes(const NpuWork& work, int64_t bufferBytes) {
    int64_t in = work.activationReadBytes, w = work.weightBytes;
    int64_t half = bufferBytes / 2;
    if (in + w <= bufferBytes || w <= half || in <= half || half <= 0) return in + w;
    int64_t tiles = (in + half - 1) / half;  // the input is streamed in tiles; weights are re-read per tile
    return in + w * tiles;
}

NpuLayerCost npuLayerCost(const NpuWork& work, const ChipProfile& chip, const NpuDTypeRates& rates, int64_t cores,
                          const CostCoefficients& k) {
    NpuLayerCost c;
    c.coresUsed = work.splitsAcrossCores ? std::max<int64_t>(1, cores) : 1;
    if (work.kind == NpuWorkKind::Vector) {
        c.npuCycles = double(work.vectorElements) / double(rates.atomicOutputChannels);
    } else {
        c.paddedMacs = paddedConvMacs(work, rates, chip, k);
        const double macCycles = double(c.paddedMacs) / double(rates.macsPerCycle);
        c.npuCycles = std::max(macCycles, outputStageCycles(work, rates, chip, k)) / k.computeEfficiency;
    }
    c.npuCycles += double(work.lutElements) / (k.lutElementsPerLane * double(rates.atomicOutputChannels));
    c.npuCycles /= double(c.coresUsed);
    c.npuCycles += double(work.layoutConvertElements);
    c.bytesRead = ddrReadBytes(work, chip.bufferBytesPerCore);
    c.bytesWritten = work.writeBytes;
    double bytesPerCycle = chip.ddrBandwidthGBps * 1e9 * k.ddrEfficiency / (chip.clockMHz * 1e6);
    c.ddrCycles = double(c.bytesRead + c.bytesWritten) / bytesPerCycle;
    c.totalCycles = std::max(c.npuCycles, c.ddrCycles) + k.layerOverheadCycles * double(std::max<int64_t>(1, work.passes));
    c.timeUs = c.totalCycles / chip.clockMHz;
    double capacity = c.totalCycles * double(rates.macsPerCycle) * double(c.coresUsed);
    c.macUsagePercent = capacity > 0 ? 100.0 * double(work.macs) / capacity : 0.0;
    return c;
}

double cpuLayerTimeUs(int64_t macs, int64_t bytes, const CpuProfile& cpu) {
    return cpu.opOverheadUs + double(macs) / (cpu.gmacsPerSecond * 1e3) + double(bytes) / (cpu.gbytesPerSecond * 1e3);
}

double cpuBoundaryTimeUs(int64_t convertElements, bool switches, const CpuProfile& cpu, const CostCoefficients& k) {
    return double(convertElements) * k.cpuConvertMacsPerElement / (cpu.gmacsPerSecond * 1e3) +
           (switches ? k.cpuSwitchOverheads * cpu.opOverheadUs : 0.0);
}

int64_t npuActivationBytes(const Shape& shape, const NpuDTypeRates& rates) {
    int64_t n = 1;
    for (size_t i = 0; i < shape.size(); ++i) n *= (shape.size() == 4 && i == 1) ? roundUp(shape[i], rates.c2) : shape[i];
    return n * rates.bytes;
}

}  // namespace npuwb
