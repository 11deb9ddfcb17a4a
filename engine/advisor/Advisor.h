#pragma once
// The advisor (DESIGN.md "Rule"): rules look at a model for a chosen chip and produce findings: the hazard, the
// evidence (nodes, numbers), the mitigation, an estimated gain, and the pass that fixes it when one exists.
// Rules only read; every automatic fix is a pass (engine/passes), so "Apply" in the GUI runs that pass with its proof.
//
// Rules register themselves from their own file:
//   class TallNarrowRule final : public Rule { ... };
//   NPUWB_RULE(TallNarrowRule);
#include <memory>
#include <string>
#include <vector>

#include "chips/ChipProfile.h"
#include "ir/Graph.h"
#include "perfmodel/LayerPlanner.h"
#include "report/Report.h"

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
    std::string pass;           // registered pass that fixes it, "" when manual
    std::string seedReference;  // playbook section, e.g. "5.2.5.2"
};

struct AdviseOptions {
    std::string dtype = "int8";  // "int8" | "fp16": the precision the model will run at on the NPU
    int cores = 1;
    int64_t symbolicDimValue = 1;
};

/// What every rule sees: the model, the chip, and the cost-model estimate (per-layer rows) computed once.
struct AdviceContext {
    const Model& model;
    const ChipProfile& chip;
    const AdviseOptions& options;
    const Report& estimate;
    /// The cost model's layers behind the estimate: layers[i] is estimate.layers[i] (fused nodes, NPU op or the
    /// reason for the CPU fallback, NPU work); their node pointers point into `model`.
    const std::vector<PlannedLayer>& layers;
};

class Rule {
public:
    virtual ~Rule() = default;
    virtual std::string name() const = 0;
    virtual std::string description() const = 0;
    virtual std::vector<Finding> check(const AdviceContext& context) const = 0;
};

class RuleRegistry {
public:
    using Factory = std::unique_ptr<Rule> (*)();
    static RuleRegistry& instance();
    bool add(Factory factory);
    std::vector<std::unique_ptr<Rule>> createAll() const;
    std::vector<std::string> names() const;  // sorted
    /// Throws InvalidInput listing the known names when `name` is unknown.
    std::unique_ptr<Rule> create(const std::string& name) const;

private:
    std::vector<Factory> factories_;
};

#define NPUWB_RULE(CLASS)                                                                            \
    [[maybe_unused]] static const bool npuwbRuleRegistered_##CLASS =                                 \
        ::npuwb::advisor::RuleRegistry::instance().add([]() -> std::unique_ptr<::npuwb::advisor::Rule> { \
            return std::make_unique<CLASS>();                                                        \
        })

/// Runs the estimate and every rule; findings sorted by estimated gain, then severity.
std::vector<Finding> advise(const Model& model, const ChipProfile& chip, const AdviseOptions& options = {});

/// The estimate the findings were computed from, with the findings (for callers that show or save both).
struct Advice {
    Report estimate;  // kind "estimate"; suggestions[] filled from the findings
    std::vector<Finding> findings;
};
Advice adviseWithEstimate(const Model& model, const ChipProfile& chip, const AdviseOptions& options = {});

/// Runs one rule alone on a prepared context (tests, and the GUI re-checking a single rule).
std::vector<Finding> runRule(const std::string& ruleName, const Model& model, const ChipProfile& chip,
                             const AdviseOptions& options = {});
/// The report-schema form of a finding (Report::suggestions).
Suggestion toSuggestion(const Finding& finding);

}  // namespace npuwb::advisor
