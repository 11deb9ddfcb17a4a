// Mapping a librknnrt profiling session into the shared Report (see RknnRunner.h).
#include <algorithm>
#include <filesystem>
#include <numeric>

#include "RknnRunner.h"
#include "npuwb/Error.h"
#include "npuwb/VendorPerfLog.h"

namespace npuwb::rknpu {

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

int64_t tensorBytes(const TensorDesc& t) {
    int64_t elems = 1;
    for (const auto& d : t.shape) elems *= std::max<int64_t>(1, std::atoll(d.c_str()));
    const std::string& ty = t.dataType;
    const int64_t size = ty == "float32" || ty == "int32" || ty == "uint32"                         ? 4
                         : ty == "int64"                                                          ? 8
                         : ty == "float16" || ty == "bfloat16" || ty == "int16" || ty == "uint16" ? 2
                                                                                                  : 1;
    return elems * size;
}

}  // namespace

Report reportFromRknnRun(const RknnRunResult& result) {
    const std::string source = result.modelPath + " (perf detail)";
    Report report = result.perfDetail.empty() ? Report{}
                                              : reportFromRknnPerfLog(parseRknnPerfLog(result.perfDetail, source), source);
    report.kind = "profile";
    if (report.createdAt.empty()) report.createdAt = utcTimestamp();
    report.model.path = result.modelPath;
    report.model.name = std::filesystem::path(result.modelPath).stem().string();
    report.model.producer = "RKNN runtime " + result.apiVersion;
    report.model.inputs = result.inputs;
    report.model.outputs = result.outputs;
    report.environment.backend = "rknpu";
    report.environment.device = "local board";
    report.environment.threads = static_cast<int64_t>(result.contexts.size());
    if (!result.driverVersion.empty()) report.environment.npuDriver = result.driverVersion;

    // Totals: the timed passes, which never collect perf data.
    std::vector<double> s = result.passWallUs;
    report.run = RunStats{};
    report.run.runs = static_cast<int64_t>(s.size());
    report.run.warmup = result.warmup;
    report.run.samplesUs = s;
    if (!s.empty()) {
        report.run.medianUs = median(s);
        report.run.minUs = *std::min_element(s.begin(), s.end());
        report.run.maxUs = *std::max_element(s.begin(), s.end());
        report.run.meanUs = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
    }
    std::vector<double> inputsSet, run, outputsGet, perfRun;
    for (const auto& r : result.sliceRuns) {
        inputsSet.push_back(r.inputsSetUs);
        run.push_back(r.runUs);
        outputsGet.push_back(r.outputsGetUs);
        if (r.perfRunUs >= 0) perfRun.push_back(r.perfRunUs);
    }
    TimeBreakdown breakdown;  // per slice run, medians
    breakdown.inputCopyUs = median(inputsSet);
    breakdown.inferenceUs = median(run);
    breakdown.outputCopyUs = median(outputsGet);
    report.run.breakdown = breakdown;

    RuntimeSection rt;
    rt.runtime = "rknpu";
    rt.library = result.library;
    rt.apiVersion = result.apiVersion;
    rt.driverVersion = result.driverVersion;
    rt.batch = result.batch;
    const size_t contexts = result.contexts.size();
    rt.timing = "run.*: wall time of each timed pass (" + std::to_string(result.batch) + " batch slice(s) over " +
                std::to_string(contexts) + " concurrent context(s)), " + std::to_string(result.runs) + " passes after " +
                std::to_string(result.warmup) + " warm-up; I/O path: " + result.ioPath +
                "; contexts created without RKNN_FLAG_COLLECT_PERF_MASK; breakdownUs: medians per slice run of " +
                (result.zeroCopyIo ? "the input copies into the buffers, rknn_run and the output reads from them"
                                   : "rknn_inputs_set, rknn_run and rknn_outputs_get");
    if (!report.layers.empty())
        rt.layerTiming = "layers: RKNN_QUERY_PERF_DETAIL of one run (after the warm-up runs) of batch slice 0 on a separate context created "
                         "with RKNN_FLAG_COLLECT_PERF_MASK (perf collection slows the NPU; its times are not the totals)";
    int64_t internal = 0;
    for (size_t c = 0; c < contexts; ++c) {
        RuntimeContext rc;
        rc.index = static_cast<int64_t>(c);
        rc.coreMask = coreMaskName(result.contexts[c].coreMask);
        rc.internalBytes = result.contexts[c].internalBytes;
        rc.slicesPerPass = result.contexts[c].slicesPerPass;
        internal += rc.internalBytes;
        rt.contexts.push_back(rc);
    }
    rt.weightBytes = result.weightBytes;
    rt.totalBytes = result.weightBytes + internal;
    const double wall = std::accumulate(s.begin(), s.end(), 0.0);
    rt.samplesPerSecond = wall > 0 ? static_cast<double>(result.batch) * static_cast<double>(s.size()) * 1e6 / wall : 0;
    if (!perfRun.empty()) rt.perfRunMedianUs = median(perfRun);
    rt.notes = result.notes;
    report.runtime = rt;

    if (result.haveMemSize) {
        report.memory.weightBytes = result.weightBytes;  // once: the contexts share them
        report.memory.arenaBytes = internal;              // every context's internal memory
        report.model.weightBytes = result.weightBytes;
    }
    int64_t io = 0;
    for (const auto* list : {&result.inputs, &result.outputs})
        for (const auto& t : *list) io += tensorBytes(t);
    report.memory.ioBytes = io * result.batch;

    // The per-context timeline of the timed passes (one lane per context, one bar per batch slice).
    std::vector<ContextSliceRun> bars;
    for (const auto& r : result.sliceRuns) bars.push_back({r.context, r.slice, r.pass, r.startUs, r.endUs});
    report.traces.push_back(contextsTrace(contexts, bars));
    return report;
}

}  // namespace npuwb::rknpu
