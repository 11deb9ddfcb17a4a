// npuwb-compare-ort: runs real models through the engine and through ONNX Runtime on the same seeded inputs
// and prints model, output, max abs diff and relative L2 (||a-b||_2/||b||_2). Exit 1 when any model exceeds
// the tolerance or cannot run, so CTest fails.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "Bisect.h"
#include "Metrics.h"
#include "ModelCase.h"
#include "OrtProcess.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Session.h"
#include "npuwb/Npy.h"

namespace fs = std::filesystem;
using namespace npuwb;
using namespace npuwb::realmodels;

namespace {

struct Options {
    std::string manifest, modelsDir, workDir = "realmodels-work";
    std::vector<std::string> only;
    double tolerance = -1;  // < 0: the manifest's
    uint64_t seed = 20240601;
    bool bisect = false;
    ExecutorOptions executor{.backend = kReferenceBackend, .threads = 2};  // the engine's side: the oracle by default
    OrtOptions ort;
};

std::string sci(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3e", v);
    return buf;
}

double msSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void row(const std::string& model, const std::string& output, const std::string& shape, const std::string& maxAbs,
         const std::string& relL2, const std::string& times, const std::string& verdict) {
    std::printf("| %-20s | %-18s | %-16s | %-10s | %-10s | %-15s | %s\n", model.c_str(), output.c_str(), shape.c_str(),
                maxAbs.c_str(), relL2.c_str(), times.c_str(), verdict.c_str());
    std::fflush(stdout);
}

/// Runs one model both ways; returns true when every output is within tolerance.
bool checkModel(const ModelCase& c, const Options& opt, double tolerance) {
    std::string path = opt.modelsDir + "/" + c.file;
    if (!fs::exists(path)) {
        row(c.name, "-", "-", "-", "-", "-", "FAIL: " + path + " missing (run scripts/fetch-models.sh)");
        return false;
    }
    std::string work = opt.workDir + "/" + c.name;
    fs::create_directories(work);
    std::shared_ptr<const Model> model;
    std::map<std::string, Tensor> inputs;
    std::map<std::string, std::string> inputFiles;
    std::map<std::string, Tensor> actual, expected;
    double engineMs = 0, ortMs = 0;
    try {
        model = std::make_shared<const Model>(loadModel(path));
        Session session(model, SessionOptions{.executor = opt.executor});
        inputs = makeInputs(c, session.inputs(), opt.seed);
        int index = 0;
        for (const auto& [name, tensor] : inputs) {
            inputFiles[name] = work + "/in" + std::to_string(index++) + ".npy";
            writeNpy(inputFiles[name], tensor);
        }
        auto start = std::chrono::steady_clock::now();
        actual = session.runTensors(inputs);
        engineMs = msSince(start);
        if (opt.executor.backend != kReferenceBackend)
            std::printf("engine on %s, %d threads: %zu node(s) fell back to the reference kernels\n",
                        session.backendName().c_str(), opt.executor.threads, session.fallbacks().size());
    } catch (const std::exception& e) {
        row(c.name, "-", "-", "-", "-", "-", std::string("FAIL: engine: ") + e.what());
        if (opt.bisect && opt.executor.backend == kReferenceBackend && model && !inputFiles.empty())
            bisectAgainstOrt(model, inputs, inputFiles, opt.ort, work, tolerance);
        return false;
    }
    std::vector<std::string> order;
    try {
        auto start = std::chrono::steady_clock::now();
        expected = runOrt(opt.ort, path, inputFiles, work + "/ort", &order);
        ortMs = msSince(start);
    } catch (const std::exception& e) {
        row(c.name, "-", "-", "-", "-", "-", std::string("FAIL: ORT: ") + e.what());
        return false;
    }
    char times[48];
    std::snprintf(times, sizeof times, "%.0f / %.0f", engineMs, ortMs);
    bool ok = true;
    for (const auto& name : order) {
        auto it = actual.find(name);
        if (it == actual.end()) {
            row(c.name, name, "-", "-", "-", times, "FAIL: engine did not produce this output");
            ok = false;
            continue;
        }
        Diff d = compareTensors(it->second, expected[name]);
        bool pass = d.problem.empty() && d.relL2 <= tolerance;
        ok = ok && pass;
        row(c.name, name, shapeToString(expected[name].shape()), sci(d.maxAbs), sci(d.relL2), times,
            pass ? "PASS" : "FAIL" + (d.problem.empty() ? std::string() : ": " + d.problem));
    }
    if (!ok && opt.bisect && opt.executor.backend == kReferenceBackend)
        bisectAgainstOrt(model, inputs, inputFiles, opt.ort, work, tolerance);
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Compares real models between the engine (reference kernels or a fast backend) and ONNX Runtime"};
    Options opt;
    app.add_option("--manifest", opt.manifest, "models.json")->required()->check(CLI::ExistingFile);
    app.add_option("--models-dir", opt.modelsDir, "folder filled by scripts/fetch-models.sh")->required();
    app.add_option("--ort-script", opt.ort.script, "tests/tools/ort_run.mjs")->required()->check(CLI::ExistingFile);
    app.add_option("--node", opt.ort.node, "node executable");
    app.add_option("--ort-opt-level", opt.ort.optLevel, "ORT graph optimization level (disabled|basic|extended|all)");
    app.add_option("--work-dir", opt.workDir, "scratch folder for .npy exchange files");
    app.add_option("--only", opt.only, "check just these models (by name)");
    app.add_option("--tolerance", opt.tolerance, "relative L2 limit (default: the manifest's)");
    app.add_option("--seed", opt.seed, "seed for the random inputs");
    app.add_flag("--bisect", opt.bisect, "on failure, find the first node that diverges from ORT (reference only)");
    app.add_option("--backend", opt.executor.backend, "engine backend: reference, cpu-onednn, cpu-xnnpack, auto")
        ->capture_default_str();
    app.add_option("--threads", opt.executor.threads, "engine threads for a fast backend")->check(CLI::Range(1, 1024));
    CLI11_PARSE(app, argc, argv);

    try {
        Manifest manifest = readManifest(opt.manifest);
        double tolerance = opt.tolerance >= 0 ? opt.tolerance : manifest.tolerance;
        int passed = 0, failed = 0;
        for (const auto& name : opt.only) {
            bool known = false;
            for (const auto& c : manifest.models) known = known || c.name == name;
            if (!known) throw std::runtime_error("--only " + name + ": not in " + opt.manifest);
        }
        std::printf("tolerance: relative L2 <= %s; times: engine / ORT ms\n", sci(tolerance).c_str());
        row("model", "output", "shape", "max abs", "rel L2", "time ms", "result");
        for (const auto& c : manifest.models) {
            if (!opt.only.empty() && std::find(opt.only.begin(), opt.only.end(), c.name) == opt.only.end()) continue;
            (checkModel(c, opt, tolerance) ? passed : failed)++;
        }
        std::printf("%d passed, %d failed\n", passed, failed);
        return failed == 0 && passed > 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "npuwb-compare-ort: %s\n", e.what());
        return 1;
    }
}
