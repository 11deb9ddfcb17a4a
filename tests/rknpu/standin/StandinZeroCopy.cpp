#include "StandinZeroCopy.h"

#include <cstring>
#include <map>
#include <memory>
#include <mutex>

namespace npuwb::standin {

namespace {

struct MemBuffer {
    rknn_tensor_mem mem{};
    std::vector<uint8_t> bytes;
    rknn_context owner = 0;
};

std::mutex g_memMutex;
std::map<const rknn_tensor_mem*, std::unique_ptr<MemBuffer>> g_mems;

/// Byte offset of NCHW element (n, c, h, w) in the binding's layout.
size_t boundOffset(const Shape& s, const IoBinding& b, int64_t n, int64_t c, int64_t h, int64_t w) {
    const int64_t index =
        b.nhwc ? ((n * b.hStride + h) * b.wStride + w) * s[1] + c : ((n * s[1] + c) * s[2] + h) * s[3] + w;
    return static_cast<size_t>(index) * dtypeSize(b.type);
}

/// Calls f(dense byte offset, bound byte offset) for every element.
template <class F> void forEachElement(const Shape& s, const IoBinding& b, F f) {
    const size_t size = dtypeSize(b.type);
    if (!b.nhwc) {
        const size_t n = static_cast<size_t>(shapeNumel(s));
        for (size_t i = 0; i < n; ++i) f(i * size, i * size);
        return;
    }
    size_t dense = 0;
    for (int64_t n = 0; n < s[0]; ++n)
        for (int64_t c = 0; c < s[1]; ++c)
            for (int64_t h = 0; h < s[2]; ++h)
                for (int64_t w = 0; w < s[3]; ++w, dense += size) f(dense, boundOffset(s, b, n, c, h, w));
}

}  // namespace

void makeNative(rknn_tensor_attr& a, bool input, uint32_t inputWidthAlign) {
    if (a.fmt != RKNN_TENSOR_NHWC || a.n_dims != 4) {
        a.w_stride = 0;
        a.size_with_stride = a.size;
        return;
    }
    const uint32_t width = a.dims[2];
    a.w_stride = input ? (width + inputWidthAlign - 1) / inputWidthAlign * inputWidthAlign : width;
    const uint32_t elementBytes = a.n_elems ? a.size / a.n_elems : 0;
    a.size_with_stride = a.dims[0] * a.dims[1] * a.w_stride * a.dims[3] * elementBytes;
    a.h_stride = 0;  // written by the caller (0: the height)
}

size_t boundBytes(const Shape& s, const IoBinding& b) {
    if (!b.nhwc) return static_cast<size_t>(shapeNumel(s)) * dtypeSize(b.type);
    return static_cast<size_t>(s[0] * b.hStride * b.wStride * s[1]) * dtypeSize(b.type);
}

std::vector<uint8_t> gatherNchw(const Shape& shape, const IoBinding& b) {
    std::vector<uint8_t> dense(static_cast<size_t>(shapeNumel(shape)) * dtypeSize(b.type));
    const auto* src = static_cast<const uint8_t*>(b.mem->virt_addr);
    const size_t size = dtypeSize(b.type);
    forEachElement(shape, b, [&](size_t d, size_t o) { std::memcpy(dense.data() + d, src + o, size); });
    return dense;
}

void scatterNchw(const Shape& shape, const IoBinding& b, const void* nchw) {
    auto* dst = static_cast<uint8_t*>(b.mem->virt_addr);
    const auto* src = static_cast<const uint8_t*>(nchw);
    const size_t size = dtypeSize(b.type);
    forEachElement(shape, b, [&](size_t d, size_t o) { std::memcpy(dst + o, src + d, size); });
}

rknn_tensor_mem* createMem(rknn_context owner, uint32_t size) {
    auto buffer = std::make_unique<MemBuffer>();
    buffer->bytes.assign(size, 0);
    buffer->owner = owner;
    rknn_tensor_mem& m = buffer->mem;
    m.virt_addr = buffer->bytes.data();
    m.fd = -1;  // no dma-buf behind it
    m.size = size;
    m.flags = RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE;
    std::lock_guard lock(g_memMutex);
    rknn_tensor_mem* handle = &m;
    g_mems[handle] = std::move(buffer);
    return handle;
}

bool memOwner(const rknn_tensor_mem* mem, rknn_context& owner) {
    std::lock_guard lock(g_memMutex);
    auto it = g_mems.find(mem);
    if (it == g_mems.end()) return false;
    owner = it->second->owner;
    return true;
}

bool freeMem(rknn_tensor_mem* mem) {
    std::lock_guard lock(g_memMutex);
    return g_mems.erase(mem) == 1;
}

uint64_t liveMems() {
    std::lock_guard lock(g_memMutex);
    return g_mems.size();
}

}  // namespace npuwb::standin
