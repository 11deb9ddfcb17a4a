// `npuwb-cli profile MODEL [--runs N] [--warmup K] [--backend B] [--json OUT]`: per-layer timing table and totals,
// locally or on a board (--board HOST). A compiled model (MODEL.rknn) runs through the runtime plugin that claims
// its extension, with the runtime flags of ModelRunOptionsCli.h (--core-mask, --contexts, --batch).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "BoardProfile.h"
#include "Commands.h"
#include "InputShapeOption.h"
#include "ModelRunOptionsCli.h"
#include "PerfTable.h"
#include "RunOptionsCli.h"
#include "npuwb/SchemaWarmUp.h"
#include "npuwb/Profiler.h"
#include "npuwb/ModelRuntimes.h"
#include "npuwb/Npy.h"

namespace npuwb::cli {

namespace {
struct ProfileCliOptions {
    std::string model;
    RunOptions run;
    std::vector<std::string> inputFiles;   // NAME=FILE.npy, read into run.inputs
    std::vector<std::string> inputShapes;  // NAME=D1,D2,..., parsed into run.inputShapes
    std::string jsonPath;
    bool quiet = false;
    int top = 0;
    BoardCliOptions board;  // board.board.host set (--board HOST): run on the board through the agent
    ModelRunCliOptions compiled;  // compiled models only (.rknn)
};

std::string shapesText(const std::vector<std::vector<int64_t>>& shapes) {
    std::string s;
    for (const auto& sh : shapes) {
        if (!s.empty()) s += " ";
        s += shapeToString(sh);
    }
    return s;
}

void printTable(const Report& r, int top) {
    std::vector<const LayerRow*> rows;
    for (const auto& l : r.layers) rows.push_back(&l);
    if (top > 0) {
        std::sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->timeUs > b->timeUs; });
        if (rows.size() > static_cast<size_t>(top)) rows.resize(static_cast<size_t>(top));
    }
    std::printf("%-5s %-22s %-9s %-6s %-22s %-22s %10s %6s %10s %10s  %s\n", "ID", "OpType", "DataType", "Target",
                "InputShape", "OutputShape", "Time(us)", "%", "MACs", "RW(KB)", "FullName");
    for (const LayerRow* l : rows) {
        std::string in = l->inputShapes.empty() ? "" : shapeToString(l->inputShapes[0]);
        std::string out = shapesText(l->outputShapes);
        std::printf("%-5lld %-22s %-9s %-6s %-22s %-22s %10.1f %6.2f %10s %10.1f  %s\n", static_cast<long long>(l->id),
                    l->opType.c_str(), l->dataType.c_str(), l->target.c_str(), in.c_str(), out.c_str(), l->timeUs,
                    l->timePercent, humanCount(l->macs).c_str(), l->rwKB(), l->fullName.c_str());
    }
    double layerSum = 0;
    for (const auto& l : r.layers) layerSum += l.timeUs;
    std::printf("\nTotal: %zu layers, %.1f us per run (median of %lld runs after %lld warm-up; min %.1f us); "
                "layer sum %.1f us\n",
                r.layers.size(), r.run.medianUs, static_cast<long long>(r.run.runs), static_cast<long long>(r.run.warmup),
                r.run.minUs, layerSum);
    std::printf("MACs: %s   weights: %s   arena: %s (lower bound %s)   I/O: %s   peak RSS: %s\n",
                humanCount(r.model.macs).c_str(), humanBytes(r.memory.weightBytes).c_str(),
                humanBytes(r.memory.arenaBytes).c_str(), humanBytes(r.memory.lowerBoundBytes).c_str(),
                humanBytes(r.memory.ioBytes).c_str(), humanBytes(r.memory.peakRssBytes).c_str());
    if (r.run.sessionCreateUs > 0) std::printf("Session creation: %.1f ms\n", r.run.sessionCreateUs / 1e3);
    if (r.environment.backend == "reference") return;
    std::printf("Backend: %s, %lld threads; %zu node(s) fell back to the reference kernels%s\n",
                r.environment.backend.c_str(), static_cast<long long>(r.environment.threads), r.fallbacks.size(),
                r.fallbacks.empty() ? "" : ":");
    for (const auto& f : r.fallbacks)
        std::printf("  %-22s %-30s %s\n", f.opType.c_str(), f.node.c_str(), f.reason.c_str());
}

Report profileLocally(const ProfileCliOptions& o, RunOptions run) {
    // The environment before the session, as `require('onnxruntime-node')` readies ORT's before its create(): the
    // backend plugin loads (and ONNX's schemas finish building, see main) before the creation clock starts.
    run.executor = usableExecutor(run.executor);
    npuwb::onnxconv::awaitSchemaRegistry();
    const auto loadStart = std::chrono::steady_clock::now();
    auto model = loadModelForCommand(o.model);
    const double loadUs =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - loadStart).count();
    for (const auto& [name, file] : parseInputFileSpecs(o.inputFiles)) run.inputs[name] = readNpy(file);
    ProfileControl control;
    if (!o.quiet && isatty(STDERR_FILENO))  // a progress line only makes sense on a terminal
        control.progress = [](const std::string& phase, int done, int total) {
            std::fprintf(stderr, "\r%s %d/%d", phase.c_str(), done, total);
            if (phase == "run" && done == total) std::fprintf(stderr, "\n");
        };
    Report report = profileModel(model, run, control);
    report.run.sessionCreateUs += loadUs;  // like ORT's create(): reading the model is part of it
    return report;
}

/// A compiled model through its runtime plugin, here or on the board; the table in the vendor's perf columns.
void runCompiledProfile(const ProfileCliOptions& o, const std::string& runtime) {
    if (!o.inputShapes.empty())
        failInput(o.model + " is a compiled model: its input shapes are fixed, --input-shape does not apply");
    const ModelRunOptions options = modelRunOptionsFromCli(o.compiled, o.run, o.inputFiles);
    for (const auto& [name, file] : options.inputFiles)
        if (!std::filesystem::is_regular_file(file))
            failInput("--input " + name + ": file '" + file + "' does not exist");
    Report report;
    if (o.board.board.host.empty()) {
        report = runModelFile(runtime, o.model, options);
    } else {
        BoardCliOptions board = o.board;
        board.quiet = board.quiet || o.quiet;
        report = profileCompiledOnBoard(o.model, runtime, options, board);
    }
    if (!o.jsonPath.empty()) {
        saveReport(report, o.jsonPath);
        std::cerr << "report written to " << o.jsonPath << "\n";
    }
    char summary[256];
    std::snprintf(summary, sizeof summary, "Run time (%s, %s): median %.1f us, min %.1f us over %lld runs",
                  runtime.c_str(), report.environment.device.c_str(), report.run.medianUs, report.run.minUs,
                  static_cast<long long>(report.run.runs));
    printPerfDetailTable(report, {o.top, summary});
}

void runProfile(const ProfileCliOptions& o) {
    if (const std::string runtime = modelRuntimeForFile(o.model); !runtime.empty()) return runCompiledProfile(o, runtime);
    if (o.compiled.coreMask != coreMaskName(NpuCoreMask::Auto) || o.compiled.contexts != 0 || o.compiled.batch != 1)
        failInput("--core-mask, --contexts and --batch apply to compiled models (.rknn); " + o.model +
                  " runs on the engine's backends");
    RunOptions run = o.run;
    run.inputShapes = parseInputShapes(o.inputShapes);
    Report report;
    if (o.board.board.host.empty()) {
        report = profileLocally(o, std::move(run));
    } else {
        if (!o.inputFiles.empty()) failInput("--input files are not sent to a board; use --input-shape with --board");
        BoardCliOptions board = o.board;
        board.quiet = board.quiet || o.quiet;
        report = profileOnBoard(o.model, run, board);
    }
    if (!o.jsonPath.empty()) {
        saveReport(report, o.jsonPath);
        std::cerr << "report written to " << o.jsonPath << "\n";
    }
    printTable(report, o.top);
}
}  // namespace

static void addProfileCommand(CLI::App& app) {
    auto opts = std::make_shared<ProfileCliOptions>();
    CLI::App* cmd = app.add_subcommand("profile", "Run a model repeatedly and report per-layer time, MACs and memory");
    cmd->add_option("model", opts->model, "ONNX model file, or a compiled model (.rknn) for a runtime plugin")
        ->required();
    RunOptions& run = opts->run;
    cmd->add_option("--runs", run.runs, "timed runs")->capture_default_str()->check(CLI::Range(1, 100000));
    cmd->add_option("--warmup", run.warmup, "untimed warm-up runs")
        ->capture_default_str()
        ->check(CLI::Range(0, 100000));
    addExecutorOptions(cmd, run.executor, "the model runs");
    cmd->add_option("--json", opts->jsonPath, "write the report (schema: resources/schema/report.schema.json)");
    cmd->add_option("--input", opts->inputFiles, "NAME=FILE.npy (repeatable); other inputs are generated");
    addInputShapeOption(cmd, opts->inputShapes);  // shapes of generated inputs, e.g. x=1,3,480,480
    addSeedOption(cmd, run.seed);
    cmd->add_option("--top", opts->top, "show only the N slowest layers");
    cmd->add_flag("-q,--quiet", opts->quiet, "no progress on stderr");
    cmd->add_flag("--no-layer-times{false}", run.layerTimes,
                  "backends: time whole runs only (what per-layer timing costs: compare the medians)");
    cmd->add_option("--board", opts->board.board.host,
                    "run on this board over SSH ([user@]host[:port] or ssh config alias)");
    addBoardConnectionOptions(cmd, opts->board);
    addModelRunOptions(cmd, opts->compiled);
    cmd->callback([opts] { runProfile(*opts); });
}
NPUWB_CLI_COMMAND(addProfileCommand);

}  // namespace npuwb::cli
