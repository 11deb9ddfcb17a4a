#pragma once
// `npuwb-cli profile MODEL --board HOST`: the same profile, run by the agent on the board.
#include <string>

#include "BoardConnection.h"
#include "npuwb/Report.h"
#include "npuwb/RunOptions.h"

namespace npuwb::cli {

/// Connects, deploys agent and model (a local ONNX file, uploaded by content hash and cached on the board) when
/// needed, runs it the `run` way, and returns the board's report (model.path set to the local file,
/// environment.device naming the board). `run.inputs` must be empty: tensors are not sent.
Report profileOnBoard(const std::string& modelPath, const RunOptions& run, const BoardCliOptions& board);

}  // namespace npuwb::cli
