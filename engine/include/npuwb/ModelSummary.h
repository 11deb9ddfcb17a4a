#pragma once
// Static facts about a model: op histogram, parameters, weight bytes, MACs per node (from shapes).
#include <map>
#include <string>
#include <vector>

#include "npuwb/ShapeLearning.h"
#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"

namespace npuwb {

/// Multiply-accumulates of one node given its concrete input and output shapes (0 for data movement).
int64_t nodeMacs(const Node& node, const std::vector<Shape>& inputShapes, const std::vector<Shape>& outputShapes);

/// Summary from the IR alone; MACs use shapes ONNX shape inference recorded. Nodes with unknown shapes count 0 and
/// are listed in `uncountedNodes`.
ModelSummary summarizeModel(const Model& model);
/// The same with the shapes `learnShapes` found (for the shapes a run would see).
ModelSummary summarizeModel(const Model& model, const LearnedShapes& shapes);

}  // namespace npuwb
