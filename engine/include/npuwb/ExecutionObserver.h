#pragma once
// Observers watch the executor without changing it: the profiler, progress reporting and accuracy analysis
// all hook in here.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"
#include "npuwb/ir/Value.h"

namespace npuwb {

class ExecutionObserver {
public:
    virtual ~ExecutionObserver() = default;
    virtual void runStarted(size_t /*nodeCount*/) {}
    /// `step` is the position in the execution order of the top-level graph.
    virtual void nodeStarted(size_t /*step*/, const Node& /*node*/) {}
    virtual void nodeFinished(size_t /*step*/, const Node& /*node*/, const std::vector<const Value*>& /*inputs*/,
                              const std::vector<Value>& /*outputs*/) {}
    virtual void runFinished() {}
    /// Backend segments: return true to receive per-kernel times (costs a clock read per kernel).
    virtual bool wantsKernelTimes() const { return false; }
    /// A backend kernel covering the nodes at these `steps` (fused kernels cover several) took this long.
    virtual void kernelTimed(const std::vector<size_t>& /*steps*/, double /*microseconds*/) {}
    /// Return true if nodeFinished may see placeholder outputs (right dtype and shape, no storage): a backend
    /// session then learns its plan from inferred shapes without running heavy nodes on the reference kernels.
    /// Observers that read values keep the default, and such a session runs the reference kernels once.
    virtual bool acceptsPlaceholderOutputs() const { return false; }
};

/// Sees watched float values as a run produces them, for statistics that ignore element order (calibration's
/// min/max and histograms). `elements` holds every element of the value exactly once, in whatever order the
/// producer keeps them (a backend passes a blocked layout without padding as is, so nothing is copied); it is
/// valid during the call only. Called on the running thread.
class ValueObserver {
public:
    virtual ~ValueObserver() = default;
    virtual void observe(const std::string& value, std::span<const float> elements) = 0;
};

}  // namespace npuwb
