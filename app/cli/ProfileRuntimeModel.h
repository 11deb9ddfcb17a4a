#pragma once
// `profile` on a compiled model file a runtime plugin claims (MODEL.rknn -> rknpu, npuwb/ModelRuntimes.h): the
// options from ModelRunOptionsCli.h, one run or a sweep over contexts x batch, here or on a board (--board: the
// model and input files go up, the board's runtime plugin runs them: BoardProfile.h), the vendor-column layer
// table, the per-context memory and the throughput.
#include <string>
#include <vector>

#include "BoardConnection.h"
#include "ModelRunOptionsCli.h"

namespace npuwb::cli {

struct RuntimeProfileRequest {
    std::string model;
    std::string runtime;  // the plugin claiming the model (modelRuntimeForFile); empty: ONNX as contexts here
    ModelRunCliFlags flags;
    RunOptions common;                    // runs, warm-up, seed, per-layer timing
    std::vector<std::string> inputSpecs;  // NAME=FILE.npy
    std::string jsonPath;                 // a sweep writes one report per point: OUT with ".b<batch>.c<contexts>"
    int top = 0;
    BoardCliOptions board;  // board.board.host set (--board HOST): each run goes through the board's agent
};

void profileRuntimeModel(const RuntimeProfileRequest& request);

}  // namespace npuwb::cli
