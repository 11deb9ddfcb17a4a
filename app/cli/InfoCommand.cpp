// `npuwb-cli info MODEL [--json OUT]`: inputs/outputs, op histogram, parameters, MACs.
#include <iostream>
#include <nlohmann/json.hpp>

#include "Commands.h"
#include "npuwb/ModelSummary.h"
#include "npuwb/AtomicFile.h"

namespace npuwb::cli {

namespace {
struct InfoOptions {
    std::string model;
    std::string jsonPath;
};

std::string shapeText(const TensorDesc& t) {
    std::string s = "[";
    for (size_t i = 0; i < t.shape.size(); ++i) s += (i ? "," : "") + t.shape[i];
    return s + "]";
}

void runInfo(const InfoOptions& o) {
    auto model = loadModelForCommand(o.model);
    ModelSummary s = summarizeModel(*model);
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
              << "MACs:       "
              << (macsUnknown(s)
                      ? std::string("unknown (symbolic input dims: `profile --input-shape NAME=D1,...` counts them)")
                      : std::to_string(s.macs) + " (" + humanCount(s.macs) + ")")
              << "\n";
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
    cmd->callback([opts] { runInfo(*opts); });
}
NPUWB_CLI_COMMAND(addInfoCommand);

}  // namespace npuwb::cli
