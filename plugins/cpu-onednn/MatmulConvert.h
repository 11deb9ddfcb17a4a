#pragma once
// Element conversions around the matmul kernels and fp16 values: fp16 <-> fp32 (F16C when the CPU has it, rounding to nearest
// even like npuwb/ir/Half.h), fp32 -> bf16, int4 -> int8.
#include <cstdint>

namespace npuwb::onednn {

/// `rows` rows of `cols` fp16 values (row stride `cols`) to fp32 rows of stride `ld` (ld >= cols, tail zeroed).
void halfRowsToFloat(const uint16_t* src, float* dst, int64_t rows, int64_t cols, int64_t ld);
void floatToHalf(const float* src, uint16_t* dst, int64_t count);
/// Each value rounded to the nearest fp16 value, kept as fp32 (how a segment holds an fp16 value: the quantizer's
/// Cast(fp16) -> Cast(float) pairs that keep LayerNorm, Softmax and GELU in fp16).
void roundToHalf(const float* src, float* dst, int64_t count);
void floatToBFloat16(const float* src, uint16_t* dst, int64_t count);
/// Packed int4 (npuwb/MatmulTypes.h) to one int8 per value.
void int4ToInt8(const void* src, int8_t* dst, int64_t count);

}  // namespace npuwb::onednn
