#pragma once
// Capability checks and lowerings, one pair per op family file.
#include "Lowering.h"

namespace npuwb::xnn {

Capability supportsConv(const NodeQuery& q);             // ConvOps.cpp
void lowerConv(LowerContext& ctx, const FusedGroup& g);
Capability supportsBatchNorm(const NodeQuery& q);
void lowerBatchNorm(LowerContext& ctx, const FusedGroup& g);

Capability supportsMaxPool(const NodeQuery& q);          // PoolOps.cpp
void lowerMaxPool(LowerContext& ctx, const FusedGroup& g);
Capability supportsAveragePool(const NodeQuery& q);
void lowerAveragePool(LowerContext& ctx, const FusedGroup& g);
Capability supportsGlobalAveragePool(const NodeQuery& q);
void lowerGlobalAveragePool(LowerContext& ctx, const FusedGroup& g);

Capability supportsGemm(const NodeQuery& q);             // GemmOps.cpp
void lowerGemm(LowerContext& ctx, const FusedGroup& g);
Capability supportsMatMul(const NodeQuery& q);
void lowerMatMul(LowerContext& ctx, const FusedGroup& g);

Capability supportsBinary(const NodeQuery& q);           // BinaryOps.cpp (Add, Sub, Mul, Div)
void lowerBinary(LowerContext& ctx, const FusedGroup& g);

Capability supportsUnary(const NodeQuery& q);            // UnaryOps.cpp (Relu, Clip, Sigmoid, HardSwish, LeakyRelu)
void lowerUnary(LowerContext& ctx, const FusedGroup& g);
Capability supportsSoftmax(const NodeQuery& q);
void lowerSoftmax(LowerContext& ctx, const FusedGroup& g);

Capability supportsConcat(const NodeQuery& q);           // ShapeOps.cpp
void lowerConcat(LowerContext& ctx, const FusedGroup& g);
Capability supportsReshape(const NodeQuery& q);          // Reshape and Flatten
void lowerReshape(LowerContext& ctx, const FusedGroup& g);

// Int8Ops.cpp: the qs8 path (QuantParams.h has the u8 storage and rounding rules).
void lowerQuantize(LowerContext& ctx, const FusedGroup& g);
void lowerDequantize(LowerContext& ctx, const FusedGroup& g);
void lowerQLinear(LowerContext& ctx, const FusedGroup& g);
/// Lowers `g` as int8 when its pattern allows (DQ inputs -> Conv/Gemm/MatMul/Add/MaxPool/Concat/GlobalAveragePool ->
/// [Relu|Clip] -> Q, or data movement of a dequantized value); false leaves it to the float lowering.
bool lowerInt8(LowerContext& ctx, const FusedGroup& g);
/// The convert step that gives a lazily dequantized value its float data; returns the float value's id.
int materializeDequantized(LowerContext& ctx, const std::string& name);

}  // namespace npuwb::xnn
