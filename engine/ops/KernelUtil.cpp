#include "ops/KernelUtil.h"

#include <algorithm>
#include <cmath>

#include "npuwb/Limits.h"

#include <string>

namespace npuwb {

int64_t normalizeAxis(int64_t axis, int64_t rank, bool allowEnd) {
    int64_t limit = allowEnd ? rank + 1 : rank;
    int64_t a = axis < 0 ? axis + limit : axis;
    if (a < 0 || a >= limit)
        failInput("axis " + std::to_string(axis) + " is out of range for a tensor of rank " + std::to_string(rank));
    return a;
}

std::vector<int64_t> stridesOf(const Shape& shape) {
    std::vector<int64_t> s(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
        s[static_cast<size_t>(i)] = s[static_cast<size_t>(i) + 1] * shape[static_cast<size_t>(i) + 1];
    return s;
}

Shape broadcastShapes(const std::vector<Shape>& shapes) {
    size_t rank = 0;
    for (const auto& s : shapes) rank = std::max(rank, s.size());
    Shape out(rank, 1);
    for (const auto& s : shapes) {
        size_t offset = rank - s.size();
        for (size_t i = 0; i < s.size(); ++i) {
            int64_t d = s[i];
            int64_t& o = out[offset + i];
            if (d == o || d == 1) continue;
            if (o == 1) { o = d; continue; }
            std::string all;
            for (const auto& x : shapes) all += (all.empty() ? "" : " and ") + shapeToString(x);
            failInput("shapes " + all + " cannot be broadcast together");
        }
    }
    return out;
}

BroadcastIndex::BroadcastIndex(const Shape& outShape, const Shape& inShape) : outShape_(outShape) {
    identity_ = outShape == inShape;
    outStrides_ = stridesOf(outShape);
    std::vector<int64_t> inS = stridesOf(inShape);
    inStrides_.assign(outShape.size(), 0);
    size_t offset = outShape.size() - inShape.size();
    for (size_t i = 0; i < inShape.size(); ++i)
        inStrides_[offset + i] = inShape[i] == 1 ? 0 : inS[i];
}

int64_t BroadcastIndex::operator()(int64_t outIndex) const {
    if (identity_) return outIndex;
    int64_t in = 0;
    for (size_t d = 0; d < outShape_.size(); ++d) {
        int64_t coord = outIndex / outStrides_[d];
        outIndex -= coord * outStrides_[d];
        in += coord * inStrides_[d];
    }
    return in;
}

std::vector<int64_t> BroadcastIndex::all() const {
    int64_t n = shapeNumel(outShape_);
    std::vector<int64_t> idx(static_cast<size_t>(n));
    if (identity_) {
        for (int64_t i = 0; i < n; ++i) idx[static_cast<size_t>(i)] = i;
        return idx;
    }
    // Odometer walk: O(n) instead of a division per axis per element.
    std::vector<int64_t> coord(outShape_.size(), 0);
    int64_t in = 0;
    for (int64_t i = 0; i < n; ++i) {
        idx[static_cast<size_t>(i)] = in;
        for (int64_t d = static_cast<int64_t>(outShape_.size()) - 1; d >= 0; --d) {
            size_t du = static_cast<size_t>(d);
            if (++coord[du] < outShape_[du]) { in += inStrides_[du]; break; }
            in -= inStrides_[du] * (coord[du] - 1);
            coord[du] = 0;
        }
    }
    return idx;
}

int64_t addDims(int64_t a, int64_t b, const char* what) {
    int64_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        failInput(std::string(what) + ": " + std::to_string(a) + " + " + std::to_string(b) + " overflows a dimension");
    return r;
}

int64_t mulDims(int64_t a, int64_t b, const char* what) {
    int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        failInput(std::string(what) + ": " + std::to_string(a) + " x " + std::to_string(b) + " overflows a dimension");
    return r;
}

int64_t integerFrom(double value, const char* what) {
    constexpr double kLimit = 9.2e18;  // just under 2^63
    if (!std::isfinite(value) || value >= kLimit || value <= -kLimit)
        failInput(std::string(what) + " is " + std::to_string(value) + ", not a usable integer");
    return static_cast<int64_t>(value);
}

int64_t saturatedInteger(double value) {
    constexpr double kLimit = 4611686018427387904.0;  // 2^62: room left for small sums
    if (std::isnan(value)) return 0;
    return static_cast<int64_t>(std::clamp(value, -kLimit, kLimit));
}

void checkOutputBudget(DType dtype, const Shape& shape, uint64_t workBytesPerElement) {
    const uint64_t out = tensorByteSize(dtype, shape);
    const auto n = static_cast<uint64_t>(shapeNumel(shape));
    const uint64_t work = workBytesPerElement && n > UINT64_MAX / workBytesPerElement ? UINT64_MAX : n * workBytesPerElement;
    const uint64_t total = out > UINT64_MAX - work ? UINT64_MAX : out + work;
    if (!withinMemoryBudget(total))
        checkMemoryBudget(total, "the " + std::string(dtypeName(dtype)) + " output of shape " + shapeToString(shape) +
                                     (workBytesPerElement ? " and its work buffer" : ""));
}

}  // namespace npuwb
