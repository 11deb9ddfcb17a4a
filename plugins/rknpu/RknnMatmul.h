#pragma once
// The plugin's matmul kernels: the engine's matmul spec through the vendor's matmul calls of librknnrt.so
// (RknnMatmulApi.h). A device provider (npuwb/sdk/MatmulKernel.h): operands come in the spec's layouts, native ones
// included, and go to the runtime's buffers as they are. Private to the plugin.
#include <memory>

#include "npuwb/sdk/MatmulKernel.h"

namespace npuwb::rknpu {

/// "rknpu": declines every spec (naming the library and what it lacks) where the runtime or its matmul API is
/// missing, so the engine says why instead of running something else.
std::unique_ptr<MatmulKernelProvider> makeRknnMatmulProvider();

}  // namespace npuwb::rknpu
