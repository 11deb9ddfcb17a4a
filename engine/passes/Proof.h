#pragma once
// The optimizer's numerical proof: run a model before and after a rewrite on the same input sets and compare.
#include <map>
#include <string>
#include <vector>

#include "npuwb/Optimizer.h"

namespace npuwb::passes {

/// Runs `model` on every input set; used by the proof and exposed for tests.
std::vector<std::map<std::string, Tensor>> runOnSets(const Model& model,
                                                     const std::vector<std::map<std::string, Tensor>>& sets,
                                                     const ExecutorOptions& executor = {});
/// Input sets for the proof: seeded random sets plus the calibration sets.
std::vector<std::map<std::string, Tensor>> proofInputs(const Model& model, const ProofOptions& options);
Proof compareOutputs(const std::vector<std::map<std::string, Tensor>>& reference,
                     const std::vector<std::map<std::string, Tensor>>& candidate, double tolerance);

std::map<std::string, int> opHistogram(const Graph& graph);

}  // namespace npuwb::passes
