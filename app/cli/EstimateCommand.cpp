// `npuwb-cli estimate MODEL --target CHIP [--cores N] [--dtype int8|fp16] [--json OUT]`: board-less per-layer
// NPU cost estimate from a chip profile, printed with the columns of RKNN's perf-detail table.
#include <cstdio>
#include <iostream>

#include "Commands.h"
#include "InputShapeOption.h"
#include "PerfTable.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/CostModel.h"

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
    char range[96] = "";
    if (!report.run.estimateBasis.empty() && report.run.maxUs > 0)
        std::snprintf(range, sizeof range, ", likely %.1f-%.1f", 1e6 / report.run.maxUs, 1e6 / report.run.minUs);
    char fps[384];
    std::snprintf(fps, sizeof fps, "Estimated FPS: %.1f%s   (%s, %s, %lld core(s), MACs %s)", estimatedFps(report), range,
                  report.environment.device.c_str(), report.layers.empty() ? "-" : report.environment.os.c_str(),
                  static_cast<long long>(report.environment.threads), humanCount(report.model.macs).c_str());
    printPerfDetailTable(report, {0, fps});
    if (!report.run.estimateBasis.empty()) std::printf("FPS %s\n", report.run.estimateBasis.c_str());
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
