#include "Layout.h"

#include <algorithm>
#include <cstring>

namespace npuwb::xnn {
namespace {

constexpr size_t kPixelTile = 64;  // pixels per task: keeps both sides of the transpose in cache

struct TransposeJob {
    const std::byte* src;
    std::byte* dst;
    size_t elemSize, channels, pixels;
    bool toNhwc;
};

template <class T>
void transposeTile(const TransposeJob& job, size_t n, size_t tile) {
    const size_t p0 = tile * kPixelTile, p1 = std::min(job.pixels, p0 + kPixelTile);
    const size_t image = job.channels * job.pixels;
    const T* src = reinterpret_cast<const T*>(job.src) + n * image;
    T* dst = reinterpret_cast<T*>(job.dst) + n * image;
    if (job.toNhwc) {
        for (size_t c = 0; c < job.channels; ++c)
            for (size_t p = p0; p < p1; ++p) dst[p * job.channels + c] = src[c * job.pixels + p];
    } else {
        for (size_t c = 0; c < job.channels; ++c)
            for (size_t p = p0; p < p1; ++p) dst[c * job.pixels + p] = src[p * job.channels + c];
    }
}

void runTile(void* context, size_t n, size_t tile) {
    const auto& job = *static_cast<const TransposeJob*>(context);
    switch (job.elemSize) {
        case 1: transposeTile<uint8_t>(job, n, tile); break;
        case 2: transposeTile<uint16_t>(job, n, tile); break;
        default: transposeTile<uint32_t>(job, n, tile); break;
    }
}

void transpose(const void* src, void* dst, size_t elemSize, size_t batch, size_t channels, size_t pixels,
               bool toNhwc, pthreadpool_t pool) {
    if (channels == 1 || pixels == 1) {  // same bytes in both layouts
        std::memcpy(dst, src, batch * channels * pixels * elemSize);
        return;
    }
    TransposeJob job{static_cast<const std::byte*>(src), static_cast<std::byte*>(dst), elemSize, channels, pixels,
                     toNhwc};
    pthreadpool_parallelize_2d(pool, runTile, &job, batch, (pixels + kPixelTile - 1) / kPixelTile, 0);
}

}  // namespace

void nchwToNhwc(const void* src, void* dst, size_t elemSize, size_t batch, size_t channels, size_t pixels,
                pthreadpool_t pool) {
    transpose(src, dst, elemSize, batch, channels, pixels, true, pool);
}

void nhwcToNchw(const void* src, void* dst, size_t elemSize, size_t batch, size_t channels, size_t pixels,
                pthreadpool_t pool) {
    transpose(src, dst, elemSize, batch, channels, pixels, false, pool);
}

std::vector<size_t> physicalDims(const Shape& shape, bool nhwc) {
    std::vector<size_t> dims(shape.begin(), shape.end());
    if (nhwc && dims.size() == 4) dims = {dims[0], dims[2], dims[3], dims[1]};
    return dims;
}

size_t physicalAxis(size_t axis, size_t rank, bool nhwc) {
    if (!nhwc || rank != 4) return axis;
    static constexpr size_t kToPhysical[4] = {0, 3, 1, 2};
    return kToPhysical[axis];
}

std::vector<float> constantToNhwc(const Tensor& constant, std::vector<size_t>& dimsOut) {
    Shape s = constant.shape();
    while (s.size() < 4) s.insert(s.begin(), 1);
    const std::vector<float> values = constant.toFloatVector();
    std::vector<float> out(values.size());
    const auto n = static_cast<size_t>(s[0]), c = static_cast<size_t>(s[1]);
    const auto pixels = static_cast<size_t>(s[2] * s[3]);
    nchwToNhwc(values.data(), out.data(), sizeof(float), n, c, pixels, nullptr);
    dimsOut = physicalDims(s, true);
    return out;
}

}  // namespace npuwb::xnn
