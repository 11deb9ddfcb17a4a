#pragma once
// Stride arithmetic for zero-copy data movement in the oneDNN segment: reshapes that only regroup dims, and the
// layouts Transpose and Slice write. With them a channels-last (NHWC) int8 value stays channels-last through
// ShuffleNet's channel shuffle (Concat -> Reshape -> Transpose -> Reshape -> Slice) instead of going to NCHW for the
// reshapes and back for the next Conv. Pure functions on element strides (no oneDNN types), unit-tested.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace npuwb::onednn {

using Dims = std::vector<int64_t>;

/// Strides (in elements) under which dims `to` address the same elements as dims `from` with `strides`, in the
/// same row-major element order: a reshape without a copy. Nothing when it needs a copy (it regroups dims that are
/// not contiguous in storage) or the element counts differ.
std::optional<Dims> reshapedStrides(const Dims& from, const Dims& strides, const Dims& to);

/// The storage order (outermost first) of a strided layout: size-1 dims first (their strides address nothing),
/// then dims by decreasing stride, ties in dim order.
std::vector<size_t> storageOrder(const Dims& dims, const Dims& strides);

/// Dense strides for `dims` stored in `order` (outermost first).
Dims denseStrides(const Dims& dims, const std::vector<size_t>& order);

/// Storage order of a Transpose's output (output dim i is input dim perm[i]) for an input stored in `inputOrder`:
/// dims the permutation leaves in place keep their storage rank; the moved ones take the ranks the moved input
/// dims held, in output order. A plain input gives a plain output; a channels-last one keeps channels innermost.
std::vector<size_t> transposedOrder(const std::vector<size_t>& inputOrder, const std::vector<size_t>& perm);

}  // namespace npuwb::onednn
