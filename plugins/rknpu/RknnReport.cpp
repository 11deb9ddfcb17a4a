// Mapping a librknnrt profiling session into the shared Report (see RknnRunner.h).
#include <algorithm>
#include <filesystem>
#include <numeric>

#include "RknnRunner.h"
#include "npuwb/VendorPerfLog.h"
#include "npuwb/Error.h"

namespace npuwb::rknpu {

Report reportFromRknnRun(const RknnRunResult& result) {
    if (result.perfDetail.empty())
        failUnsupported(result.modelPath + ": the runtime returned no per-layer perf detail (RV1106/RV1103 runtimes "
                        "do not support RKNN_QUERY_PERF_DETAIL)");
    const std::string source = result.modelPath + " (perf detail)";
    Report report = reportFromRknnPerfLog(parseRknnPerfLog(result.perfDetail, source), source);
    report.model.path = result.modelPath;
    report.model.name = std::filesystem::path(result.modelPath).stem().string();
    report.model.producer = "RKNN runtime " + result.apiVersion;
    report.model.inputs = result.inputs;
    report.model.outputs = result.outputs;
    report.environment.device = "local board";
    report.environment.os = result.driverVersion.empty() ? report.environment.os : "RKNPU driver " + result.driverVersion;
    if (!result.runDurationsUs.empty()) {
        std::vector<double> s = result.runDurationsUs;
        std::sort(s.begin(), s.end());
        const size_t n = s.size();
        report.run.runs = static_cast<int64_t>(n);
        report.run.warmup = result.warmup;
        report.run.medianUs = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
        report.run.minUs = s.front();
        report.run.maxUs = s.back();
        report.run.meanUs = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(n);
        report.run.samplesUs = result.runDurationsUs;
    }
    if (result.haveMemSize) {
        report.memory.weightBytes = result.weightBytes;
        report.memory.arenaBytes = result.internalBytes;  // internal tensors, inputs/outputs excluded
        report.model.weightBytes = result.weightBytes;
    }
    int64_t io = 0;
    for (const auto* list : {&result.inputs, &result.outputs})
        for (const auto& t : *list) {
            int64_t elems = 1;
            for (const auto& d : t.shape) elems *= std::max<int64_t>(1, std::atoll(d.c_str()));
            const int64_t bytes = t.dataType == "float32" || t.dataType == "int32" || t.dataType == "uint32" ? 4
                                  : t.dataType == "int64"                                                   ? 8
                                  : t.dataType == "float16" || t.dataType == "bfloat16" || t.dataType == "int16" ||
                                          t.dataType == "uint16"
                                      ? 2
                                      : 1;
            io += elems * bytes;
        }
    report.memory.ioBytes = io;
    return report;
}

}  // namespace npuwb::rknpu
