#pragma once
// Shared arithmetic of the rules: finding a node's layer in the estimate, converting the cost model's cycles into
// time gains, and wording numbers. Gains always come from the cost model's own terms (see LayerCost.h), so a
// finding never promises more than the estimate would show after the fix.
#include <optional>
#include <string>
#include <vector>

#include "advisor/Rule.h"

namespace npuwb::advisor {

/// The name the estimate and the GUI use for a node: its name, else its first output.
std::string nodeId(const Node& node);
/// Node ids of a planned layer, the anchor first.
std::vector<std::string> layerNodeIds(const PlannedLayer& layer);
/// Index of the layer (row) a node ended up in, fused or as anchor; nullopt for folded nodes.
std::optional<size_t> layerOfNode(const AdviceContext& context, const std::string& nodeId);

double totalUs(const AdviceContext& context);
/// "high" when the gain is >= 5% of the model's estimated time, "medium" >= 1%, else "low".
std::string severityForGain(double gainUs, double totalUs);
std::string maxSeverity(const std::string& a, const std::string& b);

/// Time the layer saves when its NPU (compute) cycles are scaled by `keepFraction` and its DDR cycles by
/// `ddrKeepFraction`: total = max(NPU, DDR) + overhead, as in the cost model.
double gainFromScaling(const LayerRow& row, double clockMHz, double keepFraction, double ddrKeepFraction = 1.0);

/// The rates of the dtype the advice is for.
const NpuDTypeRates& adviceRates(const AdviceContext& context);
/// Conv-like NPU layers (dense, grouped or depthwise conv; Gemm/MatMul as 1x1 conv).
bool isConvLayer(const PlannedLayer& layer);
bool isDepthwiseLayer(const PlannedLayer& layer);
/// Output H*W of a conv-like layer.
int64_t outputPixels(const PlannedLayer& layer);

/// Time of layer `index` on the NPU: its estimate when it runs there; for a CPU fallback what the cost model
/// gives the same node as NPU work (a conv for weighted Conv nodes, else the output stage).
double npuTimeUs(const AdviceContext& context, size_t index);

/// "12.3", "0.42": short numbers for hazards.
std::string num(double value);
Evidence evidence(std::string label, double value, std::string unit = "");
/// Evidence shared by every per-layer finding: the layer's time, share, cycles and MAC usage.
std::vector<Evidence> layerEvidence(const LayerRow& row);

}  // namespace npuwb::advisor
