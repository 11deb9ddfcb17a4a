// Multi-context multi-batch runs on the CPU backends (npuwb/ContextProfile.h). Each context lives on its own worker thread from compile to
// destruction: oneDNN's primitives must run on the thread that created them, and the thread pools a backend starts
// (OpenMP teams, XNNPACK's pool) inherit the CPU affinity of the thread that starts them.
#include "npuwb/ContextProfile.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstring>
#include <exception>
#include <numeric>
#include <optional>
#include <thread>

#include "npuwb/Error.h"
#include "npuwb/ModelSummary.h"
#include "npuwb/Npy.h"

namespace npuwb {

namespace {

using Clock = std::chrono::steady_clock;

std::vector<int> usableCpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cpus;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus.push_back(c);
    return cpus;
}

std::string cpuList(const std::vector<int>& cpus) {
    std::string s;
    for (int c : cpus) {
        if (!s.empty()) s += ',';
        s += std::to_string(c);
    }
    return s;
}

void pinThisThread(const std::vector<int>& cpus) {
    if (cpus.empty()) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : cpus) CPU_SET(c, &set);
    if (int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set); rc != 0)
        fail(ErrorKind::Io, "cannot pin a context to CPUs " + cpuList(cpus) + ": " + std::strerror(rc));
}

/// Slice `slice` of `batch` samples stacked on axis 0 of `stacked`, with shape `shape`.
Tensor sliceOf(const Tensor& stacked, const Shape& shape, int slice, int batch) {
    Tensor t = Tensor::uninitialized(stacked.dtype(), shape);
    const size_t bytes = stacked.byteSize() / static_cast<size_t>(batch);
    std::memcpy(t.raw(), static_cast<const std::byte*>(stacked.raw()) + bytes * static_cast<size_t>(slice), bytes);
    return t;
}

/// Every slice's inputs: the user's files (whole, or sliced on axis 0), seeded random values otherwise.
std::vector<std::map<std::string, Value>> sliceInputs(const Session& session, const ModelRunOptions& options) {
    const int batch = options.batch;
    std::vector<std::map<std::string, Tensor>> slices;
    for (int s = 0; s < batch; ++s) slices.push_back(makeInputs(session, options.randomSeed + static_cast<uint64_t>(s)));
    for (const auto& [name, path] : options.inputFiles) {
        auto generated = slices[0].find(name);
        if (generated == slices[0].end()) failInput("--input " + name + ": the model has no required input of that name");
        const Shape want = generated->second.shape();
        const Tensor t = readNpy(path);
        if (t.dtype() != generated->second.dtype() || t.dtype() == DType::String)
            failInput(path + ": " + std::string(dtypeName(t.dtype())) + " data for input '" + name + "', which takes " +
                      std::string(dtypeName(generated->second.dtype())));
        Shape stacked = want;
        if (!stacked.empty()) stacked[0] *= batch;
        if (t.shape() == want) {
            for (auto& s : slices) s[name] = t;
        } else if (!want.empty() && t.shape() == stacked) {
            for (int s = 0; s < batch; ++s) slices[static_cast<size_t>(s)][name] = sliceOf(t, want, s, batch);
        } else {
            failInput(path + ": shape " + shapeToString(t.shape()) + " fits neither input '" + name + "' (" +
                      shapeToString(want) + ") nor its " + std::to_string(batch) + " batch slices stacked (" +
                      shapeToString(stacked) + ")");
        }
    }
    std::vector<std::map<std::string, Value>> feeds(slices.size());
    for (size_t s = 0; s < slices.size(); ++s)
        for (auto& [name, t] : slices[s]) feeds[s][name] = Value(std::move(t));
    return feeds;
}

/// The contexts' worker threads. Each pins itself, compiles its context, then runs its slices once per pass; the
/// passes are steps of one barrier shared with the calling thread (ready, then go/done per pass, then go to stop).
class ContextWorkers {
public:
    ContextWorkers(std::vector<std::optional<Session>> sessions, std::vector<std::vector<int>> cpus,
                   const std::vector<std::map<std::string, Value>>& feeds)
        : sessions_(std::move(sessions)), cpus_(std::move(cpus)), feeds_(feeds), errors_(sessions_.size()),
          runs_(sessions_.size()), sync_(static_cast<std::ptrdiff_t>(sessions_.size()) + 1) {
        for (size_t c = 0; c < sessions_.size(); ++c) threads_.emplace_back([this, c] { work(c); });
    }
    ~ContextWorkers() { stop(); }
    ContextWorkers(const ContextWorkers&) = delete;
    ContextWorkers& operator=(const ContextWorkers&) = delete;

    /// Waits until every context is compiled; rethrows the first failure.
    void awaitReady() {
        sync_.arrive_and_wait();
        ready_ = true;
        rethrow();
    }
    /// What each context holds, once ready.
    SessionMemory memory(size_t context) const { return sessions_[context]->memory(); }
    /// One pass over every slice; returns its wall time in microseconds.
    double pass(int index, bool record) {
        passIndex_ = index;
        record_ = record;
        const auto start = Clock::now();
        if (record && !origin_) origin_ = start;
        sync_.arrive_and_wait();  // go
        sync_.arrive_and_wait();  // done
        const double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        rethrow();
        return us;
    }
    void stop() {
        if (threads_.empty()) return;
        if (!ready_) sync_.arrive_and_wait();
        ready_ = true;
        stopping_ = true;
        sync_.arrive_and_wait();
        for (auto& t : threads_) t.join();
        threads_.clear();
    }
    std::vector<ContextSliceRun> sliceRuns() const {
        std::vector<ContextSliceRun> all;
        for (const auto& r : runs_) all.insert(all.end(), r.begin(), r.end());
        return all;
    }

private:
    void work(size_t c) {
        const std::map<std::string, Tensor> first = [&] {
            std::map<std::string, Tensor> t;
            for (const auto& [name, v] : feeds_[c]) t[name] = v.tensor;
            return t;
        }();
        try {
            pinThisThread(cpus_[c]);
            sessions_[c]->prepare(first);
        } catch (...) {
            errors_[c] = std::current_exception();
        }
        sync_.arrive_and_wait();  // ready
        while (true) {
            sync_.arrive_and_wait();  // go
            if (stopping_) break;
            const size_t contexts = sessions_.size();
            for (size_t s = c; s < feeds_.size() && !errors_[c]; s += contexts) {
                try {
                    const auto start = Clock::now();
                    (void)sessions_[c]->run(feeds_[s]);
                    const auto end = Clock::now();
                    if (record_)
                        runs_[c].push_back({static_cast<int64_t>(c), static_cast<int64_t>(s), passIndex_,
                                            std::chrono::duration<double, std::micro>(start - *origin_).count(),
                                            std::chrono::duration<double, std::micro>(end - *origin_).count()});
                } catch (...) {
                    errors_[c] = std::current_exception();
                }
            }
            sync_.arrive_and_wait();  // done
        }
        sessions_[c].reset();  // its primitives go on the thread that made them
    }
    void rethrow() const {
        for (const auto& e : errors_)
            if (e) std::rethrow_exception(e);
    }

    std::vector<std::optional<Session>> sessions_;
    std::vector<std::vector<int>> cpus_;
    const std::vector<std::map<std::string, Value>>& feeds_;
    std::vector<std::exception_ptr> errors_;
    std::vector<std::vector<ContextSliceRun>> runs_;
    std::barrier<> sync_;
    std::vector<std::thread> threads_;
    // Written by the calling thread before the barrier step that lets the workers read them.
    int passIndex_ = 0;
    bool record_ = false, ready_ = false, stopping_ = false;
    std::optional<Clock::time_point> origin_;
};

double medianOf(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

std::vector<int> cpusOfCoreMask(NpuCoreMask mask) {
    const std::vector<int> usable = usableCpus();
    std::vector<int> wanted;
    switch (mask) {
    case NpuCoreMask::Auto: return {};
    case NpuCoreMask::All: return usable;
    case NpuCoreMask::Core0: wanted = {0}; break;
    case NpuCoreMask::Core1: wanted = {1}; break;
    case NpuCoreMask::Core2: wanted = {2}; break;
    case NpuCoreMask::Cores01: wanted = {0, 1}; break;
    case NpuCoreMask::Cores012: wanted = {0, 1, 2}; break;
    }
    for (int c : wanted)
        if (std::find(usable.begin(), usable.end(), c) == usable.end())
            failInput(std::string("core mask '") + coreMaskName(mask) + "' pins a context to CPU " + std::to_string(c) +
                      ", which this process may not use (usable CPUs: " + cpuList(usable) + ")");
    return wanted;
}

Report profileContexts(std::shared_ptr<const Model> model, const ExecutorOptions& executor,
                       const ModelRunOptions& options, const ProfileControl& control) {
    if (!model) failInput("no model");
    if (options.runs < 1) failInput("--runs must be at least 1");
    if (options.warmup < 0) failInput("--warmup must not be negative");
    if (executor.threads < 0) failInput("threads cannot be negative");
    const int contexts = contextCount(options);
    std::vector<std::vector<int>> cpus;
    for (int c = 0; c < contexts; ++c) cpus.push_back(cpusOfCoreMask(contextCoreMask(options, c)));
    const int budget = executor.threads > 0 ? executor.threads : physicalCoreCount();
    const int threadsPerContext = std::max(1, budget / contexts);
    const SessionOptions sessionOptions{.executor = {.backend = executor.backend, .threads = threadsPerContext}};
    const auto createStart = Clock::now();
    Session first(model, sessionOptions);
    const std::vector<std::map<std::string, Value>> feeds = sliceInputs(first, options);

    Report report;
    if (options.perLayer) {  // one context alone, before the others exist: rows in the engine's own columns
        RunOptions single;
        single.executor = sessionOptions.executor;
        single.runs = options.runs;
        single.warmup = options.warmup;
        for (const auto& [name, v] : feeds[0]) single.inputs[name] = v.tensor;
        ProfileControl quiet;
        quiet.cancel = control.cancel;
        report = profileModel(model, single, quiet);
    } else {
        report = newReport("profile");
        report.model = summarizeModel(*model);
        report.environment = localEnvironment(threadsPerContext);
        report.environment.backend = first.backendName();
    }
    report.environment.threads = static_cast<int64_t>(threadsPerContext) * contexts;

    // Every context, the first included, is a newContext(): `first` itself never compiles, so no plan outlives the
    // worker thread that made it.
    std::vector<std::optional<Session>> sessions;
    for (int c = 0; c < contexts; ++c) sessions.emplace_back(first.newContext(threadsPerContext));
    ContextWorkers workers(std::move(sessions), cpus, feeds);
    workers.awaitReady();
    const double createUs = std::chrono::duration<double, std::micro>(Clock::now() - createStart).count();

    RuntimeSection rt;
    rt.runtime = first.backendName();
    rt.batch = options.batch;
    int64_t scratch = 0;
    SessionMemory weights = workers.memory(0);
    for (int c = 0; c < contexts; ++c) {
        const SessionMemory m = workers.memory(static_cast<size_t>(c));
        RuntimeContext rc;
        rc.index = c;
        rc.coreMask = coreMaskName(contextCoreMask(options, c));
        rc.internalBytes = m.scratchBytes;
        for (int s = c; s < options.batch; s += contexts) ++rc.slicesPerPass;
        scratch += m.scratchBytes;
        rt.contexts.push_back(rc);
        if (!cpus[static_cast<size_t>(c)].empty())
            rt.notes.push_back("context " + std::to_string(c) + ": core mask " + rc.coreMask + " pins its threads to CPU(s) " +
                               cpuList(cpus[static_cast<size_t>(c)]));
    }
    rt.weightBytes = weights.weightBytes;
    if (!weights.weightsShared) {
        rt.weightBytes = weights.weightBytes * contexts;
        rt.notes.push_back(rt.runtime + " packs the weights again for each context (it keeps no shared copy)");
    }
    if (weights.weightBytes == 0 && rt.runtime != kReferenceBackend)
        rt.notes.push_back(rt.runtime + " does not report the bytes of its packed weights; weights shows 0");
    rt.totalBytes = rt.weightBytes + scratch;
    rt.notes.push_back(std::to_string(threadsPerContext) + " thread(s) per context (" + std::to_string(budget) +
                       " split among " + std::to_string(contexts) + ")");

    const int passes = options.warmup + options.runs;
    std::vector<double> samples;
    for (int p = 0; p < passes; ++p) {
        if (control.cancel && control.cancel->load()) fail(ErrorKind::Cancelled, "cancelled");
        const bool timed = p >= options.warmup;
        if (control.progress)
            control.progress(timed ? "run" : "warm-up", timed ? p - options.warmup : p, timed ? options.runs : options.warmup);
        const double us = workers.pass(timed ? p - options.warmup : p, timed);
        if (timed) samples.push_back(us);
    }
    if (control.progress) control.progress("run", options.runs, options.runs);
    const std::vector<ContextSliceRun> sliceRuns = workers.sliceRuns();
    workers.stop();

    RunStats& run = report.run;
    setRunSamples(run, samples);
    run.warmup = options.warmup;
    run.sessionCreateUs = createUs;
    std::vector<double> sliceUs;
    for (const ContextSliceRun& r : sliceRuns) sliceUs.push_back(r.endUs - r.startUs);
    run.breakdown = TimeBreakdown{};
    run.breakdown->inferenceUs = medianOf(sliceUs);

    const double wall = std::accumulate(samples.begin(), samples.end(), 0.0);
    rt.samplesPerSecond = wall > 0 ? static_cast<double>(options.batch) * static_cast<double>(samples.size()) * 1e6 / wall : 0;
    rt.timing = "run.*: wall time of each timed pass (" + std::to_string(options.batch) + " batch slice(s) over " +
                std::to_string(contexts) + " concurrent context(s) on " + rt.runtime + "), " +
                std::to_string(options.runs) + " passes after " + std::to_string(options.warmup) +
                " warm-up; breakdownUs.inferenceUs: median per slice run";
    if (!report.layers.empty())
        rt.layerTiming = "layers: a separate single-context profile of batch slice 0 (" + std::to_string(options.runs) +
                         " runs, kernel timing on) before the contexts started";
    report.memory.weightBytes = rt.weightBytes;
    report.memory.arenaBytes = scratch;
    report.memory.peakRssBytes = peakRssBytes();
    report.runtime = rt;

    // The single-context profile's kernels ran before the contexts, on another clock origin: not this timeline.
    report.traces.clear();
    report.traces.push_back(contextsTrace(static_cast<size_t>(contexts), sliceRuns));
    return report;
}

}  // namespace npuwb
