#include "ModelRunOptionsCli.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "npuwb/ChipProfile.h"
#include "npuwb/Error.h"

namespace npuwb::cli {

namespace {

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) items.push_back(item);
    return items;
}

std::vector<int> parseCounts(const std::string& flag, const std::string& text) {
    std::vector<int> counts;
    for (const auto& item : splitList(text)) {
        size_t used = 0;
        int value = 0;
        try {
            value = std::stoi(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != item.size() || value < 1 || value > 1024)
            failInput(flag + " '" + text + "': expected a count from 1 to 1024 or a comma-separated list of them");
        counts.push_back(value);
    }
    if (counts.empty()) failInput(flag + " is empty");
    return counts;
}

/// The highest NPU core a mask names (0-based), -1 for auto/all, which every chip accepts.
int highestCore(NpuCoreMask mask) {
    switch (mask) {
    case NpuCoreMask::Core1:
    case NpuCoreMask::Cores01: return 1;
    case NpuCoreMask::Core2:
    case NpuCoreMask::Cores012: return 2;
    case NpuCoreMask::Core0: return 0;
    default: return -1;
    }
}

}  // namespace

void addModelRunOptions(CLI::App* cmd, ModelRunCliFlags& flags) {
    cmd->add_option("--core-mask", flags.coreMask,
                    "cores per context: auto|0|1|2|0_1|0_1_2|all, or one word per context separated by commas; "
                    ".rknn: NPU cores (multi-core chips only: RK3588, RK3576); ONNX: CPUs the context's threads are "
                    "pinned to")
        ->capture_default_str();
    cmd->add_option("--contexts", flags.contexts,
                    "concurrent contexts sharing the weights (.rknn: rknn_dup_context; ONNX: copies of the session "
                    "sharing the backend's packed weights); default from --batch (1->1, 2->2, >=3->3); a list (1,2,3) "
                    "sweeps");
    cmd->add_option("--batch", flags.batch,
                    "samples per pass, slices spread round-robin over the contexts (ONNX: one model run each); a "
                    "list (1,2,4) sweeps")
        ->capture_default_str();
    cmd->add_option("--chip", flags.chip, ".rknn: chip profile (rk3588, rk3566, ...) to check --core-mask against");
}

ModelRunPlan modelRunOptionsFromCli(const ModelRunCliFlags& flags, const RunOptions& common,
                                    const std::vector<std::string>& inputSpecs) {
    ModelRunPlan plan;
    ModelRunOptions base;
    base.runs = common.runs;
    base.warmup = common.warmup;
    base.randomSeed = common.seed;
    base.perLayer = common.layerTimes;
    for (const auto& spec : inputSpecs) {
        const auto eq = spec.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
            failInput("--input '" + spec + "' must be NAME=FILE.npy");
        base.inputFiles[spec.substr(0, eq)] = spec.substr(eq + 1);
    }
    const std::vector<std::string> masks = splitList(flags.coreMask);
    if (masks.empty()) failInput("--core-mask is empty");
    std::vector<NpuCoreMask> parsed;
    for (const auto& word : masks) {
        NpuCoreMask mask{};
        if (!parseCoreMask(word, mask))
            failInput("--core-mask '" + word + "': expected auto, 0, 1, 2, 0_1, 0_1_2 or all");
        parsed.push_back(mask);
    }
    if (parsed.size() == 1)
        base.coreMask = parsed[0];
    else
        base.contextCoreMasks = parsed;
    std::optional<ChipProfile> chip;
    if (!flags.chip.empty()) chip = findChipProfile(flags.chip);
    if (chip) {
        for (NpuCoreMask mask : parsed)
            if (highestCore(mask) >= chip->cores)
                failInput("--core-mask " + std::string(coreMaskName(mask)) + ": " + chip->name + " has " +
                          std::to_string(chip->cores) + " NPU core(s), the mask needs " +
                          std::to_string(highestCore(mask) + 1) +
                          (chip->cores == 1 ? "; core masks other than auto and 0 need a multi-core chip" : ""));
        if (base.perLayer && !chip->runtime.perfDetail) {
            base.perLayer = false;
            plan.notes.push_back(chip->name + "'s runtime (" + chip->runtime.library +
                                 ") has no per-layer perf detail (RKNN_QUERY_PERF_DETAIL): totals only");
        }
    }
    std::vector<int> contexts = flags.contexts.empty() ? std::vector<int>{0} : parseCounts("--contexts", flags.contexts);
    std::vector<int> batches = parseCounts("--batch", flags.batch);
    for (int batch : batches)
        for (int n : contexts) {
            ModelRunOptions o = base;
            o.batch = batch;
            o.contexts = n;
            const int used = n > 0 ? n : std::min(batch, 3);  // the plugin's default: 1 -> 1, 2 -> 2, >= 3 -> 3
            if (chip && used > 1 && !chip->runtime.dupContext)
                failUnsupported(chip->name + "'s runtime (" + chip->runtime.library + ") has no rknn_dup_context: " +
                                std::to_string(used) + " contexts (--batch " + std::to_string(batch) +
                                (n > 0 ? ", --contexts " + std::to_string(n) : std::string()) +
                                ") cannot run there; use --contexts 1");
            plan.points.push_back(std::move(o));
        }
    return plan;
}

}  // namespace npuwb::cli
