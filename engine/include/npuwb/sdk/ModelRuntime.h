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
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "npuwb/Error.h"
#include "npuwb/Report.h"
#include "npuwb/RunOptions.h"

namespace npuwb {

inline constexpr int kModelRuntimeApiVersion = 3;  // 3: Report gained its runtime section

/// NPU cores a context may run on (Rockchip's rknn_core_mask). Auto lets the runtime pick; multi-core masks split
/// the ops that support it across the cores. Chips with one NPU core accept only Auto and Core0.
enum class NpuCoreMask { Auto, Core0, Core1, Core2, Cores01, Cores012, All };

/// How to run a model file.
struct ModelRunOptions {
    int runs = kDefaultRuns;          // timed runs (without per-layer perf collection)
    int warmup = kDefaultWarmupRuns;  // untimed runs first
    /// The vendor library to load: this path, else the runtime's own default (which may honour an environment
    /// variable, e.g. $NPUWB_RKNNRT_LIBRARY).
    std::string library;
    /// Core mask of every context; `contextCoreMasks` overrides it per context (index = context).
    NpuCoreMask coreMask = NpuCoreMask::Auto;
    std::vector<NpuCoreMask> contextCoreMasks{};
    /// Contexts run concurrently; the copies share the first one's weights (rknn_dup_context). 0: derived from
    /// `batch` as the vendor does (batch 1 -> 1, 2 -> 2, >= 3 -> 3).
    int contexts = 0;
    /// Samples per run of a multi-batch model: each context reads input_size/batch and writes output_size/batch at
    /// its own offset. 1: a single-batch model.
    int batch = 1;
    /// Input name -> .npy file; inputs not named get seeded uniform random values (never silent zeros).
    std::map<std::string, std::string> inputFiles{};
    uint64_t randomSeed = 1;
    /// One extra run with per-layer perf collection for the layer rows (timed runs never collect, as the vendor
    /// intends: collection slows the NPU).
    bool perLayer = true;
};

/// "auto", "0", "1", "2", "0_1", "0_1_2", "all" (the CLI's --core-mask words) and back; parseCoreMask returns false
/// for any other text.
inline const char* coreMaskName(NpuCoreMask mask) {
    switch (mask) {
    case NpuCoreMask::Auto: return "auto";
    case NpuCoreMask::Core0: return "0";
    case NpuCoreMask::Core1: return "1";
    case NpuCoreMask::Core2: return "2";
    case NpuCoreMask::Cores01: return "0_1";
    case NpuCoreMask::Cores012: return "0_1_2";
    case NpuCoreMask::All: return "all";
    }
    return "auto";
}
inline bool parseCoreMask(const std::string& text, NpuCoreMask& out) {
    for (NpuCoreMask m : {NpuCoreMask::Auto, NpuCoreMask::Core0, NpuCoreMask::Core1, NpuCoreMask::Core2,
                          NpuCoreMask::Cores01, NpuCoreMask::Cores012, NpuCoreMask::All})
        if (text == coreMaskName(m)) {
            out = m;
            return true;
        }
    return false;
}

/// The contexts `options` asks for: `contexts`, else derived from `batch` as the vendor does (1 -> 1, 2 -> 2,
/// >= 3 -> 3). Throws InvalidInput for a batch below 1, more contexts than batch slices (each context runs whole
/// slices) or more per-context core masks than contexts.
inline int contextCount(const ModelRunOptions& options) {
    if (options.batch < 1) failInput("--batch must be at least 1 (got " + std::to_string(options.batch) + ")");
    if (options.contexts < 0) failInput("--contexts must be at least 1 (got " + std::to_string(options.contexts) + ")");
    const int contexts = options.contexts > 0 ? options.contexts : std::min(options.batch, 3);
    if (contexts > options.batch)
        failInput(std::to_string(contexts) + " contexts for a batch of " + std::to_string(options.batch) +
                  ": each context runs whole batch slices, so use at most --contexts " + std::to_string(options.batch) +
                  " or a larger --batch");
    if (options.contextCoreMasks.size() > static_cast<size_t>(contexts))
        failInput(std::to_string(options.contextCoreMasks.size()) + " per-context core masks for " +
                  std::to_string(contexts) + " context(s)");
    return contexts;
}
/// The core mask of context `context`: its own from `contextCoreMasks`, else `coreMask`.
inline NpuCoreMask contextCoreMask(const ModelRunOptions& options, int context) {
    return static_cast<size_t>(context) < options.contextCoreMasks.size()
               ? options.contextCoreMasks[static_cast<size_t>(context)]
               : options.coreMask;
}

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
