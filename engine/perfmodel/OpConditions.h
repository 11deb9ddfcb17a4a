#pragma once
// The op list's conditions beyond integer ranges (NpuOpConditions in the chip profile): which Transpose
// permutations run on the NPU for which input shapes, Softmax axes, Pow exponents, Resize scale factors. A node
// that fails one runs on the CPU, as the RKNN converter places it.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "npuwb/ChipProfile.h"
#include "perfmodel/LayerShapes.h"

namespace npuwb {

/// Values of a constant input: an initializer or a Constant node's value; nullopt when neither (or not numeric).
std::optional<std::vector<double>> constantValues(const Graph& graph, const std::string& name);

/// Why `op` cannot run the node on the NPU under its conditions ("perm [0,2,3,1] needs h1*w1%8==0"), or nullopt.
/// `opListDtype` is the op-list dtype name ("int8", "float16"). Conditions this model cannot evaluate (an
/// expression it cannot parse, a constant it cannot read) are taken as met.
std::optional<std::string> unmetCondition(const NpuOp& op, const NodeShapes& node, const Graph& graph,
                                          const std::string& opListDtype);

/// One op-list expression over named integers: products and remainders compared with < <= > >= == (chains
/// "a==b==1" mean all equal), groups "(x, y)" meaning all of them, alternatives joined by "or". nullopt when the
/// text does not parse or names an unknown variable.
std::optional<bool> evaluateCondition(const std::string& expression, const std::map<std::string, int64_t>& vars);

}  // namespace npuwb
