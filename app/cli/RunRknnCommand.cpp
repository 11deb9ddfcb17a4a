// `npuwb-cli run-rknn MODEL.rknn [--runs N] [--warmup K] [--json OUT] [--top N]`: profile a compiled .rknn model on
// this board through the rknpu model-runtime plugin (plugins/rknpu: Rockchip's librknnrt.so via dlopen). Where the
// runtime is missing it fails with "librknnrt.so not available on this board" (exit 1).
#include <cstdio>
#include <iostream>

#include "Commands.h"
#include "PerfTable.h"
#include "npuwb/ModelRuntimes.h"

namespace npuwb::cli {

namespace {
struct RunRknnCliOptions {
    std::string model;
    ModelRunOptions run;
    std::string jsonPath;
    int top = 0;
};

void runRunRknn(const RunRknnCliOptions& o) {
    Report report = runModelFile("rknpu", o.model, o.run);
    if (!o.jsonPath.empty()) {
        saveReport(report, o.jsonPath);
        std::cerr << "report written to " << o.jsonPath << "\n";
    }
    char summary[256];
    std::snprintf(summary, sizeof summary, "Run time (RKNN_QUERY_PERF_RUN): median %.1f us, min %.1f us over %lld runs",
                  report.run.medianUs, report.run.minUs, static_cast<long long>(report.run.runs));
    printPerfDetailTable(report, {o.top, summary});
}
}  // namespace

static void addRunRknnCommand(CLI::App& app) {
    auto opts = std::make_shared<RunRknnCliOptions>();
    CLI::App* cmd = app.add_subcommand("run-rknn", "Profile a .rknn model on this board through Rockchip's runtime "
                                                   "(librknnrt.so)");
    cmd->add_option("model", opts->model, ".rknn model file")->required();
    cmd->add_option("--runs", opts->run.runs, "timed runs")->capture_default_str()->check(CLI::Range(1, 100000));
    cmd->add_option("--warmup", opts->run.warmup, "untimed warm-up runs")
        ->capture_default_str()
        ->check(CLI::Range(0, 100000));
    cmd->add_option("--json", opts->jsonPath, "write the report (schema: resources/schema/report.schema.json)");
    cmd->add_option("--top", opts->top, "show only the N slowest layers")->check(CLI::Range(0, 1000000));
    cmd->callback([opts] { runRunRknn(*opts); });
}
NPUWB_CLI_COMMAND(addRunRknnCommand);

}  // namespace npuwb::cli
