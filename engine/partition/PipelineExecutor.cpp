#include "partition/PipelineExecutor.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <set>

#include "npuwb/Error.h"
#include "npuwb/Profiler.h"
#include "partition/WorkGraph.h"

namespace npuwb::partition {

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

ValueInfo declared(const Graph& g, const std::string& name) {
    if (const ValueInfo* vi = g.findValueInfo(name)) return *vi;
    ValueInfo vi;
    vi.name = name;
    vi.type.dtype = DType::Undefined;
    return vi;
}

}  // namespace

std::shared_ptr<const Model> stageModel(const Model& full, const std::vector<size_t>& graphNodes,
                                        const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                                        const std::string& name) {
    const Graph& g = full.graph;
    std::map<std::string, size_t> producer;
    for (size_t i = 0; i < g.nodes.size(); ++i)
        for (const auto& out : g.nodes[i].outputs)
            if (!out.empty()) producer[out] = i;
    std::set<size_t> chosen(graphNodes.begin(), graphNodes.end());
    const std::set<std::string> given(inputs.begin(), inputs.end());
    // Values the stage reads but neither makes nor is given are constants made elsewhere (Constant nodes, shape
    // arithmetic on initializers): the stage computes them itself.
    std::vector<size_t> work(graphNodes.begin(), graphNodes.end());
    std::set<std::string> initializers;
    while (!work.empty()) {
        size_t idx = work.back();
        work.pop_back();
        for (const auto& in : nodeReads(g.nodes[idx])) {
            if (g.initializers.count(in)) {
                initializers.insert(in);
                continue;
            }
            if (given.count(in)) continue;
            auto p = producer.find(in);
            if (p == producer.end()) continue;  // a graph input handed to every stage that reads it
            if (chosen.insert(p->second).second) work.push_back(p->second);
        }
    }
    auto model = std::make_shared<Model>();
    model->irVersion = full.irVersion;
    model->opsetImports = full.opsetImports;
    model->producerName = "npuwb partition";
    model->sourcePath = full.sourcePath + " [" + name + "]";
    model->graph.name = name;
    for (size_t idx : chosen) {  // std::set keeps the file order; the Session orders them itself
        const Node& node = g.nodes[idx];
        model->graph.nodes.push_back(node);
        for (const auto& out : node.outputs)
            if (auto it = g.valueInfo.find(out); it != g.valueInfo.end()) model->graph.valueInfo[out] = it->second;
    }
    for (const auto& init : initializers) model->graph.initializers[init] = g.initializers.at(init);
    for (const auto& in : inputs) model->graph.inputs.push_back(declared(g, in));
    for (const auto& out : outputs) model->graph.outputs.push_back(declared(g, out));
    return model;
}

LocalExecutor::LocalExecutor(const DeviceProfile& device, const std::vector<std::string>& units, size_t queueCapacity,
                             const std::atomic<bool>* cancel)
    : cancel_(cancel) {
    for (const auto& name : units) {
        const DeviceUnit* u = device.unit(name);
        if (!u) failInput("device profile '" + device.sourcePath + "' has no unit '" + name + "'");
        if (!u->executor)
            failInput("unit '" + name + "' of device profile '" + device.sourcePath +
                      "' has no executor: it cannot run on this machine");
        units_.push_back(*u);
        workers_.push_back(std::make_unique<Worker>(u->name, u->executor->cpus, queueCapacity));
    }
}

void LocalExecutor::checkCancel() const {
    if (cancel_ && cancel_->load()) fail(ErrorKind::Cancelled, "partition cancelled");
}

std::shared_ptr<const Session> LocalExecutor::session(int unit, std::shared_ptr<const Model> model) const {
    const SessionOptions options{.executor = units_.at(size_t(unit)).executor->session};
    return std::make_shared<const Session>(std::move(model), options);
}

std::vector<double> LocalExecutor::nodeTimes(int unit, std::shared_ptr<const Model> model,
                                             const std::vector<std::string>& nodeNames,
                                             const std::map<std::string, Tensor>& inputs, int runs) {
    checkCancel();
    const UnitExecutor& exec = *units_.at(size_t(unit)).executor;
    RunOptions po;
    po.executor = exec.session;
    po.runs = std::max(1, runs);
    po.warmup = 1;
    po.inputs = inputs;
    Report profile = workers_.at(size_t(unit))->call([&] { return profileModel(model, po); });
    std::map<std::string, double> byName;
    for (const LayerRow& row : profile.layers) byName[row.fullName] += row.timeUs;
    std::vector<double> out;
    for (const auto& n : nodeNames) {
        auto it = byName.find(n);
        out.push_back(it == byName.end() ? 0.0 : it->second);
    }
    return out;
}

std::vector<double> LocalExecutor::calibrateSteps(const ExecChain& chain, const std::map<std::string, Tensor>& inputs,
                                                  int runs) {
    std::map<std::string, Value> values(inputs.begin(), inputs.end());
    // One pass through the chain compiles every stage's backend plan and gives each stage its inputs.
    for (const ExecStep& step : chain.steps) {
        checkCancel();
        std::map<std::string, Value> feeds;
        for (const auto& in : step.inputs) feeds[in] = values.at(in);
        auto results = workers_.at(size_t(step.unit))->call([&] { return step.session->run(feeds); });
        for (auto& [name, v] : results) values[name] = std::move(v);
    }
    std::vector<double> out;
    for (const ExecStep& step : chain.steps) {
        std::map<std::string, Value> feeds;
        for (const auto& in : step.inputs) feeds[in] = values.at(in);
        std::vector<double> samples;
        for (int r = 0; r < std::max(1, runs); ++r) {
            checkCancel();
            samples.push_back(workers_.at(size_t(step.unit))->call([&] {
                auto start = Clock::now();
                step.session->run(feeds);
                return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
            }));
        }
        out.push_back(median(std::move(samples)));
    }
    return out;
}

double LocalExecutor::stageOverheadUs(int unit, const WorkGraph& work, const std::map<std::string, Tensor>& inputs,
                                      int runs, int pieces) {
    double total = 0;
    for (const auto& n : work.nodes) total += n.costUs[size_t(unit)];
    if (total <= 0 || pieces < 2 || work.nodes.size() < size_t(pieces)) return 0;
    // Cut where the cumulative cost crosses each 1/pieces; alternate two labels so every cut starts a stage.
    WorkGraph split = work;
    split.units = {"even", "odd"};
    split.stageOverheadUs.assign(2, 0.0);
    std::vector<int> unitOf;
    double sum = 0;
    for (auto& n : split.nodes) {
        const double cost = n.costUs[size_t(unit)];
        unitOf.push_back(std::min(pieces - 1, int(sum / total * pieces)) % 2);
        sum += cost;
        n.costUs.assign(2, cost);
    }
    StagePlan plan = buildStages(split, unitOf, TransferCost{});
    ExecChain chain;
    for (size_t i = 0; i < plan.stages.size(); ++i) {
        const Stage& st = plan.stages[i];
        std::vector<size_t> graphNodes;
        for (int n : st.nodes) graphNodes.push_back(split.nodes[size_t(n)].graphIndex);
        ExecStep step;
        step.name = "piece " + std::to_string(i);
        step.unit = unit;
        step.session = session(unit, stageModel(*work.model, graphNodes, st.inputs, st.outputs, step.name));
        step.inputs = st.inputs;
        chain.steps.push_back(std::move(step));
    }
    ExecChain whole;
    ExecStep all;
    all.unit = unit;
    all.session = session(unit, work.model);
    for (const auto& [name, t] : inputs) all.inputs.push_back(name);
    whole.steps.push_back(std::move(all));
    auto fastestPass = [&](const ExecChain& c) {
        std::map<std::string, Value> values(inputs.begin(), inputs.end());
        double best = 0;
        for (int r = 0; r <= std::max(1, runs); ++r) {  // pass 0 compiles
            checkCancel();
            double passUs = 0;
            for (const ExecStep& step : c.steps) {
                std::map<std::string, Value> feeds;
                for (const auto& in : step.inputs) feeds[in] = values.at(in);
                passUs += workers_.at(size_t(unit))->call([&] {
                    auto start = Clock::now();
                    for (auto& [name, v] : step.session->run(feeds)) values[name] = std::move(v);
                    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
                });
            }
            if (r == 1 || (r > 1 && passUs < best)) best = passUs;
        }
        return best;
    };
    const double pieceUs = fastestPass(chain), wholeUs = fastestPass(whole);
    return plan.stages.size() > 1 ? std::max(0.0, (pieceUs - wholeUs) / double(plan.stages.size() - 1)) : 0.0;
}

double LocalExecutor::handoffUs(int roundTrips) {
    if (workers_.size() < 2) return 0;
    std::vector<double> samples;
    for (int i = 0; i < std::max(1, roundTrips); ++i) {
        std::promise<double> done;
        auto result = done.get_future();
        Worker& a = *workers_[0];
        Worker& b = *workers_[1];
        a.post([&] {
            auto start = Clock::now();
            b.post([&, start] {
                a.post([&, start] {
                    done.set_value(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
                });
            });
        });
        samples.push_back(result.get() / 2);
    }
    return median(std::move(samples));
}

MeasuredSchedule LocalExecutor::run(const ExecChain& chain, const std::map<std::string, Tensor>& inputs, int frames,
                                    int warmup) {
    if (chain.steps.empty()) fail(ErrorKind::Internal, "an execution chain without steps");
    struct FrameState {
        std::map<std::string, Value> values;
        double admittedUs = 0;
    };
    std::mutex mutex;
    std::condition_variable changed;
    int inFlight = 0, finished = 0;
    std::exception_ptr error;
    MeasuredSchedule out;
    std::vector<double> latency;
    double lastEndUs = 0;
    bool record = false;
    Clock::time_point t0 = Clock::now();
    auto nowUs = [&] { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); };

    std::function<void(int, size_t, std::shared_ptr<FrameState>, double)> runStep;
    runStep = [&](int frame, size_t index, std::shared_ptr<FrameState> state, double readyUs) {
        const ExecStep& step = chain.steps[index];
        const double startUs = nowUs();
        bool ok = true;
        try {
            checkCancel();
            std::map<std::string, Value> feeds;
            for (const auto& in : step.inputs) feeds[in] = state->values.at(in);
            auto results = step.session->run(feeds);
            for (auto& [name, v] : results) state->values[name] = std::move(v);
            for (const auto& gone : step.release) state->values.erase(gone);
        } catch (...) {
            ok = false;
            std::lock_guard lock(mutex);
            if (!error) error = std::current_exception();
        }
        const double endUs = nowUs();
        if (record) {
            std::lock_guard lock(mutex);
            TraceEvent ev;
            ev.lane = units_[size_t(step.unit)].name;
            ev.name = step.name;
            ev.frame = frame;
            ev.startUs = startUs;
            ev.endUs = endUs;
            ev.readyUs = readyUs;
            out.trace.events.push_back(std::move(ev));
        }
        if (ok && index + 1 < chain.steps.size()) {
            const ExecStep& next = chain.steps[index + 1];
            const double handedUs = nowUs();
            workers_[size_t(next.unit)]->post(
                [&, frame, index, state, handedUs] { runStep(frame, index + 1, state, handedUs); }, frame);
            return;
        }
        std::lock_guard lock(mutex);
        --inFlight;
        ++finished;
        latency.push_back(endUs - state->admittedUs);
        lastEndUs = std::max(lastEndUs, endUs);
        changed.notify_all();
    };

    auto pass = [&](int count) {
        finished = 0;
        latency.clear();
        lastEndUs = 0;
        t0 = Clock::now();
        int fed = 0;
        for (int f = 0; f < count; ++f) {
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] { return inFlight < chain.maxInFlight || error; });
                if (error || (cancel_ && cancel_->load())) break;
                ++inFlight;
            }
            auto state = std::make_shared<FrameState>();
            state->values.insert(inputs.begin(), inputs.end());
            state->admittedUs = nowUs();
            ++fed;
            workers_[size_t(chain.steps.front().unit)]->post(
                [&, f, state] { runStep(f, 0, state, state->admittedUs); }, f);
        }
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return finished == fed; });
        if (error) std::rethrow_exception(error);
        checkCancel();
    };
    if (warmup > 0) pass(warmup);
    record = true;
    pass(frames);

    out.trace.name = chain.name;
    out.trace.source = "measured";
    std::set<int> used;
    for (const ExecStep& s : chain.steps) used.insert(s.unit);
    for (int u : used) out.trace.lanes.push_back(units_[size_t(u)].name);
    std::sort(out.trace.events.begin(), out.trace.events.end(),
              [](const TraceEvent& a, const TraceEvent& b) { return a.startUs < b.startUs; });
    out.figures.makespanUs = lastEndUs;
    out.figures.framesPerSecond = lastEndUs > 0 ? frames * 1e6 / lastEndUs : 0;
    out.figures.latencyUs = median(latency);
    return out;
}

}  // namespace npuwb::partition
