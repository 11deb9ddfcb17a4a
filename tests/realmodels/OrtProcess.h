#pragma once
// Runs tests/tools/ort_run.mjs in a child process (no shell, so paths need no quoting) and reads its outputs.
#include <map>
#include <string>
#include <vector>

#include "npuwb/ir/Tensor.h"

namespace npuwb::realmodels {

struct OrtOptions {
    std::string node = "node";
    std::string script;        // tests/tools/ort_run.mjs
    std::string optLevel = "all";
};

/// Runs `model` in ONNX Runtime on the given .npy input files; returns the outputs by name, in ORT's order in
/// `order`. Throws std::runtime_error with ORT's message when the child fails.
std::map<std::string, Tensor> runOrt(const OrtOptions& options, const std::string& model,
                                     const std::map<std::string, std::string>& inputFiles, const std::string& outputDir,
                                     std::vector<std::string>* order = nullptr);

}  // namespace npuwb::realmodels
