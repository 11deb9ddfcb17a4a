// `npuwb-cli run MODEL --input NAME=FILE.npy ... --output-dir D`: one inference, outputs saved as .npy.
#include <filesystem>
#include <iostream>

#include "Commands.h"
#include "InputShapeOption.h"
#include "RunOptionsCli.h"
#include "npuwb/Profiler.h"
#include "npuwb/Session.h"
#include "npuwb/Npy.h"

namespace npuwb::cli {

namespace {
struct RunCliOptions {
    std::string model;
    std::vector<std::string> inputFiles;   // NAME=FILE.npy
    std::vector<std::string> inputShapes;  // NAME=D1,D2,... for generated inputs
    std::string outputDir;
    RunOptions run;  // one inference: the executor and how inputs are generated (runs and warm-up do not apply)
};

std::string safeFileName(const std::string& name) {
    std::string out;
    for (char c : name) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
    return out.empty() ? "output" : out;
}

void runRun(const RunCliOptions& o) {
    auto model = loadModelForCommand(o.model);
    const auto shapes = parseInputShapeSpecs(o.inputShapes);
    Session session(model, SessionOptions{.executor = usableExecutor(o.run.executor)});
    std::map<std::string, Tensor> feeds;
    bool anyGiven = !o.inputFiles.empty();
    if (anyGiven && !shapes.empty())  // a given .npy has its own shape
        failInput("--input-shape shapes generated inputs; it cannot be combined with --input");
    for (const auto& spec : o.inputFiles) {
        auto eq = spec.find('=');
        if (eq == std::string::npos || eq == 0) failInput("--input '" + spec + "' must be NAME=FILE.npy");
        feeds[spec.substr(0, eq)] = readNpy(spec.substr(eq + 1));
    }
    if (!anyGiven) {
        feeds = makeInputs(session, o.run.seed, o.run.symbolicDimValue, shapes);
        std::cerr << "note: no --input given, using generated inputs (seed " << o.run.seed << ")\n";
    }
    session.prepare(feeds);  // with a backend: the learning run, so the run below uses the backend
    auto outputs = session.runTensors(feeds);
    for (const auto& f : session.fallbacks())
        std::cerr << "fallback: " << f.opType << " " << f.node << ": " << f.reason << "\n";
    if (!o.outputDir.empty()) std::filesystem::create_directories(o.outputDir);
    for (const auto& [name, t] : outputs) {
        std::cout << name << ": " << dtypeName(t.dtype()) << " " << shapeToString(t.shape());
        if (!o.outputDir.empty()) {
            std::string path = (std::filesystem::path(o.outputDir) / (safeFileName(name) + ".npy")).string();
            writeNpy(path, t);
            std::cout << " -> " << path;
        }
        std::cout << "\n";
    }
}
}  // namespace

static void addRunCommand(CLI::App& app) {
    auto opts = std::make_shared<RunCliOptions>();
    CLI::App* cmd = app.add_subcommand("run", "Run a model once (on the fastest backend unless --backend says "
                                              "otherwise) and save its outputs");
    cmd->add_option("model", opts->model, "ONNX model file")->required();
    cmd->add_option("--input", opts->inputFiles, "NAME=FILE.npy for each model input (repeatable); generated if none");
    cmd->add_option("--output-dir", opts->outputDir, "folder to write each output as NAME.npy");
    addSeedOption(cmd, opts->run.seed);
    addInputShapeOption(cmd, opts->inputShapes);  // shapes of generated inputs, e.g. x=1,3,480,480
    addExecutorOptions(cmd, opts->run.executor, "the model runs");
    cmd->callback([opts] { runRun(*opts); });
}
NPUWB_CLI_COMMAND(addRunCommand);

}  // namespace npuwb::cli
