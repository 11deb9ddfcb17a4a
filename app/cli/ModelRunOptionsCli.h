#pragma once
// The command-line flags of a whole-model runtime run (`profile MODEL.rknn`), kept in one place so every command
// that runs a .rknn (locally or on a board) parses them the same way into the contract's ModelRunOptions
// (npuwb/sdk/ModelRuntime.h): --core-mask, --contexts, --batch, --chip and, shared with ONNX runs, --runs, --warmup,
// --input NAME=FILE.npy, --seed, --no-layer-times.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "npuwb/RunOptions.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb::cli {

/// The runtime flags as typed. Lists ("1,2,3") in --contexts and --batch make a sweep: one run per combination.
struct ModelRunCliFlags {
    std::string coreMask = "auto";  // one word for every context, or a comma-separated word per context
    std::string contexts;           // "" (derived from the batch), "N" or "N1,N2,..."
    std::string batch = "1";        // "N" or "N1,N2,..."
    std::string chip;               // a chip profile to check the core masks against ("" = let the runtime say)
};

/// Adds --core-mask, --contexts, --batch and --chip to `cmd`.
void addModelRunOptions(CLI::App* cmd, ModelRunCliFlags& flags);

/// What the flags ask for: one ModelRunOptions per sweep point, and what the chip (--chip) lacks, said plainly.
struct ModelRunPlan {
    std::vector<ModelRunOptions> points;  // batch x contexts, batch outermost
    std::vector<std::string> notes;       // e.g. "RV1106's runtime (librknnmrt.so) has no per-layer perf detail ..."
};

/// The plan from the runtime flags and the options shared with ONNX runs (runs, warm-up, seed, per-layer timing from
/// `common`; NAME=FILE.npy specs from `inputSpecs`). Throws InvalidInput naming the flag for a malformed value. With
/// --chip, the chip profile's facts apply before anything runs: a core mask its NPU cannot honour is InvalidInput
/// (naming the chip and its core count), more than one context on a runtime without rknn_dup_context is Unsupported,
/// and a runtime without per-layer perf detail turns the per-layer pass off with a note.
ModelRunPlan modelRunOptionsFromCli(const ModelRunCliFlags& flags, const RunOptions& common,
                                    const std::vector<std::string>& inputSpecs);

}  // namespace npuwb::cli
