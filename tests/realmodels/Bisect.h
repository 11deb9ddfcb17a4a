#pragma once
// Finds the first node whose output diverges from ONNX Runtime: records every top-level value the engine
// computes, re-exports the model with those values as extra graph outputs, runs ORT on it and compares
// the values in execution order.
#include <map>
#include <memory>
#include <string>

#include "OrtProcess.h"
#include "npuwb/ir/Graph.h"

namespace npuwb::realmodels {

/// Prints the first diverging node (or "no divergence") to stdout. Never throws: problems are printed.
void bisectAgainstOrt(const std::shared_ptr<const Model>& model, const std::map<std::string, Tensor>& inputs,
                      const std::map<std::string, std::string>& inputFiles, const OrtOptions& ort,
                      const std::string& workDir, double tolerance);

}  // namespace npuwb::realmodels
