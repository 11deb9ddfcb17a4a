#pragma once
// The engine's plain matmul reference, prepared once per B like a kernel: the oracle kernels are tested against
// and the fallback when no plugin runs a spec.
#include <memory>

#include "npuwb/sdk/MatmulKernel.h"

namespace npuwb {

/// A MatmulKernel on naive loops (k ascending); B is kept dequantized (fp16-A types) or zero-point-shifted.
std::unique_ptr<MatmulKernel> prepareReferenceMatmul(const MatmulKernelSpec& spec, const void* b);

/// Element (m, k) of a row-major A [M,K] as a float (fp16 A) or integer (int8/int4 A).
float matmulFloatAt(DType dtype, const void* data, int64_t index);
int32_t matmulIntAt(DType dtype, const void* data, int64_t index);

}  // namespace npuwb
