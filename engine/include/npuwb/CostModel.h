#pragma once
// Board-less per-layer NPU estimate for a chip profile: the same Report as a profile run (kind "estimate",
// environment.device = chip, backend "cost-model") with RKNN's perf-table fields per layer.
#include <cstdint>
#include <optional>
#include <string>

#include "npuwb/ChipProfile.h"
#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"

namespace npuwb {

struct EstimateOptions {
    std::string dtype = "int8";  // "int8" or "fp16": activations and weights on the NPU
    int64_t cores = 1;           // NPU cores used (1..chip cores); only multi-core ops split
    std::optional<CostCoefficients> coefficients;  // overrides the chip's (for experiments and tests)
    int64_t symbolicDimValue = 1;                  // for symbolic dims (batch) when a reference run is needed
};

Report estimateModel(const Model& model, const ChipProfile& chip, const EstimateOptions& options = {});

/// Frames per second implied by an estimate (1e6 / total us).
double estimatedFps(const Report& estimate);

}  // namespace npuwb
