#include "advisor/Rule.h"

#include <algorithm>
#include <optional>

#include "advisor/RuleSupport.h"
#include "npuwb/CostModel.h"
#include "perfmodel/LayerShapes.h"
#include "perfmodel/ModelPlan.h"
#include "npuwb/Error.h"
#include "npuwb/ModelIO.h"
#include "npuwb/VendorGuide.h"

namespace npuwb::advisor {

RuleRegistry& RuleRegistry::instance() {
    static RuleRegistry registry;
    return registry;
}

bool RuleRegistry::add(Factory factory) {
    factories_.push_back(factory);
    return true;
}

std::vector<std::unique_ptr<Rule>> RuleRegistry::createAll() const {
    std::vector<std::unique_ptr<Rule>> rules;
    for (Factory f : factories_) rules.push_back(f());
    std::sort(rules.begin(), rules.end(), [](const auto& a, const auto& b) { return a->name() < b->name(); });
    return rules;
}

std::vector<std::string> RuleRegistry::names() const {
    std::vector<std::string> out;
    for (const auto& r : createAll()) out.push_back(r->name());
    return out;
}

std::unique_ptr<Rule> RuleRegistry::create(const std::string& name) const {
    std::string known;
    for (auto& r : createAll()) {
        if (r->name() == name) return std::move(r);
        known += (known.empty() ? "" : ", ") + r->name();
    }
    failInput("unknown advisor rule '" + name + "' (rules: " + known + ")");
}

namespace {

int severityRank(const std::string& s) { return s == "high" ? 0 : s == "medium" ? 1 : 2; }

void sortFindings(std::vector<Finding>& findings) {
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        if (a.estimatedGainUs != b.estimatedGainUs) return a.estimatedGainUs > b.estimatedGainUs;
        if (severityRank(a.severity) != severityRank(b.severity)) return severityRank(a.severity) < severityRank(b.severity);
        return a.rule < b.rule;
    });
}

/// Runs `rules` on one estimate and the layer plan behind it.
Advice runRules(const Model& model, const ChipProfile& chip, const AdviseOptions& options,
                const std::vector<std::unique_ptr<Rule>>& rules) {
    EstimateOptions eo;
    eo.dtype = options.dtype;
    eo.cores = options.cores;
    eo.symbolicDimValue = options.symbolicDimValue;
    Advice advice;
    LearnedShapes learned = learnShapes(model, ShapeLearningOptions{.symbolicDimValue = options.symbolicDimValue});
    advice.estimate = estimateModel(model, chip, eo, learned);
    // The same planning the estimate did, kept so rules can see fused nodes, CPU reasons and the NPU work.
    std::vector<NodeShapes> shapes = resolveLayerShapes(model, learned);
    std::vector<PlannedLayer> layers = planLayers(shapes, model.graph, chip, options.dtype);
    if (layers.size() != advice.estimate.layers.size())
        fail(ErrorKind::Internal, "advisor: layer plan (" + std::to_string(layers.size()) + ") and estimate (" +
                                      std::to_string(advice.estimate.layers.size()) + ") disagree");
    AdviceContext context{model, chip, options, advice.estimate, layers};
    for (const auto& rule : rules) {
        std::vector<Finding> found = rule->check(context);
        for (auto& f : found) {
            if (f.rule.empty()) f.rule = rule->name();
            advice.findings.push_back(std::move(f));
        }
    }
    sortFindings(advice.findings);
    for (const auto& f : advice.findings) advice.estimate.suggestions.push_back(toSuggestion(f));
    return advice;
}

}  // namespace

Advice adviseWithEstimate(const Model& model, const ChipProfile& chip, const AdviseOptions& options) {
    std::optional<Model> shaped;
    if (!options.inputShapes.empty()) shaped = withInputShapes(model, options.inputShapes);
    Advice advice = runRules(shaped ? *shaped : model, chip, options, RuleRegistry::instance().createAll());
    if (options.measurePassGains) {
        measurePassGains(model, chip, options, advice);
        sortFindings(advice.findings);
        advice.estimate.suggestions.clear();
        for (const auto& f : advice.findings) advice.estimate.suggestions.push_back(toSuggestion(f));
    }
    return advice;
}

std::vector<Finding> advise(const Model& model, const ChipProfile& chip, const AdviseOptions& options) {
    return adviseWithEstimate(model, chip, options).findings;
}

std::vector<Finding> runRule(const std::string& ruleName, const Model& model, const ChipProfile& chip,
                             const AdviseOptions& options) {
    std::vector<std::unique_ptr<Rule>> one;
    one.push_back(RuleRegistry::instance().create(ruleName));
    return runRules(model, chip, options, one).findings;
}

Suggestion toSuggestion(const Finding& finding) {
    // The report schema has no evidence/severity fields: they travel in the text so nothing is lost.
    Suggestion s;
    s.rule = finding.rule;
    s.hazard = "[" + finding.severity + "] " + finding.hazard;
    if (!finding.evidence.empty()) {
        s.hazard += " (";
        for (size_t i = 0; i < finding.evidence.size(); ++i) {
            const Evidence& e = finding.evidence[i];
            s.hazard += (i ? "; " : "") + e.label + " " + num(e.value) + (e.unit.empty() ? "" : " " + e.unit);
        }
        s.hazard += ")";
    }
    s.mitigation = finding.mitigation;
    if (!finding.guideSection.empty()) s.mitigation += " (" + citeVendorGuide(finding.guideSection) + ")";
    s.nodes = finding.nodes;
    s.estimatedGainUs = finding.estimatedGainUs;
    s.pass = finding.pass;
    return s;
}

std::vector<RuleInfo> listRules() {
    std::vector<RuleInfo> out;
    for (const auto& r : RuleRegistry::instance().createAll()) out.push_back({r->name(), r->description()});
    std::sort(out.begin(), out.end(), [](const RuleInfo& a, const RuleInfo& b) { return a.name < b.name; });
    return out;
}

std::string evidenceText(const Finding& finding) {
    std::string s;
    for (const Evidence& e : finding.evidence)
        s += (s.empty() ? "" : "; ") + e.label + " " + num(e.value) + (e.unit.empty() ? "" : " " + e.unit);
    return s;
}

}  // namespace npuwb::advisor
