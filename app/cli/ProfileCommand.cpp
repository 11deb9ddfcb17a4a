// `npuwb-cli profile MODEL --runs N --warmup K --threads T [--json OUT]`: per-layer timing table and totals.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "BackendOption.h"
#include "BoardProfile.h"
#include "Commands.h"
#include "InputShapeOption.h"
#include "npuwb/SchemaWarmUp.h"
#include "npuwb/Profiler.h"
#include "npuwb/Npy.h"

namespace npuwb::cli {

namespace {
struct ProfileCliOptions {
    std::string model;
    int runs = 10;
    int warmup = 2;
    int threads = 0;
    std::string backend = "reference";
    std::string jsonPath;
    std::vector<std::string> inputs;
    std::vector<std::string> inputShapes;  // NAME=D1,D2,...
    bool quiet = false;
    bool noLayerTimes = false;
    int top = 0;
    std::string board;  // --board HOST: run on the board through the agent
    BoardCliOptions boardConnection;
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

Report profileLocally(const ProfileCliOptions& o) {
    ProfileOptions po;
    // The environment before the session, as `require('onnxruntime-node')` readies ORT's before its create(): the
    // backend plugin loads (and ONNX's schemas finish building, see main) before the creation clock starts.
    po.backend = usableBackend(o.backend);
    npuwb::onnxconv::awaitSchemaRegistry();
    const auto loadStart = std::chrono::steady_clock::now();
    auto model = loadModelForCommand(o.model);
    const double loadUs =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - loadStart).count();
    po.inputShapes = parseInputShapes(o.inputShapes);
    po.runs = o.runs;
    po.warmup = o.warmup;
    po.threads = o.threads;
    po.layerTimes = !o.noLayerTimes;
    for (const auto& spec : o.inputs) {
        auto eq = spec.find('=');
        if (eq == std::string::npos || eq == 0) failInput("--input '" + spec + "' must be NAME=FILE.npy");
        po.inputs[spec.substr(0, eq)] = readNpy(spec.substr(eq + 1));
    }
    ProfileControl control;
    if (!o.quiet && isatty(STDERR_FILENO))  // a progress line only makes sense on a terminal
        control.progress = [](const std::string& phase, int done, int total) {
            std::fprintf(stderr, "\r%s %d/%d", phase.c_str(), done, total);
            if (phase == "run" && done == total) std::fprintf(stderr, "\n");
        };
    Report report = profileModel(model, po, control);
    report.run.sessionCreateUs += loadUs;  // like ORT's create(): reading the model is part of it
    return report;
}

void runProfile(const ProfileCliOptions& o) {
    Report report;
    if (o.board.empty()) {
        report = profileLocally(o);
    } else {
        if (!o.inputs.empty()) failInput("--input files are not sent to a board; use --input-shape with --board");
        report = profileOnBoard({o.board, o.model, o.runs, o.warmup, o.threads, o.backend,
                                 parseInputShapes(o.inputShapes), o.quiet},
                                o.boardConnection);
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
    cmd->add_option("model", opts->model, "ONNX model file")->required();
    cmd->add_option("--runs", opts->runs, "timed runs")->capture_default_str()->check(CLI::Range(1, 100000));
    cmd->add_option("--warmup", opts->warmup, "untimed warm-up runs")->capture_default_str()->check(CLI::Range(0, 100000));
    addBackendOptions(cmd, opts->backend, opts->threads);
    cmd->add_option("--json", opts->jsonPath, "write the report (schema: resources/schema/report.schema.json)");
    cmd->add_option("--input", opts->inputs, "NAME=FILE.npy (repeatable); other inputs are generated");
    addInputShapeOption(cmd, opts->inputShapes);  // shapes of generated inputs, e.g. x=1,3,480,480
    cmd->add_option("--top", opts->top, "show only the N slowest layers");
    cmd->add_flag("-q,--quiet", opts->quiet, "no progress on stderr");
    cmd->add_flag("--no-layer-times", opts->noLayerTimes,
                  "backends: time whole runs only (what per-layer timing costs: compare the medians)");
    cmd->add_option("--board", opts->board, "run on this board over SSH ([user@]host[:port] or ssh config alias)");
    addBoardConnectionOptions(cmd, opts->boardConnection);
    cmd->callback([opts] { runProfile(*opts); });
}
NPUWB_CLI_COMMAND(addProfileCommand);

}  // namespace npuwb::cli
