#pragma once
// Runs a compiled `.rknn` model through Rockchip's runtime (librknnrt.so, or the RV1106/RV1103 mini runtime
// librknnmrt.so; loaded with dlopen, never linked) the way the vendor intends it to be timed, and maps what the runtime
// reports into the shared Report. The plugin's ModelRuntime (RknpuPlugin.cpp) is made of these; private to the plugin
// (and its tests, which build these sources themselves).
//
// One profile (ModelRunOptions, npuwb/sdk/ModelRuntime.h):
//  - the per-layer pass: its own context created with RKNN_FLAG_COLLECT_PERF_MASK runs batch slice 0 (after `warmup`
//    runs) and answers RKNN_QUERY_PERF_DETAIL (the layer rows); skipped when options.perLayer is false;
//  - the timed passes: `contexts` contexts without perf collection, the first from rknn_init and the others from
//    rknn_dup_context (they share its weights; RKNN SDK user guide V2.5.0, 4.1.4), each with its core mask, run
//    concurrently on one thread each, `warmup` + `runs` passes. A pass runs the `batch` slices of the batch input:
//    slice j goes to context j % contexts and reads its inputs at offset j * input_size / batch and writes its
//    outputs at j * output_size / batch (input_size = batch x the size the runtime reports for one run).
// On a host without the runtime every entry point fails with Error(Unsupported) "librknnrt.so not available on this
// board: ..." and nothing else is affected.
#include <cstdint>
#include <string>
#include <vector>

#include "npuwb/Report.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb::rknpu {

/// One batch slice run by one context in a timed pass (times from the first timed pass's start).
struct RknnSliceRun {
    int context = 0;
    int pass = 0;  // timed pass index (warm-up passes are not kept)
    int slice = 0;
    double startUs = 0, endUs = 0;
    // Wall time of rknn_inputs_set, rknn_run, rknn_outputs_get; on the zero-copy path of the input copies into the
    // buffers, rknn_run, the output reads from them.
    double inputsSetUs = 0, runUs = 0, outputsGetUs = 0;
    double perfRunUs = -1;                                // RKNN_QUERY_PERF_RUN; -1 when the runtime did not answer
};

struct RknnContextInfo {
    NpuCoreMask coreMask = NpuCoreMask::Auto;
    int64_t internalBytes = 0;  // RKNN_QUERY_MEM_SIZE total_internal_size
    int slicesPerPass = 0;
};

/// What one profile got from the runtime; reportFromRknnRun() maps it (kept apart so it is testable).
struct RknnRunResult {
    std::string modelPath;
    std::string library;      // what was loaded
    bool miniRuntime = false;  // librknnmrt.so (RV1106/RV1103)
    bool zeroCopyIo = false;   // inputs and outputs through zero-copy buffers (no rknn_inputs_set path)
    std::string ioPath;        // that path, named
    std::string apiVersion, driverVersion;  // RKNN_QUERY_SDK_VERSION
    std::vector<TensorDesc> inputs, outputs;  // one run's tensors as the runtime reports them
    int warmup = 0, runs = 0, batch = 1;
    std::vector<RknnContextInfo> contexts;
    std::vector<RknnSliceRun> sliceRuns;  // timed passes only
    std::vector<double> passWallUs;       // per timed pass: first slice start to last slice end
    bool perLayerAsked = false;
    std::string perfDetail;      // RKNN_QUERY_PERF_DETAIL text of the per-layer pass
    std::string noPerfDetail;    // why there is none, when asked
    bool haveMemSize = false;    // RKNN_QUERY_MEM_SIZE answered
    int64_t weightBytes = 0, dmaBytes = 0, sramTotalBytes = 0, sramFreeBytes = 0;
    std::vector<std::string> notes;  // what the runtime or chip lacks
    /// The batch buffers of the last timed pass, one per input / output (input i: batch x its size), for checks.
    std::vector<std::vector<uint8_t>> inputData, outputData;
};

/// The library that would be loaded: `library`, else $NPUWB_RKNNRT_LIBRARY, else librknnrt.so and then the mini
/// runtime librknnmrt.so (RV1106/RV1103) from the loader's path, whichever loads first.
std::string rknnRuntimeLibrary(const std::string& library = "");
/// Empty when the runtime loads and has the functions this runner needs, else the reason (names the library).
std::string rknnRuntimeUnavailableReason(const std::string& library = "");

/// Profiles the model as described at the top. Throws Error(Unsupported) when the runtime is missing or lacks what
/// the options need (naming the library and the function), Error(InvalidInput/Io) naming the model, the input or the
/// failing call otherwise.
RknnRunResult runRknnModel(const std::string& modelPath, const ModelRunOptions& options);

/// The run as a Report (kind "profile", backend "rknpu"): layers from the perf-detail text, run statistics from the
/// timed passes, memory from the memory query (weights once), the runtime section and the per-context timeline.
Report reportFromRknnRun(const RknnRunResult& result);

}  // namespace npuwb::rknpu
