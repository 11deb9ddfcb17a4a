#pragma once
// Concrete per-node shapes for the cost model. ONNX shape inference (recorded in Graph::valueInfo on import)
// usually knows them all; when it does not (symbolic or data-dependent dims) one reference run fills them in.
#include <cstdint>
#include <vector>

#include "npuwb/ir/Graph.h"

namespace npuwb {

struct NodeShapes {
    const Node* node = nullptr;  // points into the model's top-level graph
    std::vector<Shape> inputs;   // empty shape for an absent optional input
    std::vector<Shape> outputs;
    std::vector<bool> inputIsConstant;  // initializer or computed only from initializers (folded by the converter)
};

/// Nodes of the top-level graph in execution order with concrete shapes. `usedReferenceRun` tells whether the
/// slow path (one run of the reference kernels with generated inputs) was needed.
std::vector<NodeShapes> resolveLayerShapes(const Model& model, int64_t symbolicDimValue = 1,
                                           bool* usedReferenceRun = nullptr);

}  // namespace npuwb
