#pragma once
// `npuwb-cli profile MODEL --board HOST`: the same profile, run by the agent on the board.
#include <string>

#include "BoardConnection.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/MatmulBench.h"
#include "npuwb/Report.h"
#include "npuwb/RunOptions.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb::cli {

/// Connects, deploys agent and model (a local ONNX file, uploaded by content hash and cached on the board) when
/// needed, runs it the `run` way, and returns the board's report (model.path set to the local file,
/// environment.device naming the board). `run.inputs` must be empty: tensors are not sent.
Report profileOnBoard(const std::string& modelPath, const RunOptions& run, const BoardCliOptions& board);

/// The same for a compiled model (.rknn) run by the board's `runtime` plugin: the model and every input file of
/// `options.inputFiles` go up by content hash (beside the model in the board's cache) and the job names them there.
Report profileCompiledOnBoard(const std::string& modelPath, const std::string& runtime, const ModelRunOptions& options,
                              const BoardCliOptions& board);

/// `npuwb-cli matmul-bench --board HOST`: the sweep run by the agent on the board's NPU through its `runtime` plugin
/// (the chip's profile travels with the job); the result's measuredOn is the host as given.
MatmulBenchResult matmulBenchOnBoard(const ChipProfile& chip, const MatmulBenchOptions& bench,
                                     const std::string& runtime, const BoardCliOptions& board);

}  // namespace npuwb::cli
