#pragma once
// The options for running a model, declared once and shared by the CLI, the GUI, the board agent and the agent's
// wire format (npuwb/AgentProtocol.h): where a model runs (ExecutorOptions) and how a run is measured
// (RunOptions). Every struct that runs a model (SessionOptions, RunOptions, the quantizer's, the accuracy
// analysis's and the optimizer's proofs) holds an ExecutorOptions instead of its own backend/threads fields, so the
// defaults below are the only ones.
#include <cstdint>
#include <map>
#include <string>

#include "npuwb/ir/Tensor.h"

namespace npuwb {

/// The backend name that picks the fastest backend plugin found for this machine, else the reference kernels.
inline constexpr const char* kAutoBackend = "auto";
/// The engine's own single-threaded kernels: the correctness oracle every backend is tested against.
inline constexpr const char* kReferenceBackend = "reference";
/// Timed runs and untimed warm-up runs before them, for every way of measuring a model (RunOptions, and the
/// vendor runtimes' ModelRunOptions).
inline constexpr int kDefaultRuns = 10;
inline constexpr int kDefaultWarmupRuns = 2;

/// Where a model runs.
struct ExecutorOptions {
    /// kAutoBackend, kReferenceBackend or a plugin name ("cpu-onednn"); resolved by resolveBackendName.
    std::string backend = kAutoBackend;
    /// Worker threads of a backend plugin; 0: the number of physical cores. The reference kernels use one.
    int threads = 0;

    friend bool operator==(const ExecutorOptions&, const ExecutorOptions&) = default;
};

/// How to run and measure a model (profileModel; `npuwb-cli profile/run`, the GUI's Run, an agent job).
struct RunOptions {
    ExecutorOptions executor;
    int runs = kDefaultRuns;         // timed runs (the report gives their median and minimum)
    int warmup = kDefaultWarmupRuns;  // untimed runs first
    uint64_t seed = 1;  // for generated inputs
    /// Concrete shapes for generated inputs (e.g. a detector's 1x3x480x480); must fit the declared shape.
    std::map<std::string, Shape> inputShapes{};
    /// Value for symbolic input dimensions (e.g. batch) that `inputShapes` does not fix.
    int64_t symbolicDimValue = 1;
    /// Inputs to use; missing ones are generated (uniform [0,1) floats, zeros for integers). Local only: the agent's
    /// wire format carries no tensors.
    std::map<std::string, Tensor> inputs{};
    /// Time each backend kernel (per-layer rows). Off: whole runs only, to measure what per-layer timing costs.
    bool layerTimes = true;
};

}  // namespace npuwb
