#pragma once
// What the RKNN converter does to an ONNX graph before it places ops on the NPU or the CPU, as far as it changes
// the cost (RKNN SDK user guide V2.5.0, 5.2.2-5.2.5, and the operator list's notes):
//   * a Div by a constant becomes a Mul by its reciprocal (Div itself runs on the NPU in float16 only);
//   * ReduceMean / ReduceSum over H and W become a global average pool; over the channels a 1x1 convolution
//     with one output channel (vendor perf logs name such layers "ReduceSum_2conv");
//   * a BatchNormalization that no convolution before it absorbs (pre-activation blocks) becomes a 1x1 depthwise
//     convolution (per-channel scale and bias), which a following Relu fuses into;
//   * x * Sigmoid(x) becomes one Swish (fused into the preceding convolution as ConvolutionSwish, "ConvExSwish"
//     in perf logs, or a standalone exSwish);
//   * a Transpose right after a graph input or right before a graph output becomes the input/output layout the
//     runtime converts to anyway (NHWC models keep their layout on the NPU side);
//   * no-op layers vanish: a pool with a 1x1 window and stride 1, a Pad of zeros (PyTorch exports both), and a
//     Transpose whose consumer, through such no-ops, is the inverse Transpose.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"
#include "perfmodel/LayerShapes.h"

namespace npuwb {

struct ConvertedNode {
    std::string opType;             // ONNX op type after the rewrite (unchanged when no rewrite applies)
    std::string rewrite;            // what the converter did, for notes ("Div by a constant -> Mul"); empty if none
    bool channelReduction = false;  // a reduction over channels run as a 1x1 convolution
    bool channelScale = false;      // a per-channel scale and bias run as a 1x1 depthwise convolution
};

ConvertedNode convertNode(const NodeShapes& node, const Graph& graph);

/// x * Sigmoid(x) pairs the converter turns into Swish: index of the Sigmoid -> index of the Mul (indices into
/// `nodes`). The Sigmoid's output must feed only that Mul, whose other operand is the Sigmoid's input.
std::map<size_t, size_t> swishPairs(const std::vector<NodeShapes>& nodes, const Graph& graph);

/// True for a Transpose the runtime's input or output layout conversion absorbs.
bool absorbedByIoLayout(const NodeShapes& node, const Graph& graph);

/// True for an op that leaves its input as it is (Identity, Dropout, a 1x1 stride-1 pool, a Pad of zeros).
bool isNoOp(const NodeShapes& node, const Graph& graph);

/// Indices (into `nodes`) of Transpose pairs that cancel: the first one's only consumer, through no-ops, is a
/// Transpose with the inverse permutation. The converter drops both.
std::set<size_t> cancellingTransposes(const std::vector<NodeShapes>& nodes, const Graph& graph);

/// Activations the NPU's output stage evaluates through its lookup table (ONNX op names and the fused step
/// "Swish"); Relu, Clip, PRelu and LeakyRelu are linear pieces it computes directly.
bool isLookupTableActivation(const std::string& opType);

}  // namespace npuwb
