#pragma once
// Finds the matmul kernels of backend plugins (npuwb/sdk/MatmulKernel.h) in the plugin folders.
#include <memory>
#include <string>

#include "npuwb/sdk/MatmulKernel.h"

namespace npuwb {

/// The matmul kernel provider of backend `name` ("cpu-onednn"), loaded once per process. Throws Unsupported when
/// the plugin is missing, provides no matmul kernels or was built for another kernel interface version.
std::shared_ptr<MatmulKernelProvider> loadMatmulKernelProvider(const std::string& name);

}  // namespace npuwb
