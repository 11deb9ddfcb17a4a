#pragma once
// The advisor: rules look at a model for a chosen chip and produce findings: the hazard, the
// evidence (nodes, numbers), the mitigation, an estimated gain, and the pass that fixes it when one exists.
// Rules only read; every automatic fix is a pass (engine/passes), so "Apply" in the GUI runs that pass with its proof.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "npuwb/ChipProfile.h"
#include "npuwb/Report.h"
#include "npuwb/ir/Graph.h"

namespace npuwb::advisor {

struct Evidence {
    std::string label;  // "input channels"
    double value = 0.0;
    std::string unit;   // "", "KB", "us", "%"
};

struct Finding {
    std::string rule;           // rule id, e.g. "cpu-fallback"
    std::string severity;       // "high" | "medium" | "low"
    std::string hazard;         // what is wrong, one sentence naming the node(s)
    std::vector<std::string> nodes;
    std::vector<Evidence> evidence;
    std::string mitigation;     // what to do
    double estimatedGainUs = 0.0;  // from the cost model; 0 when unknown
    /// The gain is measured: the fixing pass applied to a copy of the model and the estimate run again (its share of
    /// the pass's whole change, by the cost model's site gains). Otherwise the cost model's figure for the site.
    bool gainMeasured = false;
    std::string pass;           // registered pass that fixes it, "" when manual
    std::string passAnchor;     // the node the pass's match starts at: OptimizerOptions::onlyAt for this site alone
    std::string guideSection;   // section of the RKNN SDK user guide it follows, e.g. "5.2.5.2" (VendorGuide.h)
};

struct AdviseOptions {
    std::string dtype = "int8";  // "int8" | "fp16": the precision the model will run at on the NPU
    int cores = 1;
    int64_t symbolicDimValue = 1;
    /// Apply each fixing pass to a copy and estimate again, so a finding's gain is what Apply changes (a rewrite and
    /// an estimate per fixing pass, then all of them together; off: the cost model's per-site figures only).
    bool measurePassGains = true;
    /// Sizes for symbolic input dims. The rules and estimates see the model at these; fixing passes are applied
    /// to the model as given (as the GUI's Apply does, on the model as opened) and the result estimated at them.
    std::map<std::string, Shape> inputShapes{};
};

/// What applying fixing passes to a copy of the model changed in the estimate.
struct PassesGain {
    std::vector<std::string> passes;  // applied in this order
    double beforeUs = 0.0;
    double afterUs = 0.0;
    std::string error;  // why it could not be measured (the pass's own error), empty when it was
};

/// A registered rule as --list-rules and the GUI show it.
struct RuleInfo {
    std::string name;
    std::string description;
};
/// Every registered rule, sorted by name.
std::vector<RuleInfo> listRules();

/// Runs the estimate and every rule; findings sorted by estimated gain, then severity.
std::vector<Finding> advise(const Model& model, const ChipProfile& chip, const AdviseOptions& options = {});

/// The estimate the findings were computed from, with the findings (for callers that show or save both).
struct Advice {
    Report estimate;  // kind "estimate"; suggestions[] filled from the findings
    std::vector<Finding> findings;
    /// Every fixing pass applied together (AdviseOptions::measurePassGains): the gains of single findings overlap
    /// and are never summed; this is what applying all of them gives.
    PassesGain allPasses;
};
Advice adviseWithEstimate(const Model& model, const ChipProfile& chip, const AdviseOptions& options = {});

/// The finding's evidence as one line: "input channels 3; time 12.3 us".
std::string evidenceText(const Finding& finding);

/// The report-schema form of a finding (Report::suggestions).
Suggestion toSuggestion(const Finding& finding);

}  // namespace npuwb::advisor
