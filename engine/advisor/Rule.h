#pragma once
// The advisor's extension point: a rule reads the model, the chip and the cost-model estimate and returns findings.
// Rules register themselves from their own file:
//   class TallNarrowRule final : public Rule { ... };
//   NPUWB_RULE(TallNarrowRule);
#include <memory>
#include <string>
#include <vector>

#include "npuwb/Advisor.h"
#include "perfmodel/LayerPlanner.h"

namespace npuwb::advisor {

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

/// Runs one rule alone on a prepared context (tests, and the GUI re-checking a single rule).
std::vector<Finding> runRule(const std::string& ruleName, const Model& model, const ChipProfile& chip,
                             const AdviseOptions& options = {});

/// Replaces the cost model's gains of findings that have a fixing pass by what applying that pass to a copy of
/// `model` changes in the estimate, and fills `advice.allPasses` (PassGains.cpp).
void measurePassGains(const Model& model, const ChipProfile& chip, const AdviseOptions& options, Advice& advice);
}  // namespace npuwb::advisor
