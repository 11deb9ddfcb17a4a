// partitionModel: costs -> placement -> stages -> predicted schedules -> (local execution) -> report.
#include "npuwb/Partition.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

#include "npuwb/Error.h"
#include "npuwb/LayerIds.h"
#include "npuwb/ModelSummary.h"
#include "npuwb/Profiler.h"
#include "npuwb/Session.h"
#include "partition/PipelineExecutor.h"
#include "partition/Schedule.h"

namespace npuwb {

using namespace partition;

namespace {

const std::vector<std::string> kScheduleNames = {"single", "serial", "pipelined"};

std::string ms(double us) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.2f ms", us / 1000);
    return buf;
}

std::vector<std::string> chosenUnits(const DeviceProfile& device, const PartitionOptions& o) {
    if (o.units.empty()) {
        std::vector<std::string> all;
        for (const auto& u : device.units) all.push_back(u.name);
        return all;
    }
    std::set<std::string> seen;
    for (const auto& name : o.units) {
        if (!device.unit(name)) {
            std::string known;
            for (const auto& u : device.units) known += (known.empty() ? "" : ", ") + u.name;
            failInput("device profile '" + device.sourcePath + "' has no unit '" + name + "' (units: " + known + ")");
        }
        if (!seen.insert(name).second) failInput("unit '" + name + "' is listed twice");
    }
    std::vector<std::string> ordered;  // profile order, so lanes and reports read the same way every time
    for (const auto& u : device.units)
        if (seen.count(u.name)) ordered.push_back(u.name);
    return ordered;
}

void checkOptions(const PartitionOptions& o) {
    if (o.frames < 1) failInput("partition needs at least 1 frame, got " + std::to_string(o.frames));
    if (o.maxFramesInFlight < 0) failInput("frames in flight must not be negative");
    if (o.schedules.empty()) failInput("partition needs at least one schedule (single, serial, pipelined)");
    for (const auto& s : o.schedules)
        if (std::find(kScheduleNames.begin(), kScheduleNames.end(), s) == kScheduleNames.end())
            failInput("unknown schedule '" + s + "' (single, serial, pipelined)");
}

double totalOn(const WorkGraph& work, size_t unit) {
    double sum = 0;
    for (const auto& n : work.nodes) sum += n.costUs[unit];
    return sum;
}

int pickSingleUnit(const WorkGraph& work, const std::string& requested) {
    if (!requested.empty()) {
        auto it = std::find(work.units.begin(), work.units.end(), requested);
        if (it == work.units.end()) failInput("single unit '" + requested + "' is not among the units used");
        int u = int(it - work.units.begin());
        if (std::isinf(totalOn(work, size_t(u)))) failInput("unit '" + requested + "' cannot run every node");
        return u;
    }
    int best = -1;
    for (size_t u = 0; u < work.units.size(); ++u)
        if (!std::isinf(totalOn(work, u)) && (best < 0 || totalOn(work, u) < totalOn(work, size_t(best)))) best = int(u);
    return best;
}

/// Values each step reads, what it drops afterwards (nothing later reads them), on which worker it runs.
ExecChain stageChain(const WorkGraph& work, const StagePlan& plan, LocalExecutor& exec, const std::string& name) {
    ExecChain chain;
    chain.name = name;
    std::vector<std::set<std::string>> neededAfter(plan.stages.size());
    std::set<std::string> later;
    for (size_t i = plan.stages.size(); i-- > 0;) {
        neededAfter[i] = later;
        later.insert(plan.stages[i].inputs.begin(), plan.stages[i].inputs.end());
    }
    for (size_t i = 0; i < plan.stages.size(); ++i) {
        const Stage& st = plan.stages[i];
        std::vector<size_t> graphNodes;
        for (int n : st.nodes) graphNodes.push_back(work.nodes[size_t(n)].graphIndex);
        ExecStep step;
        step.name = stageName(work, plan, i);
        step.unit = st.unit;
        step.session = exec.session(st.unit, stageModel(*work.model, graphNodes, st.inputs, st.outputs, step.name));
        step.inputs = st.inputs;
        step.outputs = st.outputs;
        for (const auto& v : st.inputs)
            if (!neededAfter[i].count(v)) step.release.push_back(v);
        for (const auto& v : st.outputs)
            if (!neededAfter[i].count(v)) step.release.push_back(v);
        chain.steps.push_back(std::move(step));
    }
    return chain;
}

std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return s;
}

PartitionSection describePlan(const WorkGraph& work, const DeviceProfile& device, const PartitionOptions& o,
                              const Placement& placement, const StagePlan& plan, const std::vector<double>& stageUs,
                              const TransferCost& transfer) {
    PartitionSection p;
    p.device = device.name;
    p.deviceProfile = device.sourcePath;
    p.strategy = o.strategy;
    p.syncUs = transfer.syncUs;
    for (size_t u = 0; u < work.units.size(); ++u) {
        const DeviceUnit& unit = *device.unit(work.units[u]);
        p.units.push_back({.name = unit.name, .kind = unit.kind, .description = unit.description,
                           .costSource = unit.costs, .loadUs = plan.unitLoadUs[u],
                           .stageOverheadUs = work.stageOverheadUs[u]});
    }
    for (size_t n = 0; n < work.nodes.size(); ++n) {
        const WorkNode& node = work.nodes[n];
        PartitionAssignment a;
        a.node = node.name;
        a.opType = node.opType;
        a.opClass = node.opClass;
        a.unit = work.units[size_t(placement.unitOf[n])];
        a.step = planStepName(placement.step[n]);
        a.reason = placement.reason[n];
        for (size_t u = 0; u < work.units.size(); ++u)
            if (!std::isinf(node.costUs[u])) a.costUs[work.units[u]] = node.costUs[u];
        p.assignments.push_back(std::move(a));
    }
    for (size_t i = 0; i < plan.stages.size(); ++i) {
        const Stage& st = plan.stages[i];
        PartitionStage s;
        s.id = int64_t(i);
        s.name = stageName(work, plan, i);
        s.unit = work.units[size_t(st.unit)];
        for (int n : st.nodes) s.nodes.push_back(work.nodes[size_t(n)].name);
        s.inputs = st.inputs;
        s.outputs = st.outputs;
        s.predictedUs = stageUs[i];
        p.stages.push_back(std::move(s));
    }
    for (const Cut& c : plan.cuts)
        p.cuts.push_back({.tensor = c.value, .bytes = c.bytes, .fromUnit = work.units[size_t(c.fromUnit)],
                          .toUnit = work.units[size_t(c.toUnit)], .fromStage = c.fromStage, .toStage = c.toStage,
                          .transferUs = transferUs(c.bytes, transfer)});
    return p;
}

void fillLayers(Report& report, const WorkGraph& work, const DeviceProfile& device, const Placement& placement) {
    double total = 0;
    for (size_t n = 0; n < work.nodes.size(); ++n) total += work.nodes[n].costUs[size_t(placement.unitOf[n])];
    for (size_t n = 0; n < work.nodes.size(); ++n) {
        const WorkNode& node = work.nodes[n];
        const size_t u = size_t(placement.unitOf[n]);
        LayerRow row;
        row.id = int64_t(n);
        row.fullName = node.name;
        row.opType = node.opType;
        row.target = upper(device.unit(work.units[u])->kind);
        row.macs = node.macs;
        row.timeUs = row.timeUsMin = node.costUs[u];
        row.timePercent = total > 0 ? 100.0 * node.costUs[u] / total : 0;
        report.layers.push_back(std::move(row));
    }
}

}  // namespace

Report partitionModel(std::shared_ptr<const Model> model, const DeviceProfile& device, const PartitionOptions& o,
                      const PartitionControl& control) {
    checkOptions(o);
    auto progress = [&](const std::string& phase, int done, int total) {
        if (control.progress) control.progress(phase, done, total);
        if (control.cancel && control.cancel->load()) fail(ErrorKind::Cancelled, "partition cancelled");
    };
    const std::vector<std::string> units = chosenUnits(device, o);
    progress("costs", 0, 1);
    WorkGraph work = buildWorkGraph(model, device, units, o.symbolicDimValue);
    fillModelledCosts(work, device);

    bool calibrated = device.transfer.calibrate;
    bool executable = true;
    for (const auto& name : units) {
        calibrated = calibrated || device.unit(name)->costs == "calibrated";
        executable = executable && device.unit(name)->executor.has_value();
    }
    const bool execute = o.execute && executable;
    const int inFlight = o.maxFramesInFlight > 0 ? o.maxFramesInFlight : defaultFramesInFlight(units.size());
    std::unique_ptr<LocalExecutor> exec;
    std::map<std::string, Tensor> inputs;
    if (execute || calibrated) {
        if (!executable) failInput("device profile '" + device.sourcePath + "' needs an executor on every unit used");
        // More room than frames ever in flight (each has one task queued at a time): posting never blocks.
        const size_t capacity = size_t(inFlight) + 4;
        exec = std::make_unique<LocalExecutor>(device, units, capacity, control.cancel);
        SessionOptions inputsOnly;  // only makes inputs: no backend plugin to load
        inputsOnly.executor.backend = kReferenceBackend;
        inputs = makeInputs(Session(model, inputsOnly), o.seed, o.symbolicDimValue);
        std::vector<std::string> names;
        for (const auto& n : work.nodes) names.push_back(n.name);
        for (size_t u = 0; u < units.size(); ++u) {
            if (device.unit(units[u])->costs != "calibrated") continue;
            progress("costs", int(u), int(units.size()));
            std::vector<double> times = exec->nodeTimes(int(u), model, names, inputs, o.calibrationRuns);
            const UnitExecutor& e = *device.unit(units[u])->executor;
            for (size_t n = 0; n < work.nodes.size(); ++n) {
                work.nodes[n].costUs[u] = times[n];
                work.nodes[n].costNote[u] = "measured on " + units[u] + " (" + e.session.backend + ")";
            }
            work.stageOverheadUs[u] = exec->stageOverheadUs(int(u), work, inputs, o.calibrationRuns);
        }
    }
    TransferCost transfer = device.transfer;
    if (transfer.calibrate) transfer.syncUs = exec->handoffUs(51);

    progress("plan", 0, 1);
    Placement placement = placeNodes(work, transfer, o.strategy, {.frames = o.frames, .maxInFlight = inFlight});
    StagePlan plan = buildStages(work, placement.unitOf, transfer);
    const int single = pickSingleUnit(work, o.singleUnit);
    std::vector<double> stageUs;
    for (const Stage& st : plan.stages) stageUs.push_back(st.computeUs);
    double singleUs = single >= 0 ? totalOn(work, size_t(single)) : 0;

    std::map<std::string, ExecChain> chains;
    if (exec) {
        if (single >= 0) {
            ExecChain one;
            one.name = "single";
            ExecStep whole;
            whole.name = "whole model on " + units[size_t(single)];
            whole.unit = single;
            whole.session = exec->session(single, model);
            for (const auto& [name, t] : inputs) whole.inputs.push_back(name);
            one.steps.push_back(std::move(whole));
            chains["single"] = std::move(one);
        }
        chains["serial"] = stageChain(work, plan, *exec, "serial");
        chains["pipelined"] = chains["serial"];
        chains["pipelined"].name = "pipelined";
        chains["pipelined"].maxInFlight = inFlight;
        // Calibrated units: the schedules assume each stage's own measured time, not the sum of its nodes'.
        progress("calibrate", 0, 2);
        std::vector<double> measured = exec->calibrateSteps(chains["serial"], inputs, o.calibrationRuns);
        for (size_t i = 0; i < plan.stages.size(); ++i)
            if (device.unit(units[size_t(plan.stages[i].unit)])->costs == "calibrated") stageUs[i] = measured[i];
        progress("calibrate", 1, 2);
        if (single >= 0 && device.unit(units[size_t(single)])->costs == "calibrated")
            singleUs = exec->calibrateSteps(chains["single"], inputs, o.calibrationRuns).front();
    }

    Report report = newReport("partition");
    report.model = summarizeModel(*model, work.shapes);
    report.environment = exec ? localEnvironment(1) : Environment{};
    report.environment.device = device.name;
    report.environment.backend = exec ? "partition (local workers)" : "device-model";
    PartitionSection section = describePlan(work, device, o, placement, plan, stageUs, transfer);
    fillLayers(report, work, device, placement);
    LayerIds(model->graph).renumber(report.layers);  // the model's IDs, as its profile and the Layers table show them

    for (const auto& name : o.schedules) {
        ChainSchedule spec;
        ScheduleResult result;
        result.schedule = name;
        result.frames = o.frames;
        if (name == "single") {
            if (single < 0) {
                section.notes.push_back("single: no unit can run every node");
                continue;
            }
            spec = singleUnitSchedule(work, single, singleUs, o.frames);
            result.units = {units[size_t(single)]};
        } else {
            spec = stageChainSchedule(work, plan, stageUs, name, name == "serial" ? 1 : inFlight, o.frames);
            for (const auto& u : section.units)
                if (u.loadUs > 0 || plan.stages.size() == 1) result.units.push_back(u.name);
        }
        SimulatedSchedule predicted = simulate(spec);
        result.predicted = predicted.figures;
        report.traces.push_back(std::move(predicted.trace));
        if (execute && chains.count(name)) {
            ExecChain chain = chains.at(name);
            if (name == "serial") chain.maxInFlight = 1;
            progress(name, 0, o.frames);
            MeasuredSchedule m = exec->run(chain, inputs, o.frames, o.warmupFrames);
            progress(name, o.frames, o.frames);
            result.measured = m.figures;
            report.traces.push_back(std::move(m.trace));
        }
        section.schedules.push_back(std::move(result));
    }
    std::string busiest;
    for (size_t u = 0; u < units.size(); ++u)
        if (plan.unitLoadUs[u] >= plan.boundUs) busiest = units[u];
    for (const auto& [link, load] : plan.linkLoadUs)
        if (load >= plan.boundUs) busiest = linkName(work, link);
    section.notes.push_back("one frame serially: " + ms(plan.serialUs) + " (compute + hand-offs); busiest lane per frame: " +
                            busiest + " " + ms(plan.boundUs) + " (the pipelined bound)");
    if (plan.stages.size() == 1) section.notes.push_back("every node is on " + units[size_t(plan.stages[0].unit)] +
                                                         ": nothing to pipeline");
    if (exec && calibrated)
        section.notes.push_back("predictions use stage times measured on this machine (median of " +
                                std::to_string(o.calibrationRuns) + " runs per stage, each alone on its worker)" +
                                (transfer.calibrate ? " and the measured hand-off latency" : ""));
    for (const auto& r : section.schedules) {
        if (r.schedule != "pipelined") continue;
        const ScheduleFigures& f = r.measured ? *r.measured : r.predicted;
        report.run.runs = r.frames;
        report.run.warmup = r.measured ? o.warmupFrames : 0;
        report.run.medianUs = report.run.minUs = report.run.meanUs = report.run.maxUs = f.makespanUs / double(r.frames);
    }
    report.partition = std::move(section);
    return report;
}

const ScheduleResult& scheduleResult(const Report& report, const std::string& schedule) {
    if (report.partition)
        for (const auto& r : report.partition->schedules)
            if (r.schedule == schedule) return r;
    failInput("the report has no '" + schedule + "' schedule");
}

}  // namespace npuwb
