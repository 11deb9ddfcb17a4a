#include "ProfileRuntimeModel.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "BoardProfile.h"
#include "Commands.h"
#include "PerfTable.h"
#include "RunOptionsCli.h"
#include "npuwb/ContextProfile.h"
#include "npuwb/ModelRuntimes.h"

namespace npuwb::cli {

namespace {

/// OUT.json -> OUT.b2.c3.json for one point of a sweep.
std::string sweepPath(const std::string& path, int64_t batch, size_t contexts) {
    std::filesystem::path p(path);
    const std::string suffix = ".b" + std::to_string(batch) + ".c" + std::to_string(contexts);
    return (p.parent_path() / (p.stem().string() + suffix + p.extension().string())).string();
}

void printRuntimeSummary(const Report& r) {
    if (!r.runtime) return;
    const RuntimeSection& rt = *r.runtime;
    std::printf("\n%s\n", rt.timing.c_str());
    if (!rt.layerTiming.empty()) std::printf("%s\n", rt.layerTiming.c_str());
    std::printf("Throughput: %.1f samples/s (batch %lld over %zu context(s))", rt.samplesPerSecond,
                static_cast<long long>(rt.batch), rt.contexts.size());
    if (rt.perfRunMedianUs) std::printf("; runtime's own time per slice run (PERF_RUN): median %.1f us", *rt.perfRunMedianUs);
    std::printf("\nMemory: weights %s (once, shared)", humanBytes(rt.weightBytes).c_str());
    for (const auto& c : rt.contexts)
        std::printf(", context %lld [core mask %s] internal %s", static_cast<long long>(c.index), c.coreMask.c_str(),
                    humanBytes(c.internalBytes).c_str());
    std::printf("; total %s\n", humanBytes(rt.totalBytes).c_str());
    for (const auto& note : rt.notes) std::printf("Note: %s\n", note.c_str());
}

}  // namespace

void profileRuntimeModel(const RuntimeProfileRequest& request) {
    const ModelRunPlan plan = modelRunOptionsFromCli(request.flags, request.common, request.inputSpecs);
    for (const auto& note : plan.notes) std::cerr << "note: " << note << "\n";
    const std::vector<ModelRunOptions>& points = plan.points;
    std::vector<Report> reports;
    std::shared_ptr<const Model> onnx;  // no runtime plugin: an ONNX model, run as contexts on the engine's backends
    ExecutorOptions executor;
    if (request.runtime.empty()) {
        executor = usableExecutor(request.common.executor);
        onnx = loadModelForCommand(request.model);
    }
    for (const ModelRunOptions& options : points) {
        for (const auto& [name, file] : options.inputFiles)
            if (std::error_code ec; !std::filesystem::is_regular_file(file, ec))
                failInput("--input " + name + ": file '" + file + "' does not exist");
        Report report = onnx ? profileContexts(onnx, executor, options)
                        : request.board.board.host.empty()
                            ? runModelFile(request.runtime, request.model, options)
                            : profileCompiledOnBoard(request.model, request.runtime, options, request.board);
        if (!request.jsonPath.empty()) {
            const std::string path = points.size() == 1
                                         ? request.jsonPath
                                         : sweepPath(request.jsonPath, options.batch,
                                                     report.runtime ? report.runtime->contexts.size() : 0);
            saveReport(report, path);
            std::cerr << "report written to " << path << "\n";
        }
        reports.push_back(std::move(report));
    }
    if (reports.size() == 1) {
        const Report& r = reports.front();
        char summary[256];
        std::snprintf(summary, sizeof summary, "Pass time: median %.1f us, min %.1f us over %lld passes", r.run.medianUs,
                      r.run.minUs, static_cast<long long>(r.run.runs));
        if (!r.layers.empty()) printPerfDetailTable(r, {request.top, summary});
        else std::printf("%s (no per-layer rows)\n", summary);
        printRuntimeSummary(r);
        return;
    }
    // A sweep: throughput against batch size and contexts.
    std::printf("%-6s %-9s %-14s %-16s %-14s %-12s\n", "batch", "contexts", "samples/s", "pass median(us)",
                "perf-run(us)", "memory");
    for (const Report& r : reports) {
        const RuntimeSection& rt = *r.runtime;
        std::printf("%-6lld %-9zu %-14.1f %-16.1f %-14.1f %-12s\n", static_cast<long long>(rt.batch), rt.contexts.size(),
                    rt.samplesPerSecond, r.run.medianUs, rt.perfRunMedianUs.value_or(0.0),
                    humanBytes(rt.totalBytes).c_str());
    }
    for (const auto& note : reports.back().runtime->notes) std::printf("Note: %s\n", note.c_str());
}

}  // namespace npuwb::cli
