// `npuwb-cli accuracy FLOAT.onnx QUANT.onnx --dataset LIST [--json OUT] [--text OUT]`: per-layer float vs
// quantized comparison (entire and single), RKNN error_analysis.txt style, and the report schema's accuracy section.
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "Commands.h"
#include "DatasetOption.h"
#include "RunOptionsCli.h"
#include "npuwb/ModelSummary.h"
#include "npuwb/Accuracy.h"
#include "npuwb/Quantizer.h"
#include "npuwb/Report.h"
#include "npuwb/Profiler.h"
#include "npuwb/Session.h"
#include "npuwb/AtomicFile.h"

namespace npuwb::cli {

namespace {
struct AccuracyCliOptions {
    std::string floatModel, quantModel, dataset, preprocess, jsonPath, textPath;
    quant::AccuracyOptions accuracy;
    bool quiet = false;
};

void runAccuracy(const AccuracyCliOptions& o) {
    auto floatModel = loadModelForCommand(o.floatModel);
    auto quantModel = loadModelForCommand(o.quantModel);
    auto samples = openDataset(o.dataset, *floatModel, o.preprocess);
    quant::AccuracyOptions ao = o.accuracy;
    ao.executor = usableExecutor(ao.executor);
    quant::AccuracyControl control;
    if (!o.quiet && isatty(STDERR_FILENO))
        control.progress = [](size_t d, size_t t) { std::fprintf(stderr, "\rsample %zu/%zu", d, t); };
    std::vector<std::string> notes;
    // Calibration samples flatter a quantized model (its ranges were fitted to them): say so.
    if (auto cal = quantModel->metadata.find("npuwb.quant.dataset_hash");
        cal != quantModel->metadata.end() && !cal->second.empty() && cal->second == samples->contentHash())
        std::fprintf(stderr, "warning: %s is the data set %s was calibrated on; held-out samples measure it "
                             "honestly\n", o.dataset.c_str(), o.quantModel.c_str());
    const Model reference = quant::floatReferenceFor(*floatModel, *quantModel, *samples, ao.executor, notes);
    if (!o.quiet)
        for (const auto& n : notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    AccuracySection a = quant::analyzeAccuracy(reference, *quantModel, *samples, ao, control);
    if (control.progress) std::fprintf(stderr, "\n");
    a.floatModel = o.floatModel;
    a.quantModel = o.quantModel;
    const std::string text = quant::accuracyToText(a);
    std::fputs(text.c_str(), stdout);
    if (!o.textPath.empty()) writeFileAtomically(o.textPath, text);
    if (!o.jsonPath.empty()) {
        Report r;
        r.kind = "accuracy";
        r.createdAt = utcTimestamp();
        r.toolVersion = NPUWB_VERSION;
        r.model = summarizeModel(*floatModel);
        r.model.path = o.floatModel;
        r.environment = localEnvironment(ao.executor.threads > 0 ? ao.executor.threads : physicalCoreCount());
        r.environment.backend = ao.executor.backend;
        r.accuracy = std::move(a);
        saveReport(r, o.jsonPath);
        std::cerr << "report written to " << o.jsonPath << "\n";
    }
}
}  // namespace

static void addAccuracyCommand(CLI::App& app) {
    auto o = std::make_shared<AccuracyCliOptions>();
    CLI::App* cmd = app.add_subcommand("accuracy", "Per-layer accuracy of a quantized model against its float model");
    cmd->add_option("float", o->floatModel, "float ONNX model")->required();
    cmd->add_option("quantized", o->quantModel, "QDQ ONNX model (from `quantize`)")->required();
    cmd->add_option("--dataset", o->dataset, "dataset.txt or image folder")->required();
    cmd->add_option("--preprocess", o->preprocess, "per-input preprocessing JSON (images)");
    cmd->add_option("--max-samples", o->accuracy.maxSamples, "use at most N samples (0: all)");
    cmd->add_flag("--no-single{false}", o->accuracy.single, "skip the single-layer comparison");
    cmd->add_option("--snr-threshold", o->accuracy.snrThresholdDb,
                    "flag layers whose own SNR (dB, single run; entire with --no-single) is below this")
        ->capture_default_str();
    addExecutorOptions(cmd, o->accuracy.executor, "the two whole models run");
    cmd->add_option("--json", o->jsonPath, "report with the accuracy section (resources/schema/report.schema.json)");
    cmd->add_option("--text", o->textPath, "error_analysis.txt-style table");
    cmd->add_flag("-q,--quiet", o->quiet, "no progress on stderr");
    cmd->callback([o] { runAccuracy(*o); });
}
NPUWB_CLI_COMMAND(addAccuracyCommand);

}  // namespace npuwb::cli
