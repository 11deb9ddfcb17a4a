// runJob: load, warm up, run and measure with the engine's profiler, while a sampler thread streams telemetry;
// then the report with the board's environment and the deployment time breakdown (RKNN SDK user guide V2.5.0,
// 5.2.1.2).
#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "BoardState.h"
#include "Job.h"
#include "JsonLines.h"
#include "Probe.h"
#include "StopSignals.h"
#include "Telemetry.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/MatmulBench.h"
#include "npuwb/ModelIO.h"
#include "npuwb/ModelRuntimes.h"
#include "npuwb/Profiler.h"
#include "npuwb/Session.h"
#include "npuwb/Error.h"
#include "npuwb/Limits.h"

namespace npuwb::agent {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

double usSince(Clock::time_point start) {
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

void emitProgress(const std::string& phase, int done, int total) {
    emitEvent(AgentProgress{.phase = phase, .done = done, .total = total});
}

void throwIfStopped(const std::string& where) {
    if (stopFlag().load()) fail(ErrorKind::Cancelled, "stopped by signal " + std::to_string(stopSignal()) + " " + where);
}

/// Copies of `bytes` bytes between two host buffers: what moving a result out of the runtime costs on this board.
double timeHostCopy(size_t bytes, int repeats) {
    if (bytes == 0) return 0.0;
    std::vector<char> from(bytes, 1), to(bytes);
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
        const auto start = Clock::now();
        std::memcpy(to.data(), from.data(), bytes);
        times.push_back(usSince(start));
        from[i % bytes] = to[(i + 1) % bytes];  // keeps the copy observable
    }
    return median(times);
}

BoardClocks boardClocks(const BoardFiles& files) {
    BoardClocks c;
    std::vector<CpuPolicy> policies = cpuPolicies(files);
    for (const auto& khz : cpuFrequenciesKHz(files, onlineCpus(files), policies)) c.cpuFreqKHz.push_back(khz.value_or(0));
    c.npuFreqHz = devfreqCurrentHz(files, "npu");
    c.ddrFreqHz = devfreqCurrentHz(files, "ddr");
    for (const auto& p : policies)
        if (p.governor) c.governors[p.name] = *p.governor;
    for (const auto& d : devfreqDevices(files))
        if (d.governor) c.governors[d.name] = *d.governor;
    return c;
}

void fillBoardEnvironment(Environment& env, const BoardFiles& files) {
    env.host = hostName();
    env.device = env.host;
    env.arch = machineArch();
    env.kernel = kernelRelease();
    std::string os = osPrettyName(files);
    if (!os.empty()) env.os = os;
    std::string cpu = cpuModel(files);
    if (!cpu.empty()) env.cpu = cpu;
    if (size_t online = onlineCpus(files).size(); online > 0) env.cores = static_cast<int64_t>(online);
    if (auto driver = npuDriver(files)) env.npuDriver = driver->version.empty() ? driver->text : driver->version;
    env.clocks = boardClocks(files);
}

void requireFile(const std::string& path, const std::string& what) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        failInput(what + " '" + path + "' " +
                  (std::filesystem::exists(path, ec) ? "is not a regular file" : "does not exist"));
}

/// A compiled model (.rknn) through its whole-model runtime plugin, found in the plugin folders like the backends.
/// The runtime reports no progress of its own, so the events bracket its one call; the telemetry samples cover
/// exactly that call.
void runRuntimeJob(const AgentJob& job, const BoardFiles& files) {
    for (const auto& [input, path] : job.modelRun.inputFiles) requireFile(path, "input file for '" + input + "'");
    TelemetrySampler sampler(files, job.telemetryIntervalMs > 0 ? job.telemetryIntervalMs : 1'000'000'000);
    const int total = job.modelRun.warmup + job.modelRun.runs;
    emitProgress("run", 0, total);
    Report report = runModelFile(job.runtime, job.model, job.modelRun);
    sampler.stop();
    throwIfStopped("while the runtime ran");
    emitProgress("run", total, total);
    report.model.path = job.model;
    if (report.environment.backend.empty()) report.environment.backend = job.runtime;
    const std::string runtimeSaid = report.environment.os;  // the runtime plugin's "RKNPU driver X.Y.Z", if any
    fillBoardEnvironment(report.environment, files);
    if (!report.environment.npuDriver && runtimeSaid.rfind("RKNPU driver ", 0) == 0)
        report.environment.npuDriver = runtimeSaid.substr(13);
    report.memory.peakRssBytes = peakRssBytes();
    emitEvent(AgentReport{.report = std::move(report)});
}

/// A matmul sweep on the NPU through the runtime plugin's matmul kernels (the job's runtime as the bench's backend;
/// the plugin refuses rather than letting a CPU kernel stand in). Progress per point; telemetry spans the sweep.
void runMatmulJob(const AgentJob& job, const BoardFiles& files) {
    const AgentMatmulJob& matmul = *job.matmul;
    const ChipProfile chip = matmul.chipProfile.is_object()
                                 ? chipProfileFromJson(matmul.chipProfile, "the job's chip profile " + matmul.chip)
                                 : findChipProfile(matmul.chip);
    MatmulBenchOptions bench = matmul.bench;
    bench.backend = job.runtime;
    TelemetrySampler sampler(files, job.telemetryIntervalMs > 0 ? job.telemetryIntervalMs : 1'000'000'000);
    MatmulBenchResult result = runMatmulBench(chip, bench, [](size_t done, size_t total) {
        emitProgress("run", int(done), int(total));
        return !stopFlag().load();
    });
    sampler.stop();
    result.measuredOn = hostName();
    emitEvent(AgentMatmulBench{.result = std::move(result)});
}

}  // namespace

void runJob(const AgentJob& job, const BoardFiles& files) {
    if (job.matmul) {
        if (job.timeLimitSeconds > 0)
            setProcessDeadline(std::chrono::steady_clock::now() + std::chrono::seconds(job.timeLimitSeconds),
                               job.timeLimitSeconds);
        return runMatmulJob(job, files);
    }
    requireFile(job.model, "model file");

    // The job's time limit bounds its local work (load, warm-up, runs, Loop bodies) like the CLI's --time-limit.
    if (job.timeLimitSeconds > 0)
        setProcessDeadline(std::chrono::steady_clock::now() + std::chrono::seconds(job.timeLimitSeconds),
                           job.timeLimitSeconds);
    if (!job.runtime.empty()) return runRuntimeJob(job, files);

    TelemetrySampler sampler(files, job.telemetryIntervalMs > 0 ? job.telemetryIntervalMs : 1'000'000'000);

    emitProgress("load", 0, 1);
    const auto loadStart = Clock::now();
    auto model = std::make_shared<const Model>(loadModel(job.model));
    const double loadUs = usSince(loadStart);
    throwIfStopped("while loading the model");
    emitProgress("load", 1, 1);

    // Pre-processing: making the job's inputs (generated from the seed, as the CLI's profile does).
    const Session shapeSession(model);
    RunOptions options = job.run;
    const auto prepStart = Clock::now();
    options.inputs = makeInputs(shapeSession, options.seed, options.symbolicDimValue, options.inputShapes);
    const std::map<std::string, Tensor>& inputs = options.inputs;
    const double preProcessUs = usSince(prepStart);
    // Input copy: the application's buffers into the runtime's tensors.
    std::vector<double> copyTimes;
    size_t inputBytes = 0;
    for (const auto& [name, t] : inputs) inputBytes += t.byteSize();
    for (int i = 0; i < 5; ++i) {
        const auto start = Clock::now();
        std::map<std::string, Tensor> copies;
        for (const auto& [name, t] : inputs) copies.emplace(name, t.clone());
        copyTimes.push_back(usSince(start));
    }

    ProfileControl control;
    control.cancel = &stopFlag();
    bool inWarmup = false;
    int warmupTotal = 0;
    control.progress = [&](const std::string& phase, int done, int total) {
        if (phase == "warm-up") {
            inWarmup = true;
            warmupTotal = total;
        } else if (inWarmup) {
            emitProgress("warm-up", warmupTotal, warmupTotal);
            inWarmup = false;
        }
        emitProgress(phase, done, total);
    };
    Report report = profileModel(model, options, control);
    sampler.stop();

    report.model.path = job.model;
    report.run.sessionCreateUs += loadUs;
    TimeBreakdown breakdown;
    breakdown.preProcessUs = preProcessUs;
    breakdown.inputCopyUs = median(copyTimes);
    breakdown.inferenceUs = report.run.medianUs;
    const int64_t outputBytes = std::max<int64_t>(0, report.memory.ioBytes - static_cast<int64_t>(inputBytes));
    breakdown.outputCopyUs = timeHostCopy(static_cast<size_t>(outputBytes), 5);
    report.run.breakdown = breakdown;
    fillBoardEnvironment(report.environment, files);
    report.memory.peakRssBytes = peakRssBytes();
    emitEvent(AgentReport{.report = std::move(report)});
}

}  // namespace npuwb::agent
