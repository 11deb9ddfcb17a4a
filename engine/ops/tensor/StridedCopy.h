#pragma once
// The fast path of the data-movement kernels: a strided copy that moves whole contiguous runs (memcpy) and splits
// the outer loops over kernelThreads(). Slice, Transpose, Concat, Split, Pad, Expand and Gather use it for every
// element type stored a whole byte or more per element; strings and 4-bit types keep the index-list path.
#include <cstdint>
#include <vector>

#include "npuwb/ir/Tensor.h"

namespace npuwb::tensorops {

/// True when elements of `dtype` can be moved as bytes (not strings, not packed 4-bit types).
bool bytewiseCopyable(DType dtype);

/// For every coordinate c of `shape`: dst[dstOffset + sum c[d]*dstStrides[d]] = src[srcOffset + sum c[d]*srcStrides[d]]
/// (offsets and strides in elements; a source stride may be 0 to repeat). Both tensors of one bytewise-copyable type.
void stridedCopy(const Tensor& src, int64_t srcOffset, const std::vector<int64_t>& srcStrides, Tensor& dst,
                 int64_t dstOffset, const std::vector<int64_t>& dstStrides, const Shape& shape);

/// A new tensor of `outShape` whose element c is src[offset + sum c[d]*strides[d]]; any element type.
Tensor stridedGather(const Tensor& src, const Shape& outShape, const std::vector<int64_t>& strides, int64_t offset = 0);

}  // namespace npuwb::tensorops
