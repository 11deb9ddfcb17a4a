// What Apply would change: each fixing pass applied to a copy of the model as Apply applies it (without the proof
// Apply adds), and the estimate run again. The cost model's per-site gains guessed the time a rewrite removes (five times too much for
// fuse_hardswish on PP-OCRv4 det: 5.5 ms shown, 2.2 ms after Apply); the measured change is the pass's gain, shared
// among its sites in proportion to their guessed gains. All passes together give the figure no sum of overlapping
// gains can.
#include <map>
#include <numeric>
#include <optional>

#include "advisor/Rule.h"
#include "npuwb/CostModel.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Optimizer.h"
#include "npuwb/ShapeLearning.h"
#include "perfmodel/ModelPlan.h"

namespace npuwb::advisor {

namespace {

/// Estimates rewritten copies of one model at the advice's input sizes. The original's shapes are learned once (a
/// reference run, seconds on a transformer); a copy's are ONNX inference plus the original's for the values a pass
/// left alone, a run of its own only when that leaves a gap.
class CopyEstimator {
public:
    CopyEstimator(const Model& original, const ChipProfile& chip, const AdviseOptions& options)
        : chip_(chip), options_(options), base_(learnShapes(sized(original), learning(true))) {}

    double estimateUs(const Model& copy) const {
        const Model model = sized(copy);
        LearnedShapes shapes = learnShapes(model, learning(false));
        if (!shapes.unresolved.empty()) {
            for (const auto& [value, shape] : base_.values) shapes.values.emplace(value, shape);
            std::erase_if(shapes.unresolved, [&](const std::string& v) { return shapes.values.count(v) > 0; });
        }
        if (!shapes.unresolved.empty()) shapes = learnShapes(model, learning(true));
        EstimateOptions eo;
        eo.dtype = options_.dtype;
        eo.cores = options_.cores;
        eo.symbolicDimValue = options_.symbolicDimValue;
        return estimateModel(model, chip_, eo, shapes).run.medianUs;
    }

private:
    Model sized(const Model& model) const {
        return options_.inputShapes.empty() ? model : withInputShapes(model, options_.inputShapes);
    }
    ShapeLearningOptions learning(bool allowRun) const {
        return {.symbolicDimValue = options_.symbolicDimValue, .allowReferenceRun = allowRun};
    }

    const ChipProfile& chip_;
    const AdviseOptions& options_;
    LearnedShapes base_;
};

/// The model after `passes` (proven, as Apply runs them), or nullopt with `error` set when they fail.
std::optional<Model> applied(const Model& model, const std::vector<std::string>& passes, std::string& error) {
    try {
        passes::OptimizerOptions oo;  // as the GUI's Apply runs a pass, but unproven: this copy is measured, never kept
        oo.passes = passes;
        // No proof inputs: a proof runs the model twice per pass (seconds on a transformer) and almost never rolls a
        // rewrite back; Apply still proves every rewrite it keeps.
        oo.proof.randomInputSets = 0;
        return passes::optimize(model, oo).model;
    } catch (const std::exception& e) {
        error = e.what();
        return std::nullopt;
    }
}

}  // namespace

void measurePassGains(const Model& model, const ChipProfile& chip, const AdviseOptions& options, Advice& advice) {
    std::map<std::string, std::vector<Finding*>> sitesOfPass;
    std::vector<std::string> passes;  // in the order of their best finding
    for (Finding& f : advice.findings) {
        if (f.pass.empty()) continue;
        if (sitesOfPass[f.pass].empty()) passes.push_back(f.pass);
        sitesOfPass[f.pass].push_back(&f);
    }
    const double beforeUs = advice.estimate.run.medianUs;
    if (passes.empty()) return;
    const CopyEstimator estimator(model, chip, options);
    for (const std::string& pass : passes) {
        std::vector<Finding*>& sites = sitesOfPass[pass];
        const double guessed = std::accumulate(sites.begin(), sites.end(), 0.0,
                                               [](double sum, const Finding* f) { return sum + f->estimatedGainUs; });
        // Nodes the converter folds anyway (Identity, constant subgraphs) cost nothing in the estimate: rewriting a
        // big model to learn that would take seconds.
        if (guessed == 0) continue;
        std::string error;
        const std::optional<Model> after = applied(model, {pass}, error);
        if (!after) continue;  // the cost model's figures stay, unmeasured
        const double gainUs = beforeUs - estimator.estimateUs(*after);
        for (Finding* f : sites) {
            f->estimatedGainUs = guessed > 0 ? gainUs * f->estimatedGainUs / guessed : gainUs / double(sites.size());
            f->gainMeasured = true;
        }
    }
    advice.allPasses.passes = passes;
    advice.allPasses.beforeUs = beforeUs;
    advice.allPasses.afterUs = beforeUs;
    if (const std::optional<Model> after = applied(model, passes, advice.allPasses.error))
        advice.allPasses.afterUs = estimator.estimateUs(*after);
}

}  // namespace npuwb::advisor
