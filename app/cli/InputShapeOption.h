#pragma once
// `--input-shape NAME=D1,D2,...` (repeatable), shared by the commands that need concrete input shapes: the
// optimizer's proofs feed inputs of these shapes; estimate/advise fix the model's symbolic dims with them so
// ONNX shape inference can give every layer a concrete shape.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "npuwb/ModelIO.h"  // parseInputShapeSpecs, withInputShapes, inputsWithSymbolicDims
#include "npuwb/ir/Graph.h"

namespace npuwb::cli {

/// Adds the repeatable option to `cmd`, collecting the raw specs into `specs`.
void addInputShapeOption(CLI::App* cmd, std::vector<std::string>& specs);


/// Loads a model for a command, fixes its input shapes from --input-shape specs, and warns on stderr about inputs
/// whose dims stay symbolic (they are then taken as 1).
std::shared_ptr<const Model> loadModelWithInputShapes(const std::string& path, const std::vector<std::string>& specs);

}  // namespace npuwb::cli
