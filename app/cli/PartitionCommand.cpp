// `npuwb-cli partition MODEL --devices PROFILE [--schedule single|serial|pipelined|all] [--frames N] [--json OUT]`:
// split a model over a device's units (resources/devices), predict the three schedules and, when every unit runs
// on this machine, execute and measure them.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include "Commands.h"
#include "InputShapeOption.h"
#include "RunOptionsCli.h"
#include "npuwb/DeviceProfile.h"
#include "npuwb/Error.h"
#include "npuwb/Partition.h"

namespace npuwb::cli {

namespace {

struct PartitionCliOptions {
    std::string model;
    std::string devices;
    PartitionOptions partition;     // bound option by option: the defaults are the engine's
    std::string schedule = "all";  // or one of PartitionOptions::schedules
    bool reasons = false;
    int gantt = 0;
    std::string jsonPath;
    std::vector<std::string> inputShapes;
    bool listDevices = false;
};

std::string msText(double us) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", us / 1000);
    return buf;
}

std::string joined(const std::vector<std::string>& items, const char* sep = ",") {
    std::string s;
    for (const auto& i : items) s += (s.empty() ? "" : sep) + i;
    return s;
}

void printPlan(const PartitionSection& p, bool reasons) {
    std::printf("Device: %s (%s)\n", p.device.c_str(), p.deviceProfile.c_str());
    for (const auto& u : p.units)
        std::printf("  unit %-14s %-4s costs %-10s load %8s ms/frame  %s\n", u.name.c_str(), u.kind.c_str(),
                    u.costSource.c_str(), msText(u.loadUs).c_str(), u.description.c_str());
    int64_t cutBytes = 0;
    for (const auto& c : p.cuts) cutBytes += c.bytes;
    std::printf("\nPartition (%s): %zu stage(s), %zu cut tensor(s), %s per frame, sync %.1f us per hand-off\n",
                p.strategy.c_str(), p.stages.size(), p.cuts.size(), humanBytes(cutBytes).c_str(), p.syncUs);
    std::printf("%-6s %-14s %6s %10s  %s\n", "Stage", "Unit", "Nodes", "Time(ms)", "Nodes (first..last)");
    for (const auto& s : p.stages) {
        std::string range = s.nodes.empty() ? "" : s.nodes.front() + (s.nodes.size() > 1 ? ".." + s.nodes.back() : "");
        std::printf("s%-5lld %-14s %6zu %10s  %s\n", static_cast<long long>(s.id), s.unit.c_str(), s.nodes.size(),
                    msText(s.predictedUs).c_str(), range.c_str());
    }
    if (!p.cuts.empty()) {
        std::printf("\n%-32s %10s %-24s %12s\n", "Cut tensor", "Bytes", "From -> To", "Transfer(us)");
        for (const auto& c : p.cuts)
            std::printf("%-32s %10s %-24s %12.1f\n", c.tensor.c_str(), humanBytes(c.bytes).c_str(),
                        (c.fromUnit + " s" + std::to_string(c.fromStage) + " -> " + c.toUnit + " s" +
                         std::to_string(c.toStage)).c_str(),
                        c.transferUs);
    }
    std::map<std::string, int> bySteps;
    for (const auto& a : p.assignments) ++bySteps[a.step];
    std::printf("\nAssignments:");
    for (const auto& [step, n] : bySteps) std::printf(" %s %d", step.c_str(), n);
    std::printf("%s\n", reasons ? "" : "  (--reasons lists every node)");
    if (reasons)
        for (const auto& a : p.assignments)
            std::printf("  %-28s %-12s -> %-14s %s\n", a.node.c_str(), a.opType.c_str(), a.unit.c_str(), a.reason.c_str());
}

void printSchedules(const PartitionSection& p) {
    std::printf("\n%-10s %-28s %7s %14s %10s %14s %10s %9s\n", "Schedule", "Units", "Frames", "Predicted(ms)",
                "Pred fps", "Measured(ms)", "Meas fps", "Meas/Pred");
    for (const auto& s : p.schedules) {
        const double predicted = s.predicted.makespanUs / double(s.frames);
        std::printf("%-10s %-28s %7lld %14s %10.1f", s.schedule.c_str(), joined(s.units).c_str(),
                    static_cast<long long>(s.frames), msText(predicted).c_str(), s.predicted.framesPerSecond);
        if (s.measured) {
            const double measured = s.measured->makespanUs / double(s.frames);
            std::printf(" %14s %10.1f %9.2f\n", msText(measured).c_str(), s.measured->framesPerSecond,
                        predicted > 0 ? measured / predicted : 0.0);
        } else {
            std::printf(" %14s %10s %9s\n", "-", "-", "-");
        }
    }
    std::printf("(ms = time per frame: first frame in to last frame out, over the frames)\n");
    for (const auto& n : p.notes) std::printf("note: %s\n", n.c_str());
}

/// A text Gantt chart of the first `frames` frames: one row per lane, the frame number (mod 10) where a stage runs,
/// '~' for a transfer, '.' idle.
void printGantt(const Trace& t, int frames) {
    double end = 0;
    for (const auto& e : t.events)
        if (e.frame < frames) end = std::max(end, e.endUs);
    if (end <= 0) return;
    const int width = 100;
    std::printf("\n%s, %s (first %d frames, %.2f ms across)\n", t.name.c_str(), t.source.c_str(), frames, end / 1000);
    for (const auto& lane : t.lanes) {
        std::string row(width, '.');
        for (const auto& e : t.events) {
            if (e.lane != lane || e.frame >= frames) continue;
            int a = int(std::floor(e.startUs / end * width)), b = int(std::ceil(e.endUs / end * width));
            for (int i = std::max(0, a); i < std::min(width, std::max(b, a + 1)); ++i)
                row[size_t(i)] = e.kind == "transfer" ? '~' : char('0' + e.frame % 10);
        }
        std::printf("  %-16s |%s|\n", lane.c_str(), row.c_str());
    }
}

void runPartition(const PartitionCliOptions& o) {
    if (o.listDevices) {
        for (const auto& name : availableDeviceProfiles()) std::printf("%s\n", name.c_str());
        return;
    }
    if (o.model.empty() || o.devices.empty()) failInput("partition needs MODEL and --devices PROFILE (see --list-devices)");
    DeviceProfile device = findDeviceProfile(o.devices);
    auto model = loadModelWithInputShapes(o.model, o.inputShapes);
    PartitionOptions po = o.partition;
    if (o.schedule != "all") po.schedules = {o.schedule};
    PartitionControl control;
    control.progress = [](const std::string& phase, int done, int total) {
        if (done == 0) std::fprintf(stderr, "%s...\n", phase.c_str());
        (void)total;
    };
    Report report = partitionModel(model, device, po, control);
    if (!o.jsonPath.empty()) {
        saveReport(report, o.jsonPath);
        std::cerr << "report written to " << o.jsonPath << "\n";
    }
    printPlan(*report.partition, o.reasons);
    printSchedules(*report.partition);
    if (!device.executable() && po.execute)
        std::printf("(predicted only: not every unit of '%s' has an executor on this machine)\n", device.name.c_str());
    if (o.gantt > 0)
        for (const auto& t : report.traces) printGantt(t, o.gantt);
}

}  // namespace

static void addPartitionCommand(CLI::App& app) {
    auto opts = std::make_shared<PartitionCliOptions>();
    CLI::App* cmd = app.add_subcommand(
        "partition", "Split a model over a device's units (NPU/GPU/CPU), predict single, serial and pipelined "
                     "schedules, and run them when the units are local worker pools");
    cmd->add_option("model", opts->model, "ONNX model file");
    cmd->add_option("--devices", opts->devices, "device profile name (snapdragon-x2-elite, rk3588, local-2core, ...) or a .json path");
    cmd->add_option("--schedule", opts->schedule, "schedule to predict and run")
        ->capture_default_str()
        ->check(CLI::IsMember({"all", "single", "serial", "pipelined"}));
    PartitionOptions& po = opts->partition;
    cmd->add_option("--strategy", po.strategy, "affinity; + locality (neighbours stay together); + load balance")
        ->capture_default_str()
        ->check(CLI::IsMember({"affinity", "locality", "balanced"}));
    cmd->add_option("--units", po.units, "units to use (default: all of the profile's)")->delimiter(',');
    cmd->add_option("--single-unit", po.singleUnit, "unit of the single-unit schedule (default: the fastest)");
    cmd->add_option("--frames", po.frames, "frames per schedule")->capture_default_str()->check(CLI::Range(1, 1000000));
    cmd->add_option("--warmup", po.warmupFrames, "unrecorded frames before each executed schedule")
        ->capture_default_str()
        ->check(CLI::Range(0, 1000));
    cmd->add_option("--in-flight", po.maxFramesInFlight, "pipelined: frames in flight (0: two per unit)")
        ->capture_default_str()
        ->check(CLI::Range(0, 100000));
    cmd->add_option("--calibration-runs", po.calibrationRuns, "runs per stage when costs are measured locally")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    cmd->add_flag("--predict-only{false}", po.execute, "do not execute, even when every unit could run here");
    cmd->add_flag("--reasons", opts->reasons, "list every node's unit and the reason");
    cmd->add_option("--gantt", opts->gantt, "print text timelines of the first N frames")->check(CLI::Range(0, 1000));
    cmd->add_option("--json", opts->jsonPath, "write the report (schema: resources/schema/report.schema.json)");
    addSeedOption(cmd, po.seed);
    addInputShapeOption(cmd, opts->inputShapes);
    cmd->add_flag("--list-devices", opts->listDevices, "list the device profiles found and exit");
    cmd->callback([opts] { runPartition(*opts); });
}
NPUWB_CLI_COMMAND(addPartitionCommand);

}  // namespace npuwb::cli
