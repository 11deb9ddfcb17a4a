#pragma once
// Sliding-window geometry (Conv, MaxPool, AveragePool) from ONNX attributes, resolved to the explicit
// per-side paddings XNNPACK takes, and checked against the output size the graph actually has.
#include <cstdint>
#include <optional>
#include <string>

#include "npuwb/ir/Graph.h"

namespace npuwb::xnn {

struct Window {
    uint32_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1, dilationH = 1, dilationW = 1;
    uint32_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
};

/// `inNchw`/`outNchw` are rank-4 shapes (output dims of -1 accept any size); kernel sizes come from `kernel_shape` or `kernelH/W` when given (Conv
/// weights). With `allowCeilPadding` (max pooling, where extra padding never wins a max) a larger expected output
/// (ceil_mode) is reached by padding the bottom/right further. Returns nullopt and sets `why` otherwise.
std::optional<Window> resolveWindow(const Node& node, const Shape& inNchw, const Shape& outNchw, int64_t kernelH,
                                    int64_t kernelW, bool allowCeilPadding, std::string& why);

}  // namespace npuwb::xnn
