#pragma once
// Helpers shared by the "flow" kernels (control flow, recurrent, sequences, signal, strings, training):
// dtype-agnostic copies of slices along an axis, stacking/concatenation, ONNX element-type codes.
#include <cstdint>
#include <vector>

#include "npuwb/ir/Tensor.h"

namespace npuwb::flow {

/// Copies `count` elements from src[srcOffset..] to dst[dstOffset..]; both tensors must share a dtype
/// (any dtype with one element per slot, strings included).
void copyElements(const Tensor& src, int64_t srcOffset, Tensor& dst, int64_t dstOffset, int64_t count);

/// Product of shape[begin, end).
int64_t dimProduct(const Shape& shape, size_t begin, size_t end);

/// t[..., index, ...] along `axis`, with that axis removed.
Tensor takeAlongAxis(const Tensor& t, int64_t axis, int64_t index);
/// Writes `slice` (dst's shape without `axis`) into dst[..., index, ...].
void putAlongAxis(Tensor& dst, int64_t axis, int64_t index, const Tensor& slice);
/// t[..., begin:end, ...] along `axis` (the axis is kept).
Tensor sliceAlongAxis(const Tensor& t, int64_t axis, int64_t begin, int64_t end);

/// Stacks same-shaped tensors along a new axis `axis` (0..rank). `items` must not be empty.
Tensor stackTensors(const std::vector<Tensor>& items, int64_t axis);
/// Concatenates tensors along an existing axis. `items` must not be empty.
Tensor concatTensors(const std::vector<Tensor>& items, int64_t axis);

/// All elements converted to double (numeric and bool tensors).
std::vector<double> toDoubles(const Tensor& t);
/// A numeric tensor of `dtype` holding `values` (converted with static_cast).
Tensor fromDoubles(DType dtype, Shape shape, const std::vector<double>& values);


}  // namespace npuwb::flow
