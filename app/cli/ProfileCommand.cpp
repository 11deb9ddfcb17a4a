// `npuwb-cli profile MODEL [--runs N] [--warmup K] [--backend B] [--json OUT]`: per-layer timing table and totals,
// locally or on a board (--board HOST). A compiled model a runtime plugin claims (MODEL.rknn) runs through that
// runtime with the flags of ModelRunOptionsCli.h (ProfileRuntimeModel.h); `run-rknn` is an alias of `profile`.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "BoardProfile.h"
#include "Commands.h"
#include "InputShapeOption.h"
#include "PerfTable.h"
#include "ProfileRuntimeModel.h"
#include "RunOptionsCli.h"
#include "npuwb/ModelRuntimes.h"
#include "npuwb/SchemaWarmUp.h"
#include "npuwb/Profiler.h"
#include "npuwb/RunSpread.h"
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
    ModelRunCliFlags runtimeFlags;  // .rknn (runtime plugin) runs
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
    const std::map<std::string, const LayerRow*> byName = rowsByName(r);
    std::vector<const LayerRow*> rows = layerRowsOf(r);
    const size_t layerRows = rows.size(), folded = r.layers.size() - rows.size();
    if (top > 0) {
        std::sort(rows.begin(), rows.end(), [](auto* a, auto* b) { return a->timeUs > b->timeUs; });
        if (rows.size() > static_cast<size_t>(top)) rows.resize(static_cast<size_t>(top));
    }
    std::printf("%-5s %-22s %-9s %-6s %-22s %-22s %10s %6s %10s %10s  %s\n", "ID", "OpType", "DataType", "Target",
                "InputShape", "OutputShape", "Time(us)", "%", "MACs", "RW(KB)", "FullName");
    for (const LayerRow* l : rows) {
        std::string in = l->inputShapes.empty() ? "" : shapeToString(l->inputShapes[0]);
        std::string out = shapesText(fusedOutputShapes(*l, byName));
        std::printf("%-5lld %-22s %-9s %-6s %-22s %-22s %10.1f %6.2f %10s %10.1f  %s\n", static_cast<long long>(l->id),
                    fusedOpType(*l, byName).c_str(), l->dataType.c_str(), l->target.c_str(), in.c_str(), out.c_str(),
                    l->timeUs, l->timePercent, humanCount(fusedMacs(*l, byName)).c_str(), l->rwKB(),
                    l->fullName.c_str());
    }
    double layerSum = 0;
    for (const auto& l : r.layers) layerSum += l.timeUs;
    printLayerNotes(r, folded);
    std::printf("\nTotal: %zu layers, %.1f us per run (median of %lld runs after %lld warm-up; min %.1f us); "
                "layer sum %.1f us\n",
                layerRows, r.run.medianUs, static_cast<long long>(r.run.runs), static_cast<long long>(r.run.warmup),
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
    for (const auto& spec : o.inputFiles) {
        auto eq = spec.find('=');
        if (eq == std::string::npos || eq == 0) failInput("--input '" + spec + "' must be NAME=FILE.npy");
        run.inputs[spec.substr(0, eq)] = readNpy(spec.substr(eq + 1));
    }
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

/// A model file a runtime plugin claims (MODEL.rknn): run through it, here or (--board) by the board's agent.
bool profileWithRuntime(const ProfileCliOptions& o) {
    const std::string runtime = modelRuntimeForFile(o.model);
    if (runtime.empty()) {  // ONNX: several contexts on the engine's backends when the flags ask for them
        const ModelRunCliFlags defaults;
        if (o.runtimeFlags.chip != defaults.chip)
            failInput("--chip applies to compiled models (.rknn); " + o.model + " runs on the engine's backends");
        if (o.runtimeFlags.coreMask == defaults.coreMask && o.runtimeFlags.contexts == defaults.contexts &&
            o.runtimeFlags.batch == defaults.batch)
            return false;
        if (!o.board.board.host.empty())
            failInput("--contexts, --batch and --core-mask run ONNX models on this computer's CPU; drop --board (on a "
                      "board, compile the model to .rknn and profile that)");
        if (!o.inputShapes.empty())
            failInput("--input-shape does not apply with --contexts/--batch: each slice runs the model's declared "
                      "shape (symbolic dims 1); give --input NAME=FILE.npy for other shapes");
    } else if (!o.inputShapes.empty()) {
        failInput(o.model + ": --input-shape does not apply to a compiled model (its runtime reports the shapes)");
    }
    RuntimeProfileRequest request;
    request.model = o.model;
    request.runtime = runtime;
    request.flags = o.runtimeFlags;
    request.common = o.run;
    request.inputSpecs = o.inputFiles;
    request.jsonPath = o.jsonPath;
    request.top = o.top;
    request.board = o.board;
    request.board.quiet = request.board.quiet || o.quiet;
    profileRuntimeModel(request);
    return true;
}

void runProfile(const ProfileCliOptions& o) {
    if (profileWithRuntime(o)) return;
    RunOptions run = o.run;
    run.inputShapes = parseInputShapeSpecs(o.inputShapes);
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
    if (const std::string busy = busyMachineWarning(report); !busy.empty()) std::cerr << "warning: " << busy << "\n";
}
}  // namespace

static void addProfileCommand(CLI::App& app) {
    auto opts = std::make_shared<ProfileCliOptions>();
    CLI::App* cmd = app.add_subcommand("profile", "Run a model repeatedly and report per-layer time, MACs and memory "
                                                  "(ONNX on the CPU backends; .rknn through Rockchip's NPU runtime)");
    cmd->alias("run-rknn");  // the former .rknn-only command
    cmd->add_option("model", opts->model, "ONNX model file, or a compiled model a runtime plugin runs (.rknn)")
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
                  "backends: time whole runs only (what per-layer timing costs: compare the medians); .rknn: no "
                  "per-layer perf pass");
    cmd->add_option("--board", opts->board.board.host,
                    "run on this board over SSH ([user@]host[:port] or ssh config alias)");
    addBoardConnectionOptions(cmd, opts->board);
    addModelRunOptions(cmd, opts->runtimeFlags);
    cmd->callback([opts] { runProfile(*opts); });
}
NPUWB_CLI_COMMAND(addProfileCommand);

}  // namespace npuwb::cli
