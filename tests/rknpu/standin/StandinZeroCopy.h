#pragma once
// The stand-in's zero-copy API (README.md here, "Zero-copy buffers"): the buffers rknn_create_mem makes, the native
// layout the NATIVE_* queries report, and the copies between a bound buffer and the model's NCHW tensors.
// Engine public API only.
#include <cstdint>
#include <vector>

#include "npuwb/ir/Tensor.h"
#include "standin_rknn_api.h"

namespace npuwb::standin {

/// Native input rows are padded to a multiple of the chip profile's zeroCopyInputWidthAlign pixels (w_stride), this
/// many where the profile is not installed, so the stride logic of a caller shows on any input whose width is not a
/// multiple of it (an 8-wide input on RV1106 has w_stride 16).
inline constexpr uint32_t kDefaultInputWidthAlign = 16;

/// Turns the NHWC attributes of a tensor (fillAttr with nhwc) into its native ones: a 4-D input gets w_stride = its
/// width rounded up to `inputWidthAlign` and size_with_stride to match; a 4-D output keeps w_stride = its width;
/// tensors of other ranks are flat (w_stride 0, size_with_stride = size).
void makeNative(rknn_tensor_attr& a, bool input, uint32_t inputWidthAlign);

/// A buffer bound to an input or output with rknn_set_io_mem, and how its bytes are laid out.
struct IoBinding {
    rknn_tensor_mem* mem = nullptr;
    DType type = DType::F32;  // what the buffer holds
    bool nhwc = false;        // NHWC rows of wStride pixels, hStride rows per image; else the model's NCHW, dense
    int64_t hStride = 0, wStride = 0;
};

/// Bytes the binding's layout needs for a tensor of NCHW `shape`.
size_t boundBytes(const Shape& shape, const IoBinding& b);
/// The bound buffer's values as a dense NCHW buffer of b.type (padding dropped).
std::vector<uint8_t> gatherNchw(const Shape& shape, const IoBinding& b);
/// Writes a dense NCHW buffer of b.type into the bound buffer in its layout (padding left as it is).
void scatterNchw(const Shape& shape, const IoBinding& b, const void* nchw);

/// A new zero-filled buffer of `size` bytes owned by context `owner`; null when out of memory.
rknn_tensor_mem* createMem(rknn_context owner, uint32_t size);
/// The owner of a buffer createMem made and has not freed; false for anything else.
bool memOwner(const rknn_tensor_mem* mem, rknn_context& owner);
/// Frees a buffer createMem made; false for anything else.
bool freeMem(rknn_tensor_mem* mem);
/// Buffers made and not yet freed.
uint64_t liveMems();

}  // namespace npuwb::standin
