#pragma once
// The zero-copy I/O path of one context: buffers made by the runtime (rknn_create_mem) and bound to the model's
// inputs and outputs (rknn_set_io_mem), read and written in the runtime's native layout. The RV1106/RV1103 mini
// runtime librknnmrt.so has no other I/O (no rknn_inputs_set / rknn_outputs_get); a run takes this path whenever the
// library lacks the rknn_inputs_set one (RknnLibrary::zeroCopyIo). Private to the plugin.
//
// The rest of the plugin keeps its buffers in the plain layout and types of RKNN_QUERY_INPUT_ATTR / OUTPUT_ATTR; this
// class converts between those and the native attributes (RKNN_QUERY_NATIVE_INPUT_ATTR / NATIVE_OUTPUT_ATTR):
//  - layouts: NCHW, NHWC (rows of w_stride pixels, h_stride rows when the runtime gives one) and flat tensors of any
//    rank; an output whose native layout is NC1HWC2 is read through RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR, as the
//    vendor's RV1106 examples do. An input whose native layout is NC1HWC2 is refused, naming it.
//  - types: an input buffer of the plain type is bound with that type when it has the native element size (the
//    runtime converts, as for a uint8 image into an int8 model); other input types are converted here (float to an
//    affine or fixed-point quantized type with the native scale and zero point). Outputs are read in the native type
//    and converted to the plain one here (dequantized with the native scale and zero point).
// No rknn_mem_sync: contexts are made without RKNN_FLAG_DISABLE_FLUSH_INPUT_MEM_CACHE / _OUTPUT_MEM_CACHE, so the
// runtime flushes and invalidates the buffers' caches around each run itself (rknn_api.h, those flags).
#include <cstdint>
#include <string>
#include <vector>

#include "RknnLibrary.h"

namespace npuwb::rknpu {

class RknnZeroCopyIo {
public:
    /// Queries the plain and native attributes of every input and output, makes one buffer per tensor
    /// (rknn_create_mem of size_with_stride bytes) and binds it (rknn_set_io_mem). Throws Error(InvalidInput) naming
    /// the model, the tensor and the failing call; the buffers made before a failure are destroyed.
    RknnZeroCopyIo(const RknnLibrary& lib, rknn::Context ctx, const std::string& model);
    /// rknn_destroy_mem for every buffer: call before rknn_destroy of the context.
    ~RknnZeroCopyIo();
    RknnZeroCopyIo(const RknnZeroCopyIo&) = delete;
    RknnZeroCopyIo& operator=(const RknnZeroCopyIo&) = delete;

    /// Copies one run's input `i` (`data`: element type `type`, the plain attribute's layout and element count) into
    /// its buffer in the native layout.
    void writeInput(size_t i, const uint8_t* data, int32_t type) const;
    /// Reads one run's output `k` from its buffer into `dest` (the plain attribute's type and layout, attr.size bytes).
    void readOutput(size_t k, uint8_t* dest) const;
    /// Bytes of every buffer this context made (sizes with stride).
    int64_t bufferBytes() const;

    struct Bound;  // one tensor and its buffer (RknnZeroCopy.cpp)

private:
    const RknnLibrary& lib_;
    rknn::Context ctx_;
    std::string model_;
    std::vector<Bound> inputs_, outputs_;
    void destroyAll();
};

}  // namespace npuwb::rknpu
