#include "ops/tensor/StridedCopy.h"

#include <cstring>

#include "ops/KernelUtil.h"
#include "ops/Parallel.h"
#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb::tensorops {

bool bytewiseCopyable(DType dtype) {
    return dtype != DType::String && dtype != DType::I4 && dtype != DType::U4 && dtype != DType::Undefined;
}

namespace {

struct Dim {
    int64_t size, src, dst;
};

/// Drops size-1 dims and merges neighbours that are contiguous in both tensors (innermost last).
std::vector<Dim> coalesce(const Shape& shape, const std::vector<int64_t>& src, const std::vector<int64_t>& dst) {
    std::vector<Dim> dims;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] == 1) continue;
        if (!dims.empty() && dims.back().src == src[d] * shape[d] && dims.back().dst == dst[d] * shape[d]) {
            dims.back() = Dim{dims.back().size * shape[d], src[d], dst[d]};
            continue;
        }
        dims.push_back(Dim{shape[d], src[d], dst[d]});
    }
    if (dims.empty()) dims.push_back(Dim{1, 1, 1});
    return dims;
}

template <size_t Bytes> struct Element {
    unsigned char b[Bytes];
};

/// Copies the innermost dim: a memcpy when it is contiguous on both sides, else element by element.
template <size_t Bytes>
void copyRow(const unsigned char* s, unsigned char* d, const Dim& inner) {
    if (inner.src == 1 && inner.dst == 1) {
        std::memcpy(d, s, static_cast<size_t>(inner.size) * Bytes);
        return;
    }
    using E = Element<Bytes>;
    const E* se = reinterpret_cast<const E*>(s);
    E* de = reinterpret_cast<E*>(d);
    if (inner.src == 0) {
        for (int64_t i = 0; i < inner.size; ++i) de[i * inner.dst] = se[0];
    } else {
        for (int64_t i = 0; i < inner.size; ++i) de[i * inner.dst] = se[i * inner.src];
    }
}

template <size_t Bytes>
void copyAll(const unsigned char* src, unsigned char* dst, const std::vector<Dim>& dims) {
    const Dim& inner = dims.back();
    const size_t outerRank = dims.size() - 1;
    int64_t rows = 1;
    for (size_t d = 0; d < outerRank; ++d) rows *= dims[d].size;
    parallelFor(rows, inner.size, [&](int64_t begin, int64_t end) {
        // Coordinates of row `begin`, then an odometer walk.
        std::vector<int64_t> coord(outerRank, 0);
        int64_t so = 0, doff = 0;
        for (int64_t r = begin, d = static_cast<int64_t>(outerRank) - 1; d >= 0; --d) {
            const Dim& dim = dims[static_cast<size_t>(d)];
            coord[static_cast<size_t>(d)] = r % dim.size;
            r /= dim.size;
            so += coord[static_cast<size_t>(d)] * dim.src;
            doff += coord[static_cast<size_t>(d)] * dim.dst;
        }
        for (int64_t r = begin; r < end; ++r) {
            copyRow<Bytes>(src + so * static_cast<int64_t>(Bytes), dst + doff * static_cast<int64_t>(Bytes), inner);
            for (int64_t d = static_cast<int64_t>(outerRank) - 1; d >= 0; --d) {
                const size_t du = static_cast<size_t>(d);
                so += dims[du].src;
                doff += dims[du].dst;
                if (++coord[du] < dims[du].size) break;
                so -= dims[du].src * dims[du].size;
                doff -= dims[du].dst * dims[du].size;
                coord[du] = 0;
            }
        }
    });
}

}  // namespace

void stridedCopy(const Tensor& src, int64_t srcOffset, const std::vector<int64_t>& srcStrides, Tensor& dst,
                 int64_t dstOffset, const std::vector<int64_t>& dstStrides, const Shape& shape) {
    if (shapeNumel(shape) == 0) return;
    if (src.dtype() != dst.dtype() || !bytewiseCopyable(src.dtype()))
        fail(ErrorKind::Internal, "stridedCopy: element types differ or are not bytewise copyable");
    const size_t bytes = dtypeSize(src.dtype());
    const auto* s = static_cast<const unsigned char*>(src.raw()) + srcOffset * static_cast<int64_t>(bytes);
    auto* d = static_cast<unsigned char*>(dst.raw()) + dstOffset * static_cast<int64_t>(bytes);
    const std::vector<Dim> dims = coalesce(shape, srcStrides, dstStrides);
    switch (bytes) {
        case 1: return copyAll<1>(s, d, dims);
        case 2: return copyAll<2>(s, d, dims);
        case 4: return copyAll<4>(s, d, dims);
        case 8: return copyAll<8>(s, d, dims);
        default: fail(ErrorKind::Internal, "stridedCopy: element size " + std::to_string(bytes));
    }
}

Tensor stridedGather(const Tensor& src, const Shape& outShape, const std::vector<int64_t>& strides, int64_t offset) {
    if (!bytewiseCopyable(src.dtype())) return gatherByIndex(src, outShape, stridedIndex(outShape, strides, offset));
    Tensor out = Tensor::uninitialized(src.dtype(), outShape);
    stridedCopy(src, offset, strides, out, 0, stridesOf(outShape), outShape);
    return out;
}

}  // namespace npuwb::tensorops
