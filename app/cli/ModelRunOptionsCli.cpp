#include "ModelRunOptionsCli.h"

#include <sstream>

#include "npuwb/Error.h"

namespace npuwb::cli {

namespace {
/// One mask, or a comma-separated mask per context; false for any other text.
bool parseMaskList(const std::string& text, std::vector<NpuCoreMask>& masks) {
    std::stringstream in(text);
    for (std::string part; std::getline(in, part, ',');) {
        NpuCoreMask mask = NpuCoreMask::Auto;
        if (!parseCoreMask(part, mask)) return false;
        masks.push_back(mask);
    }
    return !masks.empty() && text.back() != ',';
}
}  // namespace

void addModelRunOptions(CLI::App* cmd, ModelRunCliOptions& options) {
    const auto checkMask = [](const std::string& text) {
        std::vector<NpuCoreMask> masks;
        return parseMaskList(text, masks) ? std::string()
                                          : "'" + text + "' is no core mask: auto, 0, 1, 2, 0_1, 0_1_2 or all, "
                                                         "or one per context separated by commas (0,1,2)";
    };
    cmd->add_option("--core-mask", options.coreMask,
                    "compiled models: NPU cores per context (auto|0|1|2|0_1|0_1_2|all, or a comma-separated mask per "
                    "context)")
        ->capture_default_str()
        ->check(CLI::Validator(checkMask, "MASK[,MASK...]"));
    cmd->add_option("--contexts", options.contexts,
                    "compiled models: contexts run concurrently, sharing weights (0: 1, 2 or 3 from --batch)")
        ->capture_default_str()
        ->check(CLI::Range(0, 64));
    cmd->add_option("--batch", options.batch, "compiled models: samples per run of a multi-batch model")
        ->capture_default_str()
        ->check(CLI::Range(1, 1 << 20));
}

std::map<std::string, std::string> parseInputFileSpecs(const std::vector<std::string>& specs) {
    std::map<std::string, std::string> files;
    for (const auto& spec : specs) {
        const auto eq = spec.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
            failInput("--input '" + spec + "' must be NAME=FILE.npy");
        if (!files.emplace(spec.substr(0, eq), spec.substr(eq + 1)).second)
            failInput("--input names '" + spec.substr(0, eq) + "' twice");
    }
    return files;
}

ModelRunOptions modelRunOptionsFromCli(const ModelRunCliOptions& options, const RunOptions& run,
                                       const std::vector<std::string>& inputSpecs) {
    ModelRunOptions m;
    m.runs = run.runs;
    m.warmup = run.warmup;
    m.randomSeed = run.seed;
    m.perLayer = run.layerTimes;
    std::vector<NpuCoreMask> masks;
    if (!parseMaskList(options.coreMask, masks)) failInput("--core-mask '" + options.coreMask + "' is no core mask");
    m.contexts = options.contexts;
    if (masks.size() == 1) {
        m.coreMask = masks.front();
    } else {
        m.contextCoreMasks = masks;
        if (m.contexts == 0) m.contexts = static_cast<int>(masks.size());  // a mask per context names the count
    }
    m.batch = options.batch;
    m.inputFiles = parseInputFileSpecs(inputSpecs);
    return m;
}

}  // namespace npuwb::cli
