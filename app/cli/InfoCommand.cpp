// `npuwb-cli info MODEL [--input-shape NAME=dims] [--json OUT]`: inputs/outputs, op histogram, parameters, MACs.
#include <iostream>
#include <nlohmann/json.hpp>

#include "Commands.h"
#include "InputShapeOption.h"
#include "npuwb/Error.h"
#include "npuwb/ModelSummary.h"
#include "npuwb/AtomicFile.h"

namespace npuwb::cli {

namespace {
struct InfoOptions {
    std::string model;
    std::string jsonPath;
    std::vector<std::string> inputShapes;
};

std::string shapeText(const TensorDesc& t) {
    std::string s = "[";
    for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? "," : "") + t.shape[i];
    return s + "]";
}

/// MACs need every layer's shapes. What ONNX's inference recorded is used as is; where it stops (shapes that come
/// from Shape/Gather chains, Resize sizes computed in the graph) the shapes are learned, with one reference run as
/// the last resort. Inputs with symbolic dims are not guessed at: their MACs stay unknown until shapes are given.
ModelSummary summaryWithShapes(const Model& model) {
    ModelSummary s = summarizeModel(model);
    if (s.uncountedNodes.empty() || !inputsWithSymbolicDims(model).empty()) return s;
    try {
        return summarizeModel(model, learnShapes(model));
    } catch (const Error& e) {
        std::cerr << "warning: " << s.uncountedNodes.size() << " node(s) not counted in MACs: their shapes need a run, "
                  << "which failed: " << e.what() << "\n";
        return s;
    }
}

std::string macsText(const ModelSummary& s) {
    bool symbolic = false;
    for (const auto& t : s.inputs)
        for (const auto& d : t.shape) symbolic = symbolic || d.empty() || d.find_first_not_of("0123456789") != d.npos;
    if (macsUnknown(s) && symbolic) return "unknown (symbolic input dims: `info --input-shape NAME=D1,...` counts them)";
    std::string text = s.macs == 0 && !s.uncountedNodes.empty() ? std::string("unknown")
                                                                 : std::to_string(s.macs) + " (" + humanCount(s.macs) + ")";
    if (s.shapesSource == "reference run") text += ", shapes from one reference run";
    if (!s.uncountedNodes.empty())
        text += "; " + std::to_string(s.uncountedNodes.size()) +
                " node(s) not counted (shapes unknown, or MAC ops inside If/Loop/Scan bodies), first: " +
                s.uncountedNodes.front();
    return text;
}

void runInfo(const InfoOptions& o) {
    auto model =
        o.inputShapes.empty() ? loadModelForCommand(o.model) : loadModelWithInputShapes(o.model, o.inputShapes);
    ModelSummary s = summaryWithShapes(*model);
    if (!o.jsonPath.empty()) {
        Report r;
        r.kind = "info";
        r.toolVersion = NPUWB_VERSION;
        r.createdAt = utcTimestamp();
        r.model = s;
        saveReport(r, o.jsonPath);
    }
    std::cout << "model:      " << s.path << "\n"
              << "producer:   " << s.producer << " (IR " << s.irVersion << ", opset " << s.opset << ")\n"
              << "nodes:      " << s.nodeCount << "\n"
              << "parameters: " << s.parameterCount << " (" << humanBytes(s.weightBytes) << ")\n"
              << "MACs:       " << macsText(s) << "\n";
    std::cout << "inputs:\n";
    for (const auto& t : s.inputs) std::cout << "  " << t.name << "  " << t.dataType << " " << shapeText(t) << "\n";
    std::cout << "outputs:\n";
    for (const auto& t : s.outputs) std::cout << "  " << t.name << "  " << t.dataType << " " << shapeText(t) << "\n";
    std::cout << "operators:\n";
    std::vector<std::pair<std::string, int64_t>> ops(s.opHistogram.begin(), s.opHistogram.end());
    std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (const auto& [op, n] : ops) std::cout << "  " << op << ": " << n << "\n";
}
}  // namespace

static void addInfoCommand(CLI::App& app) {
    auto opts = std::make_shared<InfoOptions>();
    CLI::App* cmd = app.add_subcommand("info", "Show a model's inputs, outputs, operators, parameters and MACs");
    cmd->add_option("model", opts->model, "ONNX model file")->required();
    cmd->add_option("--json", opts->jsonPath, "also write the summary as a JSON report");
    addInputShapeOption(cmd, opts->inputShapes);
    cmd->callback([opts] { runInfo(*opts); });
}
NPUWB_CLI_COMMAND(addInfoCommand);

}  // namespace npuwb::cli
