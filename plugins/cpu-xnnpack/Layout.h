#pragma once
// NCHW <-> NHWC conversion at segment boundaries, and the shape bookkeeping for values stored NHWC.
#include <pthreadpool.h>

#include <cstddef>
#include <vector>

#include "npuwb/ir/Tensor.h"

namespace npuwb::xnn {

/// Moves `channels` planes of `pixels` elements (per batch image) into pixel-major order, or back.
void nchwToNhwc(const void* src, void* dst, size_t elemSize, size_t batch, size_t channels, size_t pixels,
                pthreadpool_t pool);
void nhwcToNchw(const void* src, void* dst, size_t elemSize, size_t batch, size_t channels, size_t pixels,
                pthreadpool_t pool);

/// The physical (row-major) dims of a value: NCHW shapes of rank-4 values become [N,H,W,C].
std::vector<size_t> physicalDims(const Shape& shape, bool nhwc);
/// Physical axis of logical `axis` (already normalised to [0, rank)).
size_t physicalAxis(size_t axis, size_t rank, bool nhwc);
/// A constant of rank <= 4 broadcast against a rank-4 NHWC value: pads it to rank 4 and permutes its data to NHWC.
std::vector<float> constantToNhwc(const Tensor& constant, std::vector<size_t>& dimsOut);

}  // namespace npuwb::xnn
