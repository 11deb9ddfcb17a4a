#pragma once
// A plugin may compute with the engine's reference kernels where it needs their exact results (for example a
// lookup table filled by running the reference op over every int8 input once).
#include <cstdint>
#include <vector>

#include "npuwb/ir/Graph.h"
#include "npuwb/ir/Value.h"

namespace npuwb {

/// Runs `node` (default ONNX domain, no subgraphs) on the reference kernels and returns its outputs. Throws
/// Error(Unsupported) naming the op when the engine has no reference kernel for it.
std::vector<Value> runReferenceNode(const Node& node, int64_t opset, const std::vector<const Value*>& inputs);

}  // namespace npuwb
