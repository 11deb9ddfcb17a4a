#pragma once
// `npuwb-cli profile MODEL --board HOST`: the same profile, run by the agent on the board.
#include <map>
#include <string>

#include "BoardConnection.h"
#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"

namespace npuwb::cli {

struct BoardProfileRequest {
    std::string host;
    std::string model;  // local ONNX file, uploaded by content hash (cached on the board)
    int runs = 10;
    int warmup = 2;
    int threads = 0;
    std::string backend = "auto";
    std::map<std::string, Shape> inputShapes;
    bool quiet = false;
};

/// Connects, deploys agent and model when needed, runs, and returns the board's report (model.path set to the
/// local file, environment.device naming the board).
Report profileOnBoard(const BoardProfileRequest& request, const BoardCliOptions& connection);

}  // namespace npuwb::cli
