#pragma once
// Profiling a model locally: warm-up, N timed runs, per-node timings from an ExecutionObserver, a memory
// plan from the observed tensor sizes, all gathered into a Report.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"
#include "npuwb/RunOptions.h"
#include "npuwb/Session.h"

namespace npuwb {

struct ProfileControl {
    /// (phase, done, total): phase is "warm-up" or "run"; done/total count runs.
    std::function<void(const std::string&, int, int)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

/// Generated inputs for every required model input, with the shape in `inputShapes` when given, else the declared
/// shape with symbolic dims set to `symbolicDimValue`. Throws naming an input whose shape cannot be made concrete,
/// a given shape that does not fit the declared one, or a name that is not a model input.
std::map<std::string, Tensor> makeInputs(const Session& session, uint64_t seed, int64_t symbolicDimValue = 1,
                                         const std::map<std::string, Shape>& inputShapes = {});

/// Runs and measures the model. Throws Error(Cancelled) when cancelled.
Report profileModel(std::shared_ptr<const Model> model, const RunOptions& options, const ProfileControl& control = {});

/// Peak resident set size of this process in bytes (0 when unknown).
int64_t peakRssBytes();
/// Host description for reports.
Environment localEnvironment(int threads);

}  // namespace npuwb
