// `npuwb-cli quantize MODEL --dataset LIST --scheme w8a8|w8a16|w4a16|fp16 --observer minmax|kl|mmse|percentile
//  [--per-tensor] [--no-prepare] [--group-size N] [--hybrid FILE | --auto-hybrid 0.99] -o OUT.onnx [--json REPORT] [--baseline]`
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "Commands.h"
#include "DatasetOption.h"
#include "RunOptionsCli.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Quantizer.h"
#include "npuwb/AtomicFile.h"

namespace npuwb::cli {

namespace {
struct QuantizeCliOptions {
    std::string model, dataset, preprocess, output, jsonPath, hybridFile, floatOutput;
    quant::QuantizeOptions quantize;
    bool quiet = false, baseline = false;
};

// uint8 | int8 (the engine names the other enums itself).
std::string_view activationTypeName(quant::ActivationType type) {
    return type == quant::ActivationType::Int8 ? "int8" : "uint8";
}
quant::ActivationType activationTypeFromName(std::string_view name) {
    if (name == "uint8") return quant::ActivationType::UInt8;
    if (name == "int8") return quant::ActivationType::Int8;
    failInput("--activations must be uint8 or int8, got '" + std::string(name) + "'");
}

nlohmann::json resultJson(const quant::QuantizeResult& r, const QuantizeCliOptions& o) {
    const quant::QuantizeOptions& q = o.quantize;
    nlohmann::json j = {{"model", o.model},
                        {"output", o.output},
                        {"scheme", quant::schemeName(q.scheme)},
                        {"observer", quant::observerName(q.observer)},
                        {"weightRounding", quant::weightRoundingName(q.weightRounding)},
                        {"samples", r.calibration.samples},
                        {"datasetHash", r.calibration.datasetHash},
                        {"calibrationSeconds", r.calibration.seconds},
                        {"backend", r.calibration.backend}};
    // What `convert-rknn --from-quantization` reuses for the vendor converter: the same data set and preprocessing.
    j["dataset"] = std::filesystem::absolute(o.dataset).lexically_normal().string();
    if (!o.preprocess.empty()) j["preprocess"] = std::filesystem::absolute(o.preprocess).lexically_normal().string();
    nlohmann::json ranges = nlohmann::json::object();
    for (const auto& [v, a] : r.calibration.ranges)
        ranges[v] = {{"observedMin", a.observedMin}, {"observedMax", a.observedMax}, {"min", a.min}, {"max", a.max}};
    j["ranges"] = ranges;
    nlohmann::json prec = nlohmann::json::object();
    for (const auto& [n, p] : r.precisions) prec[n] = std::string(quant::precisionName(p));
    j["precision"] = prec;
    j["prepare"] = nlohmann::json::parse(r.preparation.json());
    if (r.hybrid) {
        const auto& h = *r.hybrid;
        nlohmann::json layers = nlohmann::json::array();
        for (const auto& l : h.layers)
            layers.push_back({{"node", l.node}, {"opType", l.opType}, {"sensitivity", l.sensitivity},
                              {"extraCostUs", l.extraCostUs}, {"kept", l.kept}});
        auto outputsJson = [](const std::vector<AccuracyOutput>& rows) {
            nlohmann::json out = nlohmann::json::array();
            for (const auto& o : rows)
                out.push_back({{"name", o.name}, {"worstCosine", o.worstCosine}, {"worstCosineSample", o.worstCosineSample},
                               {"meanCosine", o.cosine}, {"snrDb", o.snrDb}, {"worstSnrDb", o.worstSnrDb},
                               {"worstSnrSample", o.worstSnrSample}});
            return out;
        };
        // cosineBefore/After: the worst output on the worst evaluated sample (what targetMet is decided on).
        j["autoHybrid"] = {{"targetCosine", h.targetCosine}, {"cosineBefore", h.cosineBefore},
                           {"cosineAfter", h.cosineAfter},   {"meanCosineBefore", h.meanCosineBefore},
                           {"meanCosineAfter", h.meanCosineAfter}, {"evalSamples", h.evalSamples},
                           {"outputsBefore", outputsJson(h.outputsBefore)},
                           {"outputsAfter", outputsJson(h.outputsAfter)}, {"targetMet", h.targetMet},
                           {"chip", h.chip},                 {"int8LatencyUs", h.int8LatencyUs},
                           {"hybridLatencyUs", h.hybridLatencyUs}, {"layers", layers}};
    }
    return j;
}

void runQuantize(const QuantizeCliOptions& o) {
    auto model = loadModelForCommand(o.model);
    quant::QuantizeOptions qo = o.quantize;
    qo.executor = usableExecutor(qo.executor);
    if (!o.hybridFile.empty()) qo.overrides = quant::loadPrecisionOverrides(o.hybridFile);
    auto samples = openDataset(o.dataset, *model, o.preprocess);
    quant::QuantizeControl control;
    if (!o.quiet && isatty(STDERR_FILENO))
        control.progress = [](const std::string& phase, size_t done, size_t total) {
            std::fprintf(stderr, "\r%s %zu/%zu   ", phase.c_str(), done, total);
        };
    quant::QuantizeResult r = quant::quantizeModel(*model, *samples, qo, control);
    if (control.progress) std::fprintf(stderr, "\n");
    saveModel(r.model, o.output);
    if (!o.floatOutput.empty()) saveModel(r.floatModel, o.floatOutput);
    std::printf("quantized %s -> %s: scheme %s, observer %s, weight rounding %s, %zu sample(s) in %.2f s on %s, %zu "
                "activation ranges\n",
                o.model.c_str(), o.output.c_str(), std::string(quant::schemeName(qo.scheme)).c_str(),
                std::string(quant::observerName(qo.observer)).c_str(),
                std::string(quant::weightRoundingName(qo.weightRounding)).c_str(),
                r.calibration.samples,
                r.calibration.seconds, r.calibration.backend.c_str(), r.calibration.ranges.size());
    for (const auto& note : r.notes) std::printf("note: %s\n", note.c_str());
    std::map<std::string, int> counts;
    for (const auto& [n, p] : r.precisions) ++counts[std::string(quant::precisionName(p))];
    std::printf("layers:");
    for (const auto& [p, c] : counts) std::printf(" %s %d", p.c_str(), c);
    std::printf("\n");
    if (auto kept = r.model.metadata.find("npuwb.quant.kept"); kept != r.model.metadata.end()) {
        // Layer norms, softmaxes and GELUs (node counts: decomposed forms have several) never get int8.
        std::map<std::string, std::map<std::string, int>> byKind;  // kind -> precision -> nodes
        const nlohmann::json keptMap = nlohmann::json::parse(kept->second);  // items() must not outlive it
        for (const auto& [node, kind] : keptMap.items())
            ++byKind[kind.get<std::string>()][r.precisions.count(node)
                                                  ? std::string(quant::precisionName(r.precisions.at(node)))
                                                  : "fp16"];
        std::printf("kept out of int8 (nodes):");
        for (const auto& [kind, byPrecision] : byKind)
            for (const auto& [p, c] : byPrecision) std::printf(" %s %d %s", kind.c_str(), c, p.c_str());
        std::printf("\n");
    }
    if (r.hybrid) {
        const auto& h = *r.hybrid;
        std::printf("auto-hybrid: target cosine %.4f for every output on each of %zu sample(s): worst before %.6f "
                    "(mean %.6f), after %.6f (mean %.6f) (%s); predicted latency on %s: %.1f us -> %.1f us\n",
                    h.targetCosine, h.evalSamples, h.cosineBefore, h.meanCosineBefore, h.cosineAfter,
                    h.meanCosineAfter, h.targetMet ? "met" : "NOT met", h.chip.c_str(), h.int8LatencyUs,
                    h.hybridLatencyUs);
        std::printf("%-30s %12s %12s %12s %12s %10s %10s  %s\n", "Output", "WorstBefore", "MeanBefore", "WorstAfter",
                    "MeanAfter", "SNRAfter", "WorstSNR", "Verdict");
        for (size_t i = 0; i < h.outputsAfter.size(); ++i) {
            const AccuracyOutput& a = h.outputsAfter[i];
            const AccuracyOutput* b = i < h.outputsBefore.size() ? &h.outputsBefore[i] : nullptr;
            std::printf("%-30s %12.6f %12.6f %12.6f %12.6f %9.1fdB %9.1fdB  %s (worst sample %lld)\n", a.name.c_str(),
                        b ? b->worstCosine : 0.0, b ? b->cosine : 0.0, a.worstCosine, a.cosine, a.snrDb, a.worstSnrDb,
                        a.worstCosine >= h.targetCosine ? "met" : "NOT met", static_cast<long long>(a.worstCosineSample));
        }
        std::printf("%-6s %-30s %-16s %12s %12s\n", "Kept", "Layer", "OpType", "Sensitivity", "ExtraCost(us)");
        for (const auto& l : h.layers)
            std::printf("%-6s %-30s %-16s %12.6f %12.1f\n", l.kept ? "yes" : "", l.node.c_str(), l.opType.c_str(),
                        l.sensitivity, l.extraCostUs);
    }
    nlohmann::json report = resultJson(r, o);
    if (o.baseline) {
        // The model calibration ran (fixed input shapes, opset 13), same samples, workers, backend and threads.
        const double seconds = quant::timeInference(r.floatModel, *samples, qo, control);
        if (control.progress) std::fprintf(stderr, "\n");
        std::printf("baseline: float inference of the same %zu sample(s) on %s: %.2f s; calibration / inference = "
                    "%.2fx\n",
                    r.calibration.samples, r.calibration.backend.c_str(), seconds, r.calibration.seconds / seconds);
        report["inferenceSeconds"] = seconds;
    }
    if (!o.jsonPath.empty()) {
        writeFileAtomically(o.jsonPath, report.dump(2) + "\n");
        std::cerr << "report written to " << o.jsonPath << "\n";
    }
}
}  // namespace

static void addQuantizeCommand(CLI::App& app) {
    auto o = std::make_shared<QuantizeCliOptions>();
    CLI::App* cmd = app.add_subcommand("quantize", "Calibrate on a data set and export a QDQ-quantized ONNX model");
    cmd->add_option("model", o->model, "float ONNX model")->required();
    cmd->add_option("--dataset", o->dataset, "dataset.txt (one sample per line, inputs separated by spaces) or image folder")
        ->required();
    cmd->add_option("--preprocess", o->preprocess, "per-input preprocessing JSON (images)");
    quant::QuantizeOptions& q = o->quantize;
    addNamedOption(cmd, "--scheme", q.scheme, quant::schemeFromName, quant::schemeName, "w8a8 | w8a16 | w4a16 | fp16");
    addNamedOption(cmd, "--observer", q.observer, quant::observerFromName, quant::observerName,
                   "minmax | kl | mmse | percentile");
    cmd->add_option("--percentile", q.percentile, "for --observer percentile")->capture_default_str();
    addNamedOption(cmd, "--weight-rounding", q.weightRounding, quant::weightRoundingFromName, quant::weightRoundingName,
                   "nearest | gptq (error feedback through each layer's input correlation; one more pass over "
                   "--rounding-samples samples)");
    cmd->add_option("--rounding-samples", q.roundingSamples, "samples gptq measures input correlations on")
        ->capture_default_str();
    addNamedOption(cmd, "--activations", q.activationType, activationTypeFromName, activationTypeName,
                   "uint8 (ONNX Runtime default) | int8");
    cmd->add_flag("--per-tensor{false}", q.perChannel, "one weight scale per tensor instead of per output channel");
    cmd->add_option("--float-output", o->floatOutput,
                    "also write the float model calibration ran (prepared, shapes fixed): the reference whose layer "
                    "names match the QDQ model's for `accuracy`");
    cmd->add_flag("--no-prepare{false}", q.prepare,
                  "skip the pre-quantization optimization (BatchNorm/affine folds, HardSwish fusion, opset upgrade)");
    cmd->add_option("--group-size", q.groupSize, "w4a16 weight group size (32..256)")->capture_default_str();
    auto hybrid = cmd->add_option("--hybrid", o->hybridFile, "per-layer precision file (JSON or 'LAYER PRECISION' lines)");
    cmd->add_option_function<double>(
           "--auto-hybrid", [&q](double cosine) {
               if (cosine > 0) q.autoHybridCosine = cosine;
           },
           "target output cosine; keeps sensitive layers in fp16 (0: off)")
        ->excludes(hybrid)
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--chip", q.chip,
                    "chip profile: layer norm, softmax and GELU run in fp16 where its NPU has them in float16, else "
                    "in float; auto-hybrid's cost ranking")
        ->capture_default_str();
    cmd->add_option("--max-samples", q.maxSamples, "use at most N samples (0: all)");
    addExecutorOptions(cmd, q.executor, "calibration and evaluation run");
    cmd->add_option("-o,--output", o->output, "output QDQ ONNX model")->required();
    cmd->add_option("--json", o->jsonPath, "write ranges, precisions and the auto-hybrid table as JSON");
    cmd->add_flag("-q,--quiet", o->quiet, "no progress on stderr");
    cmd->add_flag("--baseline", o->baseline,
                  "also time plain float inference of the same samples (same workers, backend, threads) and print "
                  "calibration time / inference time");
    cmd->callback([o] { runQuantize(*o); });
}
NPUWB_CLI_COMMAND(addQuantizeCommand);

}  // namespace npuwb::cli
