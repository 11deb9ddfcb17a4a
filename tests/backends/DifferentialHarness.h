#pragma once
// Differential testing of an execution backend against the reference kernels: small seeded models (one op, or a
// fusable chain) on random shapes, run by both, compared elementwise. Any backend can reuse it by name.
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"
#include "npuwb/ExecutionObserver.h"
#include "npuwb/Session.h"

namespace npuwb::difftest {

struct Case {
    std::string label;                     // "Conv c=17 k=3 s=2 g=17 d=1"
    std::shared_ptr<Model> model;
    std::map<std::string, Tensor> inputs;  // seeded random
};

/// Builds one model: `nodes` in order, graph inputs and outputs declared with concrete float shapes, the
/// initializers given. Inputs get uniform(-1, 1) values from `rng`.
Case makeCase(std::string label, std::vector<Node> nodes, const std::map<std::string, Shape>& graphInputs,
              const std::vector<std::string>& graphOutputs, std::map<std::string, Tensor> initializers,
              std::mt19937& rng, int64_t opset = 17);

Tensor randomTensor(const Shape& shape, std::mt19937& rng, float lo = -1.f, float hi = 1.f);
/// A shape as case labels write it: "2x3x17".
std::string dimsLabel(const Shape& s);
Node makeNode(std::string op, std::vector<std::string> inputs, std::vector<std::string> outputs,
              std::map<std::string, Attribute> attributes = {});

/// The standard case set: every op cpu backends claim, odd channel counts (1, 3, 7, 17, 33), strides 1-2, pads,
/// dilations, groups/depthwise, fused chains (Conv+BN+Relu, Conv+Add+Relu), broadcasting binaries.
std::vector<Case> standardCases(uint32_t seed);
/// Groups of the standard set kept in their own file (ReduceResizeCases.cpp): Reduce* with no axes (every axis) and
/// over inner runs of axes, pooling a Transpose's output, linear Resize with align_corners by sizes and by scales.
void addAllAxisReduceCases(std::vector<Case>& cases, std::mt19937& rng);
void addInnerAxisReduceCases(std::vector<Case>& cases, std::mt19937& rng);
void addTransposedPoolCases(std::vector<Case>& cases, std::mt19937& rng);
/// Conv then ReduceMean/Sum/Max/Min over H and W, keepdims 0 and 1.
void addConvSpatialReduceCases(std::vector<Case>& cases, std::mt19937& rng);
void addAlignCornersResizeCases(std::vector<Case>& cases, std::mt19937& rng);
/// FusionCases.cpp: pre-activation residual blocks (a Conv's sum into its residual's buffer, and where it must copy),
/// BatchNormalization + Relu with and without other readers of the normalized value, and HardSwish written with the
/// Div last (paddle2onnx) after a Conv; LayerNormalization.
void addInPlaceResidualCases(std::vector<Case>& cases, std::mt19937& rng);
void addBatchNormReluCases(std::vector<Case>& cases, std::mt19937& rng);
void addDivLastHardSwishCases(std::vector<Case>& cases, std::mt19937& rng);
/// LayerNormalization over random axes and ranks; a broadcast scale and a requested Mean output (not claimed).
void addLayerNormCases(std::vector<Case>& cases, std::mt19937& rng);
void addConvConcatCases(std::vector<Case>& cases, std::mt19937& rng);
/// A channel Concat read only by a Conv (run as one Conv per Concat input), and where it must stay.
void addConcatIntoConvCases(std::vector<Case>& cases, std::mt19937& rng);
/// TransformerCases.cpp: MatMul with a 2-D weight over 2-D to 4-D A (bias Add either side, Relu, a scalar Mul), a
/// broadcast 2-D B and a batched one.
void addMatMulWeightCases(std::vector<Case>& cases, std::mt19937& rng);
/// GELU in four exporter orders after MatMul+bias, alone, and where it must not fuse; Erf.
/// GELU of `x` into `y` as nodes, in one of the four orders exporters write (0, 1: erf; 2, 3: tanh). Node outputs
/// get `p` as a prefix; the constants they read are geluConstants().
std::vector<Node> geluNodes(int form, const std::string& x, const std::string& y, const std::string& p);
std::map<std::string, Tensor> geluConstants();
const char* geluFormName(int form);
void addGeluCases(std::vector<Case>& cases, std::mt19937& rng);
/// LayerNorm in its opset < 17 form (one or two axes, axes as an input, d*d, no affine) and unfused.
void addDecomposedLayerNormCases(std::vector<Case>& cases, std::mt19937& rng);
/// Gather with constant indices on every axis, Where with a constant causal mask (then Softmax), Transposes of size-1
/// dims around a MatMul.
void addGatherWhereCases(std::vector<Case>& cases, std::mt19937& rng);
/// Conv1d (with GELU, stride 2, grouped and dilated) and Slices with steps (patch merging, a step of 3).
void addConv1dStridedSliceCases(std::vector<Case>& cases, std::mt19937& rng);
/// Binaries broadcast along a middle axis (Swin's window mask) and by rows, for every binary op.
void addMiddleBroadcastCases(std::vector<Case>& cases, std::mt19937& rng);
/// Integer graph inputs (int64 and int32): embedding Gathers of token ids, an attention mask cast to float.
void addTokenInputCases(std::vector<Case>& cases, std::mt19937& rng);
/// The quantizer's fp16 marks (Cast to fp16 and back) before LayerNorm and Softmax, with values near the ends of fp16's range.
void addHalfRoundTripCases(std::vector<Case>& cases, std::mt19937& rng);
/// A MatMul (scores, or by a weight) divided by a scalar: the division a post-op of the MatMul.
void addScaledScoreCases(std::vector<Case>& cases, std::mt19937& rng);
/// The attention core in float: heads split and merged by Transposes, scale, mask or bias per head, and a variant whose
/// probabilities are read elsewhere (not fused).
void addAttentionCoreCases(std::vector<Case>& cases, std::mt19937& rng);
/// The attention core as the quantizer writes it: Q, K, V and the probabilities through QDQ (u8 and s8), fp16 marks.
void addQuantizedAttentionCases(std::vector<Case>& cases, std::mt19937& rng);
/// The same core fed by int8 Linears whose heads are split (Reshape, Transpose) before they are quantized; with
/// `quantizedOutput` the heads are merged back and quantized, and the u8 result is the output.
void addLinearFedAttentionCases(std::vector<Case>& cases, std::mt19937& rng, bool quantizedOutput = false);
void addFusedProjectionAttentionCases(std::vector<Case>& cases, std::mt19937& rng);

struct Outcome {
    std::string label;
    bool claimed = false;   // the backend ran every node (no fallbacks)
    bool passed = false;
    double worstRelative = 0.0;  // max |a-b| / max(1e-3, |ref|)... see compareTensors
    std::string message;
};

/// The oracle: the reference kernels on the model as given (no exact rewrites; the backend side gets them, so its
/// results check the rewrites too).
Session referenceSession(std::shared_ptr<const Model> model);

/// Runs `c` on the reference executor and on `backend` (learning run, then a backend run) and compares all
/// outputs with relative tolerance `tolerance` (|a-b| <= tolerance * max(|ref|, 1)).
Outcome runCase(const Case& c, const std::string& backend, double tolerance = 1e-4);

/// A `backend` session prepared for `inputs` (shapes learned, plan compiled) with `watch` observing the learning.
std::unique_ptr<Session> preparedSession(std::shared_ptr<Model> model, const std::string& backend,
                                         const std::map<std::string, Tensor>& inputs, ExecutionObserver& watch);

}  // namespace npuwb::difftest
