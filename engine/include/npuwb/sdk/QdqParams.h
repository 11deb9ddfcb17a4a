#pragma once
// Quantization parameters as QDQ graphs carry them, read for the int8 paths of the execution backends: per-tensor
// parameters of QuantizeLinear/DequantizeLinear and QLinearConv/QLinearMatMul, the symmetric int8 weights behind a
// folded DequantizeLinear, and int32 biases in accumulator units. Only parsing lives here; each backend turns the
// parameters into its own library's kernels (plugins/cpu-onednn/OnednnQuant.h, plugins/cpu-xnnpack/QuantParams.h).
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "npuwb/sdk/Backend.h"

namespace npuwb {

/// Per-tensor quantization of a value: real = scale * (q - zero), q of `type` (U8 or I8).
struct QuantParams {
    float scale = 1.f;
    int32_t zero = 0;
    DType type = DType::U8;
    bool operator==(const QuantParams&) const = default;
};

bool isQuantOp(const std::string& opType);  // QuantizeLinear or DequantizeLinear

/// The constant behind input `i` of `n`, or nullptr for absent inputs and values computed at run time.
const Tensor* constantInput(const GraphQuery& q, const Node& n, size_t i);
/// The node (folded or not) that produces `value`, or nullptr for graph inputs and initializers.
const Node* producerOf(const Graph& g, const std::string& value);

/// Per-tensor parameters of a QuantizeLinear/DequantizeLinear node from its constant inputs; nullopt when they are not
/// constants, per axis, not u8/s8, or the scale is not positive and finite.
std::optional<QuantParams> quantParamsOf(const GraphQuery& q, const Node& node);
/// Per-tensor parameters from a constant float32 scalar scale and u8/s8 scalar zero point (the x/y inputs of
/// QLinearConv/QLinearMatMul); nullopt for anything else or a scale that is not positive and finite.
std::optional<QuantParams> scalarQuantParams(const Tensor* scale, const Tensor* zero);
/// Capability of a QuantizeLinear/DequantizeLinear node in the per-tensor form the backends run: float32 <-> u8/s8,
/// constant scalar scale and zero point, saturate=1.
Capability supportsPerTensorQdq(const NodeQuery& q);

/// Symmetric int8 weights: the values (a view of the model's constant, valid while the plan's constants are) and
/// one scale per entry of the output-channel axis.
struct Int8Weights {
    std::span<const int8_t> values;
    std::vector<float> scales;
};
/// The int8 weights behind a constant the engine folded from DequantizeLinear(int8 initializer), with scales along
/// `axis` (size `channels`; a per-tensor scale is repeated); nullopt for other constants or non-zero zero points.
std::optional<Int8Weights> int8WeightsOf(const GraphQuery& q, const std::string& weightValue, int64_t axis,
                                         int64_t channels);
/// The weights of a QLinearConv (w: O x I x KH x KW) or QLinearMatMul (w = B: K x N) from their constant inputs:
/// int8 values with zero points 0 and scales per tensor or per output channel. nullopt with `why` set otherwise.
std::optional<Int8Weights> qlinearWeights(const Tensor* w, const Tensor* scales, const Tensor* zeros, bool conv,
                                          std::string& why);

/// The integers of a bias folded from DequantizeLinear(int32 constant) with zero point 0 and scale
/// x_scale * w_scale[c] (the accumulator's units), one per channel of `wScales`; nullopt for any other bias.
std::optional<std::vector<int32_t>> exactInt32Bias(const GraphQuery& q, const std::string& biasValue, float xScale,
                                                   const std::vector<float>& wScales);
/// The float values of a constant bias with one value per channel. Throws Error(Unsupported) naming the bias otherwise.
std::vector<float> constantBias(const GraphQuery& q, const std::string& biasValue, size_t channels);

}  // namespace npuwb
