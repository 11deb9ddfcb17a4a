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
#include "npuwb/Session.h"

namespace npuwb {

struct ProfileOptions {
    int runs = 10;
    int warmup = 2;
    int threads = 0;  // 0: physical cores (backends only; the reference executor uses 1)
    /// "reference", a backend plugin name or "auto" (SessionOptions::backend).
    std::string backend = "reference";
    uint64_t seed = 1;  // for generated inputs
    /// Inputs to use; missing ones are generated (uniform [0,1) floats, zeros for integers).
    std::map<std::string, Tensor> inputs;
    /// Value for symbolic input dimensions (e.g. batch) when inputs are generated.
    int64_t symbolicDimValue = 1;
    /// Concrete shapes for generated inputs (e.g. a detector's 1x3x480x480); must fit the declared shape.
    std::map<std::string, Shape> inputShapes;
    /// Time each backend kernel (per-layer rows). Off: whole runs only, to measure what per-layer timing costs.
    bool layerTimes = true;
};

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
Report profileModel(std::shared_ptr<const Model> model, const ProfileOptions& options, const ProfileControl& control = {});

/// Peak resident set size of this process in bytes (0 when unknown).
int64_t peakRssBytes();
/// Host description for reports.
Environment localEnvironment(int threads);

}  // namespace npuwb
