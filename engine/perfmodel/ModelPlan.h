#pragma once
// A model planned once for a chip and dtype (shapes resolved, converter rewrites, fusions, NPU/CPU placement),
// costed as often as needed: the estimate costs it once with the profile's coefficients, the calibration fit in
// tests/perfmodel thousands of times with trial coefficients.
#include <string>
#include <vector>

#include "npuwb/ChipProfile.h"
#include "npuwb/CostModel.h"
#include "npuwb/ir/Graph.h"
#include "perfmodel/LayerPlanner.h"
#include "perfmodel/LayerShapes.h"

namespace npuwb {

struct ModelPlan {
    LearnedShapes learned;            // by value name, what `shapes` was made from
    std::vector<NodeShapes> shapes;   // the layers point into this vector: moving a plan is fine, copying is not
    std::vector<PlannedLayer> layers;
    std::string dtype;

    ModelPlan() = default;
    ModelPlan(ModelPlan&&) = default;
    ModelPlan& operator=(ModelPlan&&) = default;
    ModelPlan(const ModelPlan&) = delete;
    ModelPlan& operator=(const ModelPlan&) = delete;
};

ModelPlan planModel(const Model& model, const ChipProfile& chip, const std::string& dtype,
                    int64_t symbolicDimValue = 1);
/// The same over shapes learned already.
ModelPlan planModel(const Model& model, const ChipProfile& chip, const std::string& dtype, LearnedShapes learned);

/// estimateModel (npuwb/CostModel.h) over shapes learned already: the advisor learns once for its estimate and its
/// own plan.
Report estimateModel(const Model& model, const ChipProfile& chip, const EstimateOptions& options,
                     const LearnedShapes& learned);

/// Whole-model time (us) of a plan on `cores` cores with coefficients `k`: NPU layers plus CPU fallbacks.
double planTimeUs(const ModelPlan& plan, const ChipProfile& chip, int64_t cores, const CostCoefficients& k);

}  // namespace npuwb
