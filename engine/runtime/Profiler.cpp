#include "npuwb/Profiler.h"

#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <thread>
#include <unordered_map>

#include "npuwb/LayerIds.h"
#include "npuwb/ModelSummary.h"
#include "npuwb/ProcessMemory.h"
#include "npuwb/RunSpread.h"
#include "npuwb/sdk/MemoryPlanner.h"

namespace npuwb {

namespace {

using Clock = std::chrono::steady_clock;

int64_t valueBytes(const Value& v) {
    if (v.isTensor()) return static_cast<int64_t>(v.tensor.byteSize());
    int64_t b = 0;
    for (const auto& t : v.sequence) b += static_cast<int64_t>(t.byteSize());
    return b;
}

/// Records per-node wall time and, on the first run, shapes, bytes and tensor lifetimes. With a backend the first
/// run is the reference learning run (it gives the shapes); later runs time backend kernels through kernelTimed:
/// a fused kernel's time goes whole to its first node (the anchor, as the vendor's perf detail shows a fused layer
/// as one row), its other nodes are listed on the anchor's row and point at it; a node timed by several kernels
/// (e.g. a boundary reorder and the conv) gets their sum for the run.
class ProfilingObserver : public ExecutionObserver {
public:
    explicit ProfilingObserver(const Graph& graph) : graph_(graph) {}

    void runStarted(size_t nodeCount) override {
        current_.assign(nodeCount, -1.0);
        runStart_ = Clock::now();
        runKernels_.clear();
    }
    void nodeStarted(size_t, const Node&) override { start_ = Clock::now(); }
    bool wantsKernelTimes() const override { return true; }
    bool acceptsPlaceholderOutputs() const override { return true; }  // it records shapes, never values
    void kernelTimed(const std::vector<size_t>& steps, double microseconds) override {
        if (steps.empty()) return;
        const size_t anchor = *std::min_element(steps.begin(), steps.end());
        addTime(anchor, microseconds);
        if (steps.size() > 1) {
            std::vector<size_t>& members = fusedMembers_[anchor];
            for (size_t step : steps)
                if (step != anchor && std::find(members.begin(), members.end(), step) == members.end())
                    members.push_back(step);
        }
        // Called as the kernel ends, on the running thread: now is its end (one clock read per kernel).
        addKernel(anchor < rows_.size() ? rows_[anchor].fullName : std::string(), microseconds, true);
    }
    void nodeFinished(size_t step, const Node& node, const std::vector<const Value*>& inputs,
                      const std::vector<Value>& outputs) override {
        double us = std::chrono::duration<double, std::micro>(Clock::now() - start_).count();
        addTime(step, us);
        addKernel(node.layerName(), us, false);
        if (!recordShapes_) return;
        if (rows_.size() <= step) rows_.resize(step + 1);
        LayerRow& row = rows_[step];
        row.id = static_cast<int64_t>(step);
        row.fullName = node.layerName();
        row.opType = (node.domain.empty() ? "" : node.domain + ".") + node.opType;
        std::vector<Shape> inShapes, outShapes;
        for (size_t i = 0; i < inputs.size(); ++i) {
            const Value* v = inputs[i];
            Shape s = v && v->isTensor() ? v->tensor.shape() : Shape{};
            row.inputShapes.push_back(s);
            inShapes.push_back(s);
            if (v) row.bytesRead += valueBytes(*v);
            if (v && !node.inputs[i].empty()) lastUse_[node.inputs[i]] = static_cast<int64_t>(step);
        }
        for (size_t i = 0; i < outputs.size(); ++i) {
            const Value& v = outputs[i];
            Shape s = v.isTensor() ? v.tensor.shape() : Shape{};
            row.outputShapes.push_back(s);
            outShapes.push_back(s);
            row.bytesWritten += valueBytes(v);
            if (i == 0 && v.isTensor()) row.dataType = std::string(dtypeName(v.tensor.dtype()));
            if (i < node.outputs.size() && !node.outputs[i].empty()) {
                produced_[node.outputs[i]] = {static_cast<int64_t>(step), valueBytes(v)};
                producedOrder_.push_back(node.outputs[i]);
            }
        }
        row.macs = nodeMacs(node, inShapes, outShapes);
    }
    void runFinished() override {
        lastRunKernels_ = runKernels_;
        if (times_.size() < current_.size()) times_.resize(current_.size());
        for (size_t i = 0; i < current_.size(); ++i)
            if (current_[i] >= 0.0) times_[i].push_back(current_[i]);
        recordShapes_ = false;
    }

    std::vector<LayerRow> rows() const {
        std::vector<LayerRow> out = rows_;
        double total = 0.0;
        for (size_t i = 0; i < out.size() && i < times_.size(); ++i) {
            std::vector<double> t = times_[i];
            std::sort(t.begin(), t.end());
            out[i].timeUs = t.empty() ? 0.0 : t[t.size() / 2];
            out[i].timeUsMin = t.empty() ? 0.0 : t.front();
            total += out[i].timeUs;
        }
        for (auto& r : out) r.timePercent = total > 0 ? 100.0 * r.timeUs / total : 0.0;
        // Members of a fused kernel that no kernel of their own timed: their time is the anchor's.
        for (auto [anchor, members] : fusedMembers_) {
            if (anchor >= out.size()) continue;
            std::sort(members.begin(), members.end());
            for (size_t m : members) {
                if (m >= out.size() || (m < times_.size() && !times_[m].empty())) continue;
                out[m].fusedInto = out[anchor].fullName;
                out[anchor].fusedNodes.push_back(out[m].fullName);
            }
        }
        return out;
    }

    /// Lifetimes of intermediate tensors (not graph inputs, outputs or initializers) for the memory planner.
    std::vector<TensorLifetime> lifetimes() const {
        std::vector<TensorLifetime> out;
        std::unordered_map<std::string, bool> isOutput;
        for (const auto& o : graph_.outputs) isOutput[o.name] = true;
        for (const auto& name : producedOrder_) {
            if (isOutput.count(name)) continue;
            const auto& [step, bytes] = produced_.at(name);
            auto last = lastUse_.find(name);
            out.push_back({.name = name,
                           .bytes = bytes,
                           .offset = 0,
                           .firstStep = step,
                           .lastStep = last == lastUse_.end() ? step : std::max(step, last->second)});
        }
        return out;
    }
    void resetTimes() { times_.clear(); }

    /// Every kernel of the last run with its measured start and end: a lane for the backend's kernels and one for
    /// the nodes the reference kernels ran (fallbacks), in execution order.
    Trace kernelsTrace(const std::string& backend) const {
        Trace trace;
        trace.name = "kernels";
        trace.source = "measured";
        for (const auto& [event, onBackend] : lastRunKernels_) {
            TraceEvent e = event;
            e.lane = onBackend ? backend + " kernels" : std::string("reference kernels");
            if (std::find(trace.lanes.begin(), trace.lanes.end(), e.lane) == trace.lanes.end())
                trace.lanes.push_back(e.lane);
            trace.events.push_back(std::move(e));
        }
        return trace;
    }

private:
    const Graph& graph_;
    Clock::time_point start_;
    bool recordShapes_ = true;
    std::vector<LayerRow> rows_;
    std::vector<std::vector<double>> times_;
    std::vector<double> current_;  // this run's time per step, -1 when not timed
    std::map<size_t, std::vector<size_t>> fusedMembers_;  // a fused kernel's first step -> its other steps

    void addKernel(std::string name, double us, bool onBackend) {
        const double endUs = std::chrono::duration<double, std::micro>(Clock::now() - runStart_).count();
        TraceEvent e;
        e.name = std::move(name);
        e.kind = "kernel";
        e.startUs = std::max(0.0, endUs - us);
        e.endUs = endUs;
        runKernels_.emplace_back(std::move(e), onBackend);
    }
    Clock::time_point runStart_;
    std::vector<std::pair<TraceEvent, bool>> runKernels_, lastRunKernels_;  // (kernel, ran on the backend)

    void addTime(size_t step, double us) {
        if (current_.size() <= step) current_.resize(step + 1, -1.0);
        current_[step] = std::max(current_[step], 0.0) + us;
    }
    std::unordered_map<std::string, std::pair<int64_t, int64_t>> produced_;
    std::vector<std::string> producedOrder_;
    std::unordered_map<std::string, int64_t> lastUse_;
};

std::string firstLineMatching(const std::string& path, const std::string& key) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(key, 0) == 0) {
            auto colon = line.find(':');
            if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
        }
    return {};
}

}  // namespace

std::map<std::string, Tensor> makeInputs(const Session& session, uint64_t seed, int64_t symbolicDimValue,
                                         const std::map<std::string, Shape>& inputShapes) {
    for (const auto& [name, shape] : inputShapes) {
        bool known = false;
        for (const auto& in : session.inputs()) known = known || in.name == name;
        if (!known) failInput("a shape is given for '" + name + "' but the model has no input of that name");
    }
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    std::map<std::string, Tensor> inputs;
    for (const auto& in : session.inputs()) {
        if (in.type.kind != ValueType::Kind::Tensor) failUnsupported("input '" + in.name + "' is not a tensor");
        if (in.type.dtype == DType::Undefined) failInput("input '" + in.name + "' declares no element type");
        Shape shape;
        if (auto given = inputShapes.find(in.name); given != inputShapes.end()) {
            shape = given->second;
            bool fits = !in.type.shape || in.type.shape->size() == shape.size();
            for (size_t i = 0; fits && in.type.shape && i < shape.size(); ++i)
                fits = !(*in.type.shape)[i].known() || (*in.type.shape)[i].value == shape[i];
            if (!fits)
                failInput("input '" + in.name + "': the given shape " + shapeToString(shape) +
                          " does not fit the declared " + symShapeToString(*in.type.shape));
        } else {
            if (!in.type.shape) failInput("input '" + in.name + "' has no declared shape; pass it explicitly");
            for (const Dim& d : *in.type.shape) shape.push_back(d.known() ? d.value : symbolicDimValue);
        }
        Tensor t(in.type.dtype, shape);
        if (isFloat(in.type.dtype)) {
            visitFloat(in.type.dtype, [&]<typename T>() {
                for (auto& v : t.values<T>()) v = T(uniform(rng));
            });
        }
        inputs[in.name] = t;
    }
    return inputs;
}

int64_t peakRssBytes() {
    struct rusage usage {};
    if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

Environment localEnvironment(int threads) {
    Environment env;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) env.host = host;
    struct utsname u {};
    if (uname(&u) == 0) env.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
    env.cpu = firstLineMatching("/proc/cpuinfo", "model name");
    env.cores = static_cast<int64_t>(std::thread::hardware_concurrency());
    env.threads = threads;
    env.backend = "reference";
    env.device = "local";
    return env;
}

Report profileModel(std::shared_ptr<const Model> model, const RunOptions& options, const ProfileControl& control) {
    if (options.runs < 1) failInput("runs must be at least 1");
    if (options.warmup < 0) failInput("warm-up runs cannot be negative");
    const SessionOptions so{.executor = options.executor, .profileKernels = options.layerTimes};
    const std::optional<double> loadBefore = systemLoadAverage();  // what else had the cores, before ours start
    const auto createStart = Clock::now();
    Session session(model, so);
    double sessionCreateUs = std::chrono::duration<double, std::micro>(Clock::now() - createStart).count();
    std::map<std::string, Tensor> inputs = makeInputs(session, options.seed, options.symbolicDimValue, options.inputShapes);
    for (const auto& [name, t] : options.inputs) inputs[name] = t;
    ProfilingObserver observer(model->graph);
    RunControl rc;
    rc.cancel = control.cancel;
    rc.observer = &observer;
    // Getting ready, like ORT's create(): learning the shapes (the observer records them) and compiling the
    // backend plan, without an inference.
    const auto prepareStart = Clock::now();
    session.prepare(inputs, rc);
    sessionCreateUs += std::chrono::duration<double, std::micro>(Clock::now() - prepareStart).count();
    std::map<std::string, Value> feeds;
    for (const auto& [k, t] : inputs) feeds[k] = Value(t);

    int64_t ioBytes = 0;
    const int warmup = options.warmup;
    // Each run's outputs are freed and made again at the same sizes: reused from the heap, as a program calling
    // run() in a loop gets them with glibc's defaults, instead of the executables' policy of unmapping large freed
    // blocks, which made every run page-fault its outputs in (yolov7-tiny: 2,100 faults, about 4 ms of 75).
    ReuseFreedBlocks reuse;
    for (int i = 0; i < warmup; ++i) {
        if (control.progress) control.progress("warm-up", i, warmup);
        session.run(feeds, rc);
    }
    observer.resetTimes();
    std::vector<double> samples;
    for (int i = 0; i < options.runs; ++i) {
        if (control.progress) control.progress("run", i, options.runs);
        auto start = Clock::now();
        auto outputs = session.run(feeds, rc);
        samples.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        if (i == 0)
            for (const auto& [k, v] : outputs) ioBytes += valueBytes(v);
    }
    if (control.progress) control.progress("run", options.runs, options.runs);
    for (const auto& [k, t] : inputs) ioBytes += static_cast<int64_t>(t.byteSize());

    Report report = newReport("profile");
    report.model = summarizeModel(*model);
    report.environment = localEnvironment(session.threads());  // the reference executor is single-threaded
    report.environment.backend = session.backendName();
    report.environment.loadAverage = loadBefore;
    report.fallbacks = session.fallbacks();
    report.layers = observer.rows();
    numberProfileLayers(report, model->graph, session.executionRewrites());
    int64_t observedMacs = 0;
    for (const auto& l : report.layers) observedMacs += l.macs;
    report.model.macs = std::max(report.model.macs, observedMacs);  // real shapes beat inferred ones

    setRunSamples(report.run, samples);
    report.run.warmup = warmup;
    report.run.sessionCreateUs = sessionCreateUs;

    MemoryPlan plan = planMemory(observer.lifetimes());
    report.memory.weightBytes = report.model.weightBytes;
    report.memory.ioBytes = ioBytes;
    report.memory.arenaBytes = plan.arenaBytes;
    report.memory.lowerBoundBytes = plan.lowerBoundBytes;
    report.memory.peakRssBytes = peakRssBytes();
    report.memory.tensors = std::move(plan.tensors);
    if (options.layerTimes)
        if (Trace kernels = observer.kernelsTrace(session.backendName()); !kernels.events.empty())
            report.traces.push_back(std::move(kernels));
    return report;
}

}  // namespace npuwb
