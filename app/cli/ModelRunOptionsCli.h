#pragma once
// The options of a run through a whole-model runtime (npuwb/sdk/ModelRuntime.h: ModelRunOptions), parsed in this
// one place for every command that runs a compiled model (`profile MODEL.rknn`, locally or with --board):
//   --core-mask auto|0|1|2|0_1|0_1_2|all  (or a comma-separated mask per context: --core-mask 0,1,2)
//   --contexts N  --batch N  and the shared --runs, --warmup, --seed, --input NAME=FILE.npy, --no-layer-times.
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "npuwb/RunOptions.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb::cli {

/// What the runtime-only flags hold until the command runs.
struct ModelRunCliOptions {
    std::string coreMask = coreMaskName(NpuCoreMask::Auto);
    int contexts = 0;  // 0: from the batch, as the vendor does
    int batch = 1;
};

/// --core-mask, --contexts, --batch (checked when parsed: an unknown mask names the choices).
void addModelRunOptions(CLI::App* cmd, ModelRunCliOptions& options);

/// "NAME=FILE.npy" specs (the --input option's values) as {NAME: FILE}. InvalidInput for a spec without a name or
/// file, or a name given twice.
std::map<std::string, std::string> parseInputFileSpecs(const std::vector<std::string>& specs);

/// ModelRunOptions from the runtime flags plus what the command shares with ONNX runs: runs, warm-up, seed and
/// layerTimes (-> perLayer) from `run`, input files from `inputSpecs`.
ModelRunOptions modelRunOptionsFromCli(const ModelRunCliOptions& options, const RunOptions& run,
                                       const std::vector<std::string>& inputSpecs);

}  // namespace npuwb::cli
