#pragma once
// Row kernels of the fused attention core (OnednnAttention.cpp): the steps exporters and the quantizer put between
// the two MatMuls, applied to a block of score rows while it is in cache.
#include <cstdint>

namespace npuwb::onednn {

/// x[i] *= factor.
void multiplyRow(float* x, int64_t count, float factor);
/// x[i] /= divisor (a division, like the reference: 1/divisor would round).
void divideRow(float* x, int64_t count, float divisor);
/// x[i] += addend[i * stride] (stride 1, or 0 for one value broadcast over the row).
void addRow(float* x, int64_t count, const float* addend, int64_t stride);
/// Softmax of the row in place: exp(x - max) / sum, the exponential from a polynomial accurate to about 1 ulp (and
/// the division a product with 1/sum).
void softmaxRow(float* x, int64_t count);

}  // namespace npuwb::onednn
