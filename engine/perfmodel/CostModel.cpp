#include "npuwb/CostModel.h"

#include <cmath>
#include <cstdio>
#include <utility>

#include "npuwb/Error.h"
#include "npuwb/LayerIds.h"
#include "npuwb/ModelSummary.h"
#include "perfmodel/ModelPlan.h"

namespace npuwb {

namespace {

LayerRow rowFor(const PlannedLayer& layer, int64_t id) {
    LayerRow row;
    const NodeShapes& anchor = *layer.nodes.front();
    const Node& n = *anchor.node;
    row.id = id;
    row.fullName = n.layerName();
    for (size_t i = 1; i < layer.nodes.size(); ++i) row.fusedNodes.push_back(layer.nodes[i]->node->layerName());
    // The feature maps first, then the constants (weights, a Mul's scalar): the InputShape column, RKNN's as ours,
    // shows the first, which must be the activation the layer works on.
    for (bool constants : {false, true})
        for (size_t i = 0; i < anchor.inputs.size(); ++i) {
            const bool constant = i < anchor.inputIsConstant.size() && anchor.inputIsConstant[i];
            const bool absent = i < n.inputs.size() && n.inputs[i].empty();  // an optional input left out
            if (constant == constants && !absent) row.inputShapes.push_back(anchor.inputs[i]);
        }
    row.outputShapes = layer.nodes.back()->outputs;
    return row;
}

std::string reportDtype(const std::string& dtype) { return dtype == "fp16" ? "float16" : dtype; }

double cpuTimeUs(const PlannedLayer& layer, const ChipProfile& chip, const CostCoefficients& k) {
    const NodeShapes& anchor = *layer.nodes.front();
    return cpuLayerTimeUs(nodeMacs(*anchor.node, anchor.inputs, anchor.outputs), layer.cpuBytes, chip.cpu) +
           cpuBoundaryTimeUs(layer.cpuConvertElements, layer.cpuSwitch, chip.cpu, k);
}

void checkOptions(const ChipProfile& chip, const EstimateOptions& options) {
    if (options.dtype != "int8" && options.dtype != "fp16")
        failInput("dtype must be int8 or fp16, got '" + options.dtype + "'");
    if (options.cores < 1 || options.cores > chip.cores)
        failInput("chip " + chip.name + " has " + std::to_string(chip.cores) + " NPU core(s); cannot use " +
                  std::to_string(options.cores));
}

/// The range the held-out error of the fit puts around an estimate, and the sentence that says so.
void applyUncertainty(Report& report, const ChipProfile& chip, double totalUs) {
    const EstimateValidation& v = chip.validation;
    if (v.points == 0) return;
    // ratio = estimated time / measured time on held-out models; the measured time is the estimate / ratio.
    report.run.minUs = totalUs / v.slowRatioP90;
    report.run.maxUs = totalUs / v.fastRatioP10;
    char basis[320];
    std::snprintf(basis, sizeof basis,
                  "range: 10th-90th percentile of estimated/published time on models held out of the fit (%s, %d "
                  "published figures: median error %.0f%%, max %.0f%%)",
                  v.method.c_str(), v.points, 100.0 * v.medianAbsError, 100.0 * v.maxAbsError);
    report.run.estimateBasis = basis;
}

}  // namespace

ModelPlan planModel(const Model& model, const ChipProfile& chip, const std::string& dtype, int64_t symbolicDimValue) {
    LearnedShapes learned = learnShapes(model, ShapeLearningOptions{.symbolicDimValue = symbolicDimValue});
    return planModel(model, chip, dtype, std::move(learned));
}

ModelPlan planModel(const Model& model, const ChipProfile& chip, const std::string& dtype, LearnedShapes learned) {
    ModelPlan plan;
    plan.dtype = dtype;
    plan.learned = std::move(learned);
    plan.shapes = resolveLayerShapes(model, plan.learned);
    plan.layers = planLayers(plan.shapes, model.graph, chip, dtype);
    return plan;
}

double planTimeUs(const ModelPlan& plan, const ChipProfile& chip, int64_t cores, const CostCoefficients& k) {
    const NpuDTypeRates& rates = chip.rates(plan.dtype);
    double total = 0;
    for (const PlannedLayer& layer : plan.layers)
        total += layer.npuOp.empty() ? cpuTimeUs(layer, chip, k) : npuLayerCost(layer.work, chip, rates, cores, k).timeUs;
    return total;
}

Report estimateModel(const Model& model, const ChipProfile& chip, const EstimateOptions& options) {
    checkOptions(chip, options);
    return estimateModel(model, chip, options,
                         learnShapes(model, ShapeLearningOptions{.symbolicDimValue = options.symbolicDimValue}));
}

Report estimateModel(const Model& model, const ChipProfile& chip, const EstimateOptions& options,
                     const LearnedShapes& learned) {
    checkOptions(chip, options);
    const NpuDTypeRates& rates = chip.rates(options.dtype);
    CostCoefficients k = options.coefficients.value_or(chip.coefficients);
    ModelPlan plan = planModel(model, chip, options.dtype, learned);

    Report report = newReport("estimate");
    report.model = summarizeModel(model, plan.learned);
    report.environment.device = chip.name;
    report.environment.backend = "cost-model";
    report.environment.cpu = chip.cpu.description;
    report.environment.cores = chip.cores;
    report.environment.threads = options.cores;
    report.environment.os = "estimate (" + options.dtype + ", " + chip.sourcePath + ")";

    double totalUs = 0;
    for (const PlannedLayer& layer : plan.layers) {
        LayerRow row = rowFor(layer, static_cast<int64_t>(report.layers.size()));
        const NodeShapes& anchor = *layer.nodes.front();
        row.macs = nodeMacs(*anchor.node, anchor.inputs, anchor.outputs);
        if (!layer.npuOp.empty()) {
            NpuLayerCost c = npuLayerCost(layer.work, chip, rates, options.cores, k);
            row.opType = layer.npuOp;
            row.target = "NPU";
            row.dataType = reportDtype(options.dtype);
            row.bytesRead = c.bytesRead;
            row.bytesWritten = c.bytesWritten;
            row.cyclesNpu = std::llround(c.npuCycles);
            row.cyclesDdr = std::llround(c.ddrCycles);
            row.cyclesTotal = std::llround(c.totalCycles);
            row.macUsagePercent = c.macUsagePercent;
            row.timeUs = c.timeUs;
        } else {
            // RKNN runs fallback ops on the CPU in float32 after converting the NPU's layout.
            row.opType = anchor.node->opType;
            row.target = "CPU";
            row.dataType = "float32";
            row.bytesRead = layer.cpuBytes / 2;
            row.bytesWritten = layer.cpuBytes - row.bytesRead;
            row.timeUs = cpuTimeUs(layer, chip, k);
            report.fallbacks.push_back(FallbackRow{row.fullName, row.opType, layer.cpuReason});  // why not on the NPU
        }
        row.timeUsMin = row.timeUs;
        totalUs += row.timeUs;
        report.layers.push_back(std::move(row));
    }
    for (auto& r : report.layers) r.timePercent = totalUs > 0 ? 100.0 * r.timeUs / totalUs : 0.0;

    report.run.runs = 0;  // nothing was measured
    report.run.medianUs = report.run.minUs = report.run.meanUs = report.run.maxUs = totalUs;
    if (!options.coefficients) applyUncertainty(report, chip, totalUs);
    int64_t weightBytes = 0;
    for (const PlannedLayer& l : plan.layers) weightBytes += l.work.weightBytes;
    report.memory.weightBytes = weightBytes;
    LayerIds(model.graph).renumber(report.layers);  // the model's IDs, as its profile and the Layers table show them
    return report;
}

double estimatedFps(const Report& estimate) {
    return estimate.run.medianUs > 0 ? 1e6 / estimate.run.medianUs : 0.0;
}

}  // namespace npuwb
