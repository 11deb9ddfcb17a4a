#pragma once
// Helpers shared by the shape and data-movement kernels (engine/ops/tensor). Most of these ops only move
// elements around, so they compute "which source element lands at each output position" as a flat index list
// and let copyByIndex do the type-generic copy.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ops/Kernel.h"

namespace npuwb::tensorops {

/// out[i] = src[srcIndex[i]] for every output element; works for every element type, strings included.
Tensor gatherByIndex(const Tensor& src, Shape outShape, std::span<const int64_t> srcIndex);

/// Flat source offsets of a strided walk: output position with coordinates c maps to offset + sum(c[d] * strides[d]).
std::vector<int64_t> stridedIndex(const Shape& outShape, const std::vector<int64_t>& strides, int64_t offset = 0);

/// Calls fn(coord) for every coordinate of `shape` in row-major order (coord is reused between calls).
template <class F> void forEachCoord(const Shape& shape, F&& fn) {
    for (int64_t d : shape)
        if (d <= 0) return;
    std::vector<int64_t> coord(shape.size(), 0);
    while (true) {
        fn(static_cast<const std::vector<int64_t>&>(coord));
        int64_t d = static_cast<int64_t>(shape.size()) - 1;
        for (; d >= 0; --d) {
            size_t du = static_cast<size_t>(d);
            if (++coord[du] < shape[du]) break;
            coord[du] = 0;
        }
        if (d < 0) return;
    }
}

/// Integer list from input `index` when present, else from attribute `attr` (ops that moved attrs to inputs).
std::vector<int64_t> intsFromInputOrAttr(const KernelContext& ctx, size_t index, const std::string& attr);

/// A tensor of `dtype` and `shape` with every element set to `value` (converted; bool: value != 0).
Tensor filledTensor(DType dtype, const Shape& shape, double value);

/// All elements as doubles (for interpolation kernels that compute in double like the numpy references).
std::vector<double> toDoubles(const Tensor& t);
/// A numeric tensor from doubles (integer types round to nearest).
Tensor fromDoubles(DType dtype, Shape shape, const std::vector<double>& values);

/// Element 0 of a scalar-like tensor converted to double (pads value, ratios, ...).
inline double scalarAsDouble(const Tensor& t) { return t.numel() > 0 ? t.elementAsDouble(0) : 0.0; }

inline size_t uz(int64_t v) { return static_cast<size_t>(v); }
inline int64_t rankOf(const Tensor& t) { return static_cast<int64_t>(t.rank()); }

}  // namespace npuwb::tensorops

namespace npuwb::tensorops {
/// DType of an ONNX TensorProto.DataType number (the `dtype`/`to` attributes); fails via ctx for unknown numbers.
DType dtypeFromOnnx(const KernelContext& ctx, int64_t onnxType);
}  // namespace npuwb::tensorops
