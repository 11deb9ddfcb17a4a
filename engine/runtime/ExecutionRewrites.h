#pragma once
// Exact graph rewrites a Session applies before it executes a model: each gives bit-for-bit the results of the
// graph it replaces, so the reference kernels and the backends run less without answering differently. The
// optimizer's passes that are exact do the work (each proven there like every pass); arithmetic merges, which
// round differently, are left to the optimizer.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "npuwb/Session.h"
#include "npuwb/ir/Graph.h"

namespace npuwb {

/// `model` with the exact rewrites applied to a fixed point, or `model` itself when none applies. Values in
/// `keep` (watched by a ValueObserver) and graph outputs survive; unnamed nodes stay unnamed.
std::shared_ptr<const Model> rewriteForExecution(std::shared_ptr<const Model> model, const std::set<std::string>& keep,
                                                 std::vector<ExecutionRewrite>* applied = nullptr);

}  // namespace npuwb
