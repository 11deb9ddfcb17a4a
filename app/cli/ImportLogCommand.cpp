// `npuwb-cli import-log VENDOR_LOG.txt [--json OUT] [--top N]`: a Rockchip perf log (rknn_eval_perf,
// RKNN_LOG_LEVEL=4, toolkit eval_perf()) as a report, printed like a run and saved in the shared schema.
#include <cstdio>
#include <iostream>

#include "Commands.h"
#include "PerfTable.h"
#include "npuwb/VendorPerfLog.h"

namespace npuwb::cli {

namespace {
struct ImportLogCliOptions {
    std::string log;
    std::string jsonPath;
    int top = 0;
};

void runImportLog(const ImportLogCliOptions& o) {
    VendorPerfLog log = loadRknnPerfLog(o.log);
    for (const auto& w : log.warnings) std::cerr << "warning: " << w << "\n";
    Report report = reportFromRknnPerfLog(log, o.log);
    if (!o.jsonPath.empty()) {
        saveReport(report, o.jsonPath);
        std::cerr << "report written to " << o.jsonPath << "\n";
    }
    char summary[256];
    std::snprintf(summary, sizeof summary, "Imported %zu layers (%s); layer sum %.1f us%s", log.layers.size(),
                  log.format.c_str(), log.layerTimeSumUs(), log.totalUs ? "" : " (no total printed in the log)");
    printPerfDetailTable(report, {o.top, summary});
}
}  // namespace

static void addImportLogCommand(CLI::App& app) {
    auto opts = std::make_shared<ImportLogCliOptions>();
    CLI::App* cmd = app.add_subcommand("import-log", "Import a Rockchip per-layer perf log (eval_perf, RKNN_LOG_LEVEL=4) "
                                                     "as a report");
    cmd->add_option("log", opts->log, "vendor perf log (text)")->required();
    cmd->add_option("--json", opts->jsonPath, "write the report (schema: resources/schema/report.schema.json)");
    cmd->add_option("--top", opts->top, "show only the N slowest layers")->check(CLI::Range(0, 1000000));
    cmd->callback([opts] { runImportLog(*opts); });
}
NPUWB_CLI_COMMAND(addImportLogCommand);

}  // namespace npuwb::cli
