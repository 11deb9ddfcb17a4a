#pragma once
// The per-layer cost formula of the board-less NPU estimate (resources/chips/README.md explains every term):
//   NPU cycles = max(padded MACs / MACs per cycle, output-stage cycles) / compute efficiency
//                + lookup-table activation elements / (lutElementsPerLane x output lanes)   [split over cores for
//                multi-core ops]
//   DDR cycles = bytes moved / (DDR bandwidth x DDR efficiency), converted to NPU clock cycles
//                + elements converted out of and back into NC1HWC2 around a layout-changing op (one per cycle)
//   total      = max(NPU, DDR) + per-layer overhead x hardware layers;   time = total / clock
// CPU fallbacks: the op's own time + the conversion of the tensors crossing the NPU/CPU boundary + one hand-over
// per run of CPU layers (cpuBoundaryTimeUs).
// Padded MACs charge the alignment waste: channels rounded up to the MAC array's atomic sizes, output pixels
// rounded up to the pixel block, depthwise using one of the array's input lanes.
#include <cstdint>

#include "npuwb/ChipProfile.h"
#include "npuwb/ir/Tensor.h"

namespace npuwb {

enum class NpuWorkKind {
    Conv,           // dense or grouped convolution, fully connected (as 1x1 conv), matmul (M as pixels)
    DepthwiseConv,  // one input channel per output channel
    Vector,         // elementwise, pooling, data movement: processed by the output stage, lane by lane
};

struct ConvGeometry {
    int64_t batch = 1;
    int64_t inChannelsPerGroup = 0;
    int64_t outChannels = 0;  // total over groups
    int64_t groups = 1;
    int64_t kernelH = 1, kernelW = 1;
    int64_t outH = 1, outW = 1;
};

struct NpuWork {
    NpuWorkKind kind = NpuWorkKind::Vector;
    ConvGeometry conv;          // Conv / DepthwiseConv
    int64_t vectorElements = 0; // Vector: elements the output stage processes
    int64_t macs = 0;           // useful multiply-accumulates
    int64_t activationReadBytes = 0;  // non-constant inputs, in the NPU layout at the dtype size
    int64_t weightBytes = 0;          // constant inputs
    int64_t writeBytes = 0;
    int64_t lutElements = 0;          // outputs of lookup-table activations in the layer (fused or standalone)
    bool splitsAcrossCores = false;
    int64_t layoutConvertElements = 0;  // elements converted NC1HWC2 <-> plain order around the op, one per cycle
    int64_t passes = 1;  // hardware layers the converter splits it into (cascaded pooling): each pays the overhead
};

struct NpuLayerCost {
    int64_t paddedMacs = 0;
    int64_t bytesRead = 0;  // after on-chip buffer re-reads
    int64_t bytesWritten = 0;
    int64_t coresUsed = 1;
    double npuCycles = 0, ddrCycles = 0, totalCycles = 0;
    double timeUs = 0;
    double macUsagePercent = 0;  // of the cores used
};

/// MACs the array spends on a conv-like layer including alignment waste.
int64_t paddedConvMacs(const NpuWork& work, const NpuDTypeRates& rates, const ChipProfile& chip,
                       const CostCoefficients& k);
/// Cycles the output stage needs to write a conv-like layer's result: one block of atomicOutputChannels output
/// channels per pixel every `outputBlockCycles` (vendor perf detail on RK3588: NPU cycles of a 1x1 conv are
/// max(MAC cycles, pixels x output-channel blocks x 4)).
double outputStageCycles(const NpuWork& work, const NpuDTypeRates& rates, const ChipProfile& chip,
                         const CostCoefficients& k);
/// Bytes read from DDR: activations + weights, plus weights re-streamed per input tile when neither fits half
/// of the per-core buffer.
int64_t ddrReadBytes(const NpuWork& work, int64_t bufferBytes);
NpuLayerCost npuLayerCost(const NpuWork& work, const ChipProfile& chip, const NpuDTypeRates& rates, int64_t cores,
                          const CostCoefficients& k);

/// CPU fallback time: hand-over overhead + MACs at the CPU's MAC rate + bytes at its memory rate.
double cpuLayerTimeUs(int64_t macs, int64_t bytes, const CpuProfile& cpu);
/// What a CPU fallback costs beyond the op itself: converting `convertElements` boundary elements between the
/// NPU layout and fp32 NCHW, and, when `switches`, one NPU -> CPU -> NPU hand-over.
double cpuBoundaryTimeUs(int64_t convertElements, bool switches, const CpuProfile& cpu, const CostCoefficients& k);

/// Bytes of an activation tensor in the NC1HWC2 layout: channels (dim 1 of a 4-D tensor) rounded up to c2.
int64_t npuActivationBytes(const Shape& shape, const NpuDTypeRates& rates);

inline int64_t roundUp(int64_t v, int64_t multiple) { return multiple <= 1 ? v : (v + multiple - 1) / multiple * multiple; }

}  // namespace npuwb
