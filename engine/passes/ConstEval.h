#pragma once
// Evaluating small pieces of a graph with the reference kernels: folding constants, and finding out what a
// chain of layout ops does to the elements (by running it on a tensor of element indices).
#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"

namespace npuwb::passes {

/// Runs `nodes` (in order) with `feeds` as initializers and returns the values named `outputs`.
/// Inputs the nodes read from `graph`'s initializers are taken from there. Throws npuwb::Error on failure.
std::vector<Tensor> evaluateNodes(const Graph& graph, const std::vector<Node>& nodes,
                                  const std::map<std::string, Tensor>& feeds, const std::vector<std::string>& outputs,
                                  int64_t opset);

/// An F32 tensor of `shape` whose element i holds i (exact up to 2^24 elements).
Tensor iotaTensor(const Shape& shape);

}  // namespace npuwb::passes
