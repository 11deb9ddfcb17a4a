#pragma once
// Turns ONNX nodes into the layers the RKNN converter would produce for a chip: constant subgraphs folded,
// BatchNormalization folded into the preceding convolution, the rewrites of ConverterRewrites.h (constant Div as
// Mul, reductions as pooling or 1x1 convolution, x * Sigmoid(x) as Swish), fused ops (ConvolutionRelu,
// ConvolutionSwish, ConvolutionAdd, AddRelu, ...) merged into one layer, pools past the kernel limit split into
// cascaded pools, layout-changing Transposes/Reshapes bracketed by layout conversions, and every layer assigned to
// the NPU or, when the op is missing from the chip's op list, its dtype, one of its limits or conditions
// (OpConditions.h), to the CPU with the reason (and what crosses the NPU/CPU boundary).
#include <optional>
#include <string>
#include <vector>

#include "npuwb/ChipProfile.h"
#include "perfmodel/LayerCost.h"
#include "perfmodel/LayerShapes.h"

namespace npuwb {

struct PlannedLayer {
    std::vector<const NodeShapes*> nodes;  // the anchor node first, then the nodes fused into it
    std::string npuOp;                     // RKNN op name; empty when the layer runs on the CPU
    std::string cpuReason;                 // why it is not on the NPU
    std::string rewrite;                   // what the converter turned the anchor into, when it rewrote it
    NpuWork work;                          // NPU work (shapes, bytes) when npuOp is set
    int64_t cpuBytes = 0;                  // fp32 bytes the CPU fallback reads and writes
    int64_t cpuConvertElements = 0;        // CPU fallback: elements of its inputs from / outputs to NPU layers
    bool cpuSwitch = false;                // CPU fallback run after an NPU layer: an NPU -> CPU -> NPU hand-over
};

/// `dtype` is the profile's dtype key ("int8", "fp16").
std::vector<PlannedLayer> planLayers(const std::vector<NodeShapes>& nodes, const Graph& graph, const ChipProfile& chip,
                                     const std::string& dtype);

/// The first limit of `op` the node violates, as "weight.kernel_h = 33 not in [1, 31]"; nullopt when within all.
/// Limits on keys this model does not understand (recurrent-op dims and the like) are not checked.
std::optional<std::string> violatedLimit(const NpuOp& op, const NodeShapes& node);

/// Pooling layers (MaxPool, GlobalAveragePool, GlobalMaxPool) whose window is beyond the op's kernel limit: the
/// converter splits them into a cascade of pooling layers within the limit (a 13-wide max pool = two stride-1
/// 7-wide ones; a global average over 80x80 = average pools of at most 7x7 in turn). The number of layers, or
/// nullopt when the op is no such pooling or a limit other than the window is violated.
std::optional<int64_t> poolingPasses(const NpuOp& op, const NodeShapes& node);

}  // namespace npuwb
