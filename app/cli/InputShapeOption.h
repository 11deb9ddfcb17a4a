#pragma once
// `--input-shape NAME=D1,D2,...` (repeatable), shared by the commands that need concrete input shapes: the
// optimizer's proofs feed inputs of these shapes; estimate/advise fix the model's symbolic dims with them so
// ONNX shape inference can give every layer a concrete shape.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "npuwb/ir/Graph.h"

namespace npuwb::cli {

/// Adds the repeatable option to `cmd`, collecting the raw specs into `specs`.
void addInputShapeOption(CLI::App* cmd, std::vector<std::string>& specs);

/// "x=1,3,480,480" -> {"x": [1,3,480,480]}; throws InvalidInput naming the spec at fault.
std::map<std::string, Shape> parseInputShapes(const std::vector<std::string>& specs);

/// A copy of `model` whose graph inputs have the given concrete shapes, with shapes re-inferred for every value.
/// Throws InvalidInput for an unknown input name, a rank mismatch or a clash with a fixed dimension.
Model withInputShapes(const Model& model, const std::map<std::string, Shape>& shapes);

/// Names of graph inputs (not initializers) that still have symbolic or unknown dims, e.g. "x [?,3,?,?]".
std::vector<std::string> inputsWithSymbolicDims(const Model& model);

/// Loads a model for a command, fixes its input shapes from --input-shape specs, and warns on stderr about inputs
/// whose dims stay symbolic (they are then taken as 1).
std::shared_ptr<const Model> loadModelWithInputShapes(const std::string& path, const std::vector<std::string>& specs);

}  // namespace npuwb::cli
