// `npuwb-cli optimize MODEL -o OUT.onnx [--passes a,b] [--target CHIP] [--align N] [--json REPORT]`: runs the graph
// passes to a fixed point, proves every rewrite numerically and writes the optimized model atomically. The proofs run
// on the fastest backend (differentially tested against the reference kernels) unless --backend says otherwise.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "Commands.h"
#include "InputShapeOption.h"
#include "RunOptionsCli.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Optimizer.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"
#include "npuwb/Npy.h"
#include "npuwb/VendorGuide.h"

namespace npuwb::cli {

namespace {
struct OptimizeCliOptions {
    std::string model, out, jsonPath, target;
    std::vector<std::string> calibration, inputShapes;
    passes::OptimizerOptions optimizer;  // passes, proof tolerance, random sets, executor, channel alignment
    bool listPasses = false, quiet = false;
};

nlohmann::json proofJson(const passes::Proof& p) {
    return {{"passed", p.passed}, {"maxAbsDiff", p.maxAbsDiff}, {"maxRelDiff", p.maxRelDiff},
            {"referenceMaxAbs", p.refMaxAbs}, {"inputSets", p.inputSets}, {"failure", p.failure}};
}

nlohmann::json applicationJson(const passes::Application& a) {
    return {{"pass", a.pass}, {"guideSection", a.guideSection}, {"nodes", a.match.nodes},
            {"explanation", a.match.explanation}, {"batchSize", a.batchSize}, {"proof", proofJson(a.proof)},
            {"error", a.error}};
}

/// The chip profile's conv output channel alignment for int8, the usual deployment type (resources/chips/*.json).
int64_t alignFromChip(const std::string& target) {
    int64_t align = findChipProfile(target).rates("int8").convOutputChannelAlign;
    if (align <= 1) failInput("chip profile '" + target + "' gives no channel alignment; pass --align N");
    return align;
}

void listPasses() {
    for (const auto& p : passes::listPasses())
        std::printf("%-26s %-8s %s%s\n", p.name.c_str(), p.guideSection.empty() ? "-" : p.guideSection.c_str(),
                    p.description.c_str(), p.runsByDefault ? "" : " [optional]");
}

void runOptimize(const OptimizeCliOptions& o) {
    if (o.listPasses) return listPasses();
    if (o.model.empty() || o.out.empty()) failInput("optimize needs MODEL and -o OUT.onnx (or --list-passes)");
    auto model = loadModelForCommand(o.model);
    passes::OptimizerOptions opts = o.optimizer;
    opts.proof.executor = usableExecutor(opts.proof.executor);
    if (opts.config.channelAlign == 0 && !o.target.empty() &&
        std::find(opts.passes.begin(), opts.passes.end(), "pad_channels") != opts.passes.end())
        opts.config.channelAlign = alignFromChip(o.target);
    opts.proof.inputShapes = parseInputShapeSpecs(o.inputShapes);
    for (const auto& set : o.calibration) {  // NAME=a.npy[;NAME2=b.npy]: one input set per option
        std::map<std::string, Tensor> feeds;
        std::stringstream ss(set);
        for (std::string item; std::getline(ss, item, ';');) {
            auto eq = item.find('=');
            if (eq == std::string::npos || eq == 0) failInput("--calibration '" + set + "' must be NAME=FILE.npy[;...]");
            feeds[item.substr(0, eq)] = readNpy(item.substr(eq + 1));
        }
        opts.proof.calibrationSets.push_back(feeds);
    }
    if (!o.quiet) opts.log = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    passes::OptimizeResult r = passes::optimize(*model, opts);
    saveModel(r.model, o.out);

    std::printf("%-26s %-8s %-6s %12s  %s\n", "Pass", "Guide", "Count", "MaxAbsDiff", "Example");
    std::map<std::string, std::vector<const passes::Application*>> byPass;
    for (const auto& a : r.applied) byPass[a.pass].push_back(&a);
    for (const auto& [name, apps] : byPass) {
        double worst = 0;
        for (auto* a : apps) worst = std::max(worst, a->proof.maxAbsDiff);
        std::printf("%-26s %-8s %-6zu %12.3g  %s\n", name.c_str(), apps[0]->guideSection.c_str(), apps.size(), worst,
                    apps[0]->match.explanation.c_str());
    }
    for (const auto& a : r.rolledBack) std::fprintf(stderr, "error: %s\n", a.error.c_str());
    // Near misses grouped by pass and reason (the JSON report lists every one).
    std::map<std::pair<std::string, std::string>, std::vector<const passes::NearMiss*>> misses;
    for (const auto& n : r.nearMisses) misses[{n.pass, n.match.nearMissReason}].push_back(&n);
    for (const auto& [key, list] : misses)
        std::printf("near miss  %-22s x%-3zu %s  (e.g. at '%s')\n", key.first.c_str(), list.size(), key.second.c_str(),
                    list[0]->match.nodes.front().c_str());
    std::printf("nodes %zu -> %zu; end-to-end max abs diff %.3g (rel %.3g) over %d input set(s) on %s: %s\n",
                r.nodesBefore, r.nodesAfter, r.endToEnd.maxAbsDiff, r.endToEnd.maxRelDiff, r.endToEnd.inputSets,
                opts.proof.executor.backend.c_str(), r.endToEnd.passed ? "equivalent within tolerance" : r.endToEnd.failure.c_str());
    std::printf("written to %s\n", o.out.c_str());

    if (!o.jsonPath.empty()) {
        nlohmann::json j{{"model", o.model}, {"output", o.out}, {"target", o.target},
                         {"tolerance", opts.proof.tolerance},
                         {"nodesBefore", r.nodesBefore}, {"nodesAfter", r.nodesAfter}, {"opsBefore", r.opsBefore},
                         {"opsAfter", r.opsAfter}, {"rounds", r.rounds}, {"endToEnd", proofJson(r.endToEnd)},
                         {"proofBackend", opts.proof.executor.backend}};
        j["applied"] = nlohmann::json::array();
        for (const auto& a : r.applied) j["applied"].push_back(applicationJson(a));
        j["rolledBack"] = nlohmann::json::array();
        for (const auto& a : r.rolledBack) j["rolledBack"].push_back(applicationJson(a));
        j["nearMisses"] = nlohmann::json::array();
        for (const auto& n : r.nearMisses)
            j["nearMisses"].push_back({{"pass", n.pass}, {"nodes", n.match.nodes}, {"explanation", n.match.explanation},
                                       {"reason", n.match.nearMissReason}});
        writeFileAtomically(o.jsonPath, j.dump(2) + "\n");
    }
    if (!r.endToEnd.passed) fail(ErrorKind::Internal, "the optimized model differs from the original: " + r.endToEnd.failure);
}
}  // namespace

static void addOptimizeCommand(CLI::App& app) {
    auto o = std::make_shared<OptimizeCliOptions>();
    CLI::App* cmd = app.add_subcommand("optimize", "Apply graph optimization passes, each proven numerically");
    cmd->add_option("model", o->model, "ONNX model file");
    cmd->add_option("-o,--output", o->out, "optimized ONNX model to write");
    passes::OptimizerOptions& opts = o->optimizer;
    cmd->add_option("--passes", opts.passes, "comma-separated pass names (default: all default passes)")
        ->delimiter(',');
    cmd->add_option("--target", o->target, "chip name or profile JSON (for --passes pad_channels without --align)");
    cmd->add_option("--align", opts.config.channelAlign, "channel alignment for pad_channels, e.g. 16 or 32")
        ->check(CLI::Range(0, 1024));
    cmd->add_option("--json", o->jsonPath, "write what changed and the proofs as JSON");
    cmd->add_option("--tolerance", opts.proof.tolerance, "max abs difference allowed, times max(1, max|reference|)")
        ->capture_default_str();
    cmd->add_option("--random-sets", opts.proof.randomInputSets, "seeded random input sets per proof")
        ->capture_default_str()
        ->check(CLI::Range(1, 100));
    addSeedOption(cmd, opts.proof.seed);
    cmd->add_option("--calibration", o->calibration, "an input set NAME=FILE.npy[;NAME2=FILE2.npy] (repeatable)");
    addInputShapeOption(cmd, o->inputShapes);
    addExecutorOptions(cmd, opts.proof.executor, "the proofs run");
    cmd->add_flag("--list-passes", o->listPasses,
                  std::string("list the registered passes (name, section of the ") + kVendorGuide +
                      " it follows, description) and exit");
    cmd->add_flag("-q,--quiet", o->quiet, "no progress on stderr");
    cmd->callback([o] { runOptimize(*o); });
}
NPUWB_CLI_COMMAND(addOptimizeCommand);

}  // namespace npuwb::cli
