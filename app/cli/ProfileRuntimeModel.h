#pragma once
// `profile` on a compiled model file a runtime plugin claims (MODEL.rknn -> rknpu, npuwb/ModelRuntimes.h): the
// options from ModelRunOptionsCli.h, one run or a sweep over contexts x batch, the vendor-column layer table, the
// per-context memory and the throughput.
#include <string>
#include <vector>

#include "ModelRunOptionsCli.h"

namespace npuwb::cli {

struct RuntimeProfileRequest {
    std::string model;
    std::string runtime;  // the plugin claiming the model (modelRuntimeForFile)
    ModelRunCliFlags flags;
    RunOptions common;                    // runs, warm-up, seed, per-layer timing
    std::vector<std::string> inputSpecs;  // NAME=FILE.npy
    std::string jsonPath;                 // a sweep writes one report per point: OUT with ".b<batch>.c<contexts>"
    int top = 0;
};

void profileRuntimeModel(const RuntimeProfileRequest& request);

}  // namespace npuwb::cli
