#pragma once
// Runs a compiled `.rknn` model on a Rockchip board through Rockchip's runtime (librknnrt.so, loaded with dlopen,
// never linked) with per-layer perf collection, and maps what the runtime reports into the shared Report. The
// plugin's ModelRuntime (RknpuPlugin.cpp) is made of these; private to the plugin.
//
// On a host without the runtime every entry point fails with Error(Unsupported) "librknnrt.so not available on
// this board: ..." and nothing else is affected.
#include <string>
#include <vector>

#include "npuwb/Report.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb::rknpu {

/// What one profiling session got from the runtime; reportFromRknnRun() maps it (kept apart so it is testable).
struct RknnRunResult {
    std::string modelPath;
    std::string apiVersion, driverVersion;  // RKNN_QUERY_SDK_VERSION
    std::vector<TensorDesc> inputs, outputs;
    int warmup = 0;
    std::vector<double> runDurationsUs;  // RKNN_QUERY_PERF_RUN after each timed run
    std::string perfDetail;              // RKNN_QUERY_PERF_DETAIL text of the last run
    bool haveMemSize = false;            // RKNN_QUERY_MEM_SIZE answered
    int64_t weightBytes = 0, internalBytes = 0, dmaBytes = 0, sramTotalBytes = 0, sramFreeBytes = 0;
};

/// The library that would be loaded: `library`, else $NPUWB_RKNNRT_LIBRARY, else "librknnrt.so" from the loader's
/// path.
std::string rknnRuntimeLibrary(const std::string& library = "");
/// Empty when the runtime loads and has the functions this runner needs, else the reason (names the library).
std::string rknnRuntimeUnavailableReason(const std::string& library = "");

/// Loads the runtime, runs the model `warmup` + `runs` times with RKNN_FLAG_COLLECT_PERF_MASK on zero inputs, and
/// queries perf run, perf detail, memory size and SDK version. Throws Error(Unsupported) when the runtime is missing,
/// Error(InvalidInput/Io) naming the model and the failing call otherwise.
RknnRunResult runRknnModel(const std::string& modelPath, const ModelRunOptions& options);

/// The run as a Report (kind "profile", backend "rknpu"): layers from the perf-detail table, run statistics from
/// the perf-run durations, memory from the memory-size query.
Report reportFromRknnRun(const RknnRunResult& result);

}  // namespace npuwb::rknpu
