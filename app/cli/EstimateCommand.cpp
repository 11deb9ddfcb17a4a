// `npuwb-cli estimate MODEL --target CHIP [--cores N] [--dtype int8|fp16] [--json OUT]`: board-less per-layer
// NPU cost estimate from a chip profile, printed with the columns of RKNN's perf-detail table.
#include <cstdio>
#include <iostream>
#include <map>

#include "Commands.h"
#include "InputShapeOption.h"
#include "chips/ChipProfile.h"
#include "perfmodel/CostModel.h"

namespace npuwb::cli {

namespace {
struct EstimateCliOptions {
    std::string model;
    std::string target;
    int cores = 1;
    std::string dtype = "int8";
    std::string jsonPath;
    std::vector<std::string> inputShapes;
    bool listChips = false;
};

std::string shapeText(const std::vector<std::vector<int64_t>>& shapes) {
    std::string s;
    for (const auto& sh : shapes) {
        if (sh.empty()) continue;  // absent optional inputs, scalars
        if (!s.empty()) s += ",";
        s += shapeToString(sh);
    }
    return s;
}

void printTable(const Report& r) {
    std::printf("%-4s %-26s %-8s %-6s %-20s %-18s %-26s %9s %11s %9s  %s\n", "ID", "OpType", "DataType", "Target",
                "InputShape", "OutputShape", "Cycles(DDR/NPU/Total)", "Time(us)", "MacUsage(%)", "RW(KB)", "FullName");
    double rwKB = 0, npuUs = 0, cpuUs = 0;
    std::map<std::string, std::pair<int, double>> byOp;
    for (const auto& l : r.layers) {
        std::string cycles = l.cyclesTotal ? std::to_string(*l.cyclesDdr) + "/" + std::to_string(*l.cyclesNpu) + "/" +
                                                 std::to_string(*l.cyclesTotal)
                                           : "0/0/0";
        std::string usage = l.macUsagePercent ? std::to_string(*l.macUsagePercent).substr(0, 5) : "-";
        std::string in = l.inputShapes.empty() ? "" : shapeToString(l.inputShapes[0]);
        std::printf("%-4lld %-26s %-8s %-6s %-20s %-18s %-26s %9.1f %11s %9.1f  %s\n", static_cast<long long>(l.id),
                    l.opType.c_str(), l.dataType.c_str(), l.target.c_str(), in.c_str(),
                    shapeText(l.outputShapes).c_str(), cycles.c_str(), l.timeUs, usage.c_str(), l.rwKB(),
                    l.fullName.c_str());
        rwKB += l.rwKB();
        (l.target == "NPU" ? npuUs : cpuUs) += l.timeUs;
        byOp[l.opType].first++;
        byOp[l.opType].second += l.timeUs;
    }
    std::printf("\nTotal Operator Elapsed Per Frame Time(us): %.1f   (NPU %.1f, CPU %.1f)\n", r.run.medianUs, npuUs,
                cpuUs);
    std::printf("Total Memory Read/Write Per Frame Size(KB): %.1f\n", rwKB);
    std::printf("Estimated FPS: %.1f   (%s, %s, %lld core(s), MACs %s)\n\n", estimatedFps(r),
                r.environment.device.c_str(), r.layers.empty() ? "-" : r.environment.os.c_str(),
                static_cast<long long>(r.environment.threads), humanCount(r.model.macs).c_str());
    std::printf("%-26s %10s %12s %12s %12s\n", "OpType", "CallNumber", "NPUTime(us)", "TotalTime(us)", "TimeRatio(%)");
    for (const auto& [op, v] : byOp)
        std::printf("%-26s %10d %12.1f %12.1f %12.2f\n", op.c_str(), v.first, v.second, v.second,
                    r.run.medianUs > 0 ? 100.0 * v.second / r.run.medianUs : 0.0);
}

void runEstimate(const EstimateCliOptions& o) {
    if (o.listChips) {
        for (const auto& name : availableChipProfiles()) std::printf("%s\n", name.c_str());
        return;
    }
    if (o.model.empty() || o.target.empty()) failInput("estimate needs MODEL and --target CHIP (see --list-chips)");
    ChipProfile chip = findChipProfile(o.target);
    auto model = loadModelWithInputShapes(o.model, o.inputShapes);
    EstimateOptions eo;
    eo.dtype = o.dtype;
    eo.cores = o.cores;
    Report report = estimateModel(*model, chip, eo);
    if (!o.jsonPath.empty()) {
        saveReport(report, o.jsonPath);
        std::cerr << "report written to " << o.jsonPath << "\n";
    }
    printTable(report);
}
}  // namespace

static void addEstimateCommand(CLI::App& app) {
    auto opts = std::make_shared<EstimateCliOptions>();
    CLI::App* cmd = app.add_subcommand("estimate", "Estimate per-layer NPU cycles and time for a chip (no board needed)");
    cmd->add_option("model", opts->model, "ONNX model file");
    cmd->add_option("--target", opts->target, "chip profile name (rk3588, rk3566, ...) or a profile .json path");
    cmd->add_option("--cores", opts->cores, "NPU cores to use (only multi-core ops split)")
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    cmd->add_option("--dtype", opts->dtype, "NPU data type")->capture_default_str()->check(CLI::IsMember({"int8", "fp16"}));
    cmd->add_option("--json", opts->jsonPath, "write the report (schema: resources/schema/report.schema.json)");
    addInputShapeOption(cmd, opts->inputShapes);
    cmd->add_flag("--list-chips", opts->listChips, "list the chip profiles found and exit");
    cmd->callback([opts] { runEstimate(*opts); });
}
NPUWB_CLI_COMMAND(addEstimateCommand);

}  // namespace npuwb::cli
