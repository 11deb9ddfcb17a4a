#pragma once
// Concrete per-node shapes for the cost model, learned by value name (npuwb/ShapeLearning.h) and laid over the
// caller's own graph, so every row points into the model the caller holds.
#include <cstdint>
#include <vector>

#include "npuwb/ShapeLearning.h"
#include "npuwb/ir/Graph.h"

namespace npuwb {

struct NodeShapes {
    const Node* node = nullptr;  // points into the caller's model's top-level graph
    std::vector<Shape> inputs;   // empty shape for an absent optional input
    std::vector<Shape> outputs;
    std::vector<bool> inputIsConstant;  // initializer or computed only from initializers (folded by the converter)
};

/// Nodes of the top-level graph in execution order with concrete shapes. `usedReferenceRun` tells whether the
/// slow path (one run of the reference kernels with generated inputs) was needed.
std::vector<NodeShapes> resolveLayerShapes(const Model& model, int64_t symbolicDimValue = 1,
                                           bool* usedReferenceRun = nullptr);
/// The same over shapes learned already (learnShapes), so a caller that also summarizes learns once.
std::vector<NodeShapes> resolveLayerShapes(const Model& model, const LearnedShapes& learned);

}  // namespace npuwb
