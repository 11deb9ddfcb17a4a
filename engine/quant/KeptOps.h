#pragma once
// Transformer ops the quantizer keeps out of int8: layer normalization, softmax and GELU, whole (an ONNX op) or in
// the decomposed forms exporters write. Their inputs and the values inside them are never int8: a grid over the
// softmax scores' range is set by the -3.4e38 attention mask, one over x - mean in a layer norm by its outliers,
// and GELU's int8 steps near 0 turn into the next layer's bias. They run in fp16 where the chip's NPU has them
// in fp16, else in float (the vendor runtime runs them on the CPU).
#include <map>
#include <string>

#include "npuwb/ir/Graph.h"
#include "npuwb/Quantizer.h"

namespace npuwb::quant::detail {

enum class KeptKind { LayerNorm, Softmax, Gelu };
std::string_view keptKindName(KeptKind kind);  // "LayerNorm" | "Softmax" | "GELU"

/// Every node of such an op, by node display name:
///   LayerNorm  LayerNormalization; ReduceMean, Sub(x, mean), Pow(d, 2) | Mul(d, d), ReduceMean, Add(eps), Sqrt,
///              Div(d, .) [, Mul(gamma)] [, Add(beta)]
///   Softmax    Softmax, and the scale (Mul/Div by a scalar) and mask (Add/Sub, Where) between it and the scores
///   GELU       Gelu; x * 0.5 * (1 + Erf(x / sqrt 2)) and 0.5 * x * (1 + Tanh(c * (x + 0.044715 x^3))) in any
///              operand order: the scalar ops from x to Erf/Tanh, then Add/Mul by scalars and the Mul by x
std::map<std::string, KeptKind> findKeptOps(const Graph& graph);

/// Fp16 when the chip's NPU runs the op in float16 (also when no profile is named `chip`: the NPUs' float type),
/// Float when it has no such NPU op (the runtime runs it on the CPU in float32).
Precision keptPrecision(KeptKind kind, const std::string& chip);

}  // namespace npuwb::quant::detail
