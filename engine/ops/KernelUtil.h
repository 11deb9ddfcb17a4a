#pragma once
// Small helpers shared by the reference kernels: axes, strides, numpy broadcasting.
#include <cstdint>
#include <vector>

#include "npuwb/ir/Tensor.h"

namespace npuwb {

/// Maps a possibly negative axis into [0, rank) (or [0, rank] when `allowEnd`); throws InvalidInput otherwise.
int64_t normalizeAxis(int64_t axis, int64_t rank, bool allowEnd = false);
/// Shape arithmetic that refuses to wrap: a + b and a * b of dimensions, InvalidInput naming `what` on overflow.
int64_t addDims(int64_t a, int64_t b, const char* what);
int64_t mulDims(int64_t a, int64_t b, const char* what);
/// A count or size given as a floating-point value, as an integer: InvalidInput naming `what` when it is NaN,
/// infinite or beyond int64 (converting those is undefined behaviour).
int64_t integerFrom(double value, const char* what);
/// A data-dependent coordinate or index as an integer, saturated into [-2^62, 2^62] (NaN gives 0), for arithmetic on
/// values the model's data decides, where out-of-range results are then handled as out-of-range positions.
int64_t saturatedInteger(double value);
/// Checks the memory budget (npuwb/Limits.h) for an output of this type and shape plus a work buffer of
/// `workBytesPerElement` per output element, before a kernel builds index tables or other buffers of that size.
void checkOutputBudget(DType dtype, const Shape& shape, uint64_t workBytesPerElement);
/// Row-major strides in elements.
std::vector<int64_t> stridesOf(const Shape& shape);
/// Numpy-style broadcast of several shapes; throws InvalidInput naming both shapes when they do not broadcast.
Shape broadcastShapes(const std::vector<Shape>& shapes);

/// For an output shape and an input shape that broadcasts to it, maps output flat indices to input flat indices.
class BroadcastIndex {
public:
    BroadcastIndex(const Shape& outShape, const Shape& inShape);
    int64_t operator()(int64_t outIndex) const;
    /// Flat input offset for every output element (convenient for small reference loops).
    std::vector<int64_t> all() const;

private:
    Shape outShape_;
    std::vector<int64_t> outStrides_;
    std::vector<int64_t> inStrides_;  // 0 on broadcast axes
    bool identity_ = false;
};

}  // namespace npuwb
