#pragma once
// The whole-model runtime contract: a vendor runtime that runs its own compiled model file (Rockchip's librknnrt.so
// running a `.rknn`), as opposed to a Backend (npuwb/sdk/Backend.h), which claims ONNX nodes one by one. The engine
// loads runtimes from the plugin folders (libnpuwb-runtime-<name>.so) and callers reach them through
// npuwb/ModelRuntimes.h.
//
// A runtime plugin exports two C symbols:
//   extern "C" int npuwb_runtime_api_version();                // must equal kModelRuntimeApiVersion
//   extern "C" npuwb::ModelRuntime* npuwb_create_runtime();    // ownership passes to the engine
//
// Versioning: the engine refuses a plugin built for another kModelRuntimeApiVersion. Any change to the types below
// (a new field in ModelRunOptions, a new virtual function) bumps it, so an old plugin never reads a struct laid out
// differently from the one it was built against.
#include <string>
#include <vector>

#include "npuwb/Report.h"
#include "npuwb/RunOptions.h"

namespace npuwb {

inline constexpr int kModelRuntimeApiVersion = 1;

/// How to run a model file. Runtime-specific settings get typed fields here, with a version bump, when a runtime
/// implements them (e.g. NPU core masks or several contexts for Rockchip's runtime).
struct ModelRunOptions {
    int runs = kDefaultRuns;          // timed runs
    int warmup = kDefaultWarmupRuns;  // untimed runs first
    /// The vendor library to load: this path, else the runtime's own default (which may honour an environment
    /// variable, e.g. $NPUWB_RKNNRT_LIBRARY).
    std::string library;
};

class ModelRuntime {
public:
    virtual ~ModelRuntime() = default;
    virtual std::string name() const = 0;  // "rknpu"
    /// The model files it runs, as lower-case extensions (".rknn").
    virtual std::vector<std::string> modelExtensions() const = 0;
    /// Empty when the vendor runtime loads on this machine, else why not (naming the library).
    virtual std::string unavailableReason(const ModelRunOptions& options) const = 0;
    /// Runs the model `warmup` + `runs` times and returns a Report of kind "profile" (per-layer rows where the
    /// vendor runtime reports them). Throws Error(Unsupported) when the vendor runtime is missing, InvalidInput or
    /// Io naming the model and the failing call otherwise.
    virtual Report profile(const std::string& modelPath, const ModelRunOptions& options) = 0;
};

}  // namespace npuwb
