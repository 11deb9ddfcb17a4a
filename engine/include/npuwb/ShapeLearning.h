#pragma once
// Concrete shapes of every value of a model's top-level graph, for the analyses that count work per node (MACs,
// the cost model, the advisor, the partitioner). The result is keyed by value name, so it points into nothing: a
// Session's rewritten graph, whose nodes the learning run saw, may be gone before the shapes are read.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"

namespace npuwb {

struct ShapeLearningOptions {
    /// Symbolic input dims without an entry in `inputShapes` take this value.
    int64_t symbolicDimValue = 1;
    /// Whole input shapes chosen by the user (`--input-shape`), by input name.
    std::map<std::string, Shape> inputShapes{};
    /// Allow the last resort, one run of the reference kernels on generated inputs. Off: what ONNX's inference
    /// knows, nothing more (cheap enough for opening a model).
    bool allowReferenceRun = true;
};

struct LearnedShapes {
    /// Every value with a known concrete shape: initializers, graph inputs, node outputs.
    std::map<std::string, Shape> values;
    /// How the last missing shapes were found: "model" (recorded by ONNX inference on import), "inference" (ONNX
    /// inference again for the concrete input shapes) or "reference run".
    std::string source = "model";
    /// Node outputs still without a shape (only when the reference run was not allowed).
    std::vector<std::string> unresolved;

    const Shape* find(const std::string& value) const {
        auto it = values.find(value);
        return it == values.end() ? nullptr : &it->second;
    }
};

/// Learns the shapes: what the model records, then ONNX inference for concrete input shapes (milliseconds), then
/// (when allowed) one reference run. Throws what that run throws (an invalid model, options that do not fit it:
/// the error names the node, input or shape).
LearnedShapes learnShapes(const Model& model, const ShapeLearningOptions& options = {});

}  // namespace npuwb
