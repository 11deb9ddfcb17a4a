#pragma once
// What the stand-in's model runtime (StandinRuntime.cpp) and its matmul API (StandinMatmul.cpp) share: core masks,
// and the zero-copy buffers of matmul contexts (rknn_create_mem / rknn_destroy_mem take either kind of context).
#include <cstdint>

#include "standin_rknn_api.h"

namespace npuwb::standin {

/// Core masks a chip with `cores` NPU cores has (RKNN SDK user guide V2.5.0, rknn_set_core_mask: multi-core chips
/// only; a single-core chip takes AUTO and CORE_0).
bool coreMaskValid(int mask, int64_t cores);

/// Whether `handle` is a live matmul context (rknn_matmul_create*).
bool isMatmulContext(rknn_context handle);
/// A buffer of a matmul context is being destroyed: it is no longer bound to A, B or C.
void unbindMatmulMem(rknn_context handle, const rknn_tensor_mem* mem);

}  // namespace npuwb::standin
