// What Apply would change: each fixing pass applied to a copy of the model, with its proof as Apply runs it, and the
// estimate run again. The cost model's per-site gains guessed the time a rewrite removes (five times too much for
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

namespace npuwb::advisor {

namespace {

double estimateUs(const Model& model, const ChipProfile& chip, const AdviseOptions& options) {
    if (!options.inputShapes.empty()) {
        AdviseOptions sized = options;
        sized.inputShapes.clear();
        return estimateUs(withInputShapes(model, options.inputShapes), chip, sized);
    }
    EstimateOptions eo;
    eo.dtype = options.dtype;
    eo.cores = options.cores;
    eo.symbolicDimValue = options.symbolicDimValue;
    return estimateModel(model, chip, eo).run.medianUs;
}

/// The model after `passes` (proven, as Apply runs them), or nullopt with `error` set when they fail.
std::optional<Model> applied(const Model& model, const std::vector<std::string>& passes, std::string& error) {
    try {
        passes::OptimizerOptions oo;  // as the GUI's Apply runs a pass: defaults, the proof included
        oo.passes = passes;
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
    for (const std::string& pass : passes) {
        std::string error;
        const std::optional<Model> after = applied(model, {pass}, error);
        if (!after) continue;  // the cost model's figures stay, unmeasured
        const double gainUs = beforeUs - estimateUs(*after, chip, options);
        std::vector<Finding*>& sites = sitesOfPass[pass];
        const double guessed = std::accumulate(sites.begin(), sites.end(), 0.0,
                                               [](double sum, const Finding* f) { return sum + f->estimatedGainUs; });
        for (Finding* f : sites) {
            f->estimatedGainUs = guessed > 0 ? gainUs * f->estimatedGainUs / guessed : gainUs / double(sites.size());
            f->gainMeasured = true;
        }
    }
    advice.allPasses.passes = passes;
    advice.allPasses.beforeUs = beforeUs;
    advice.allPasses.afterUs = beforeUs;
    if (passes.empty()) return;
    if (const std::optional<Model> after = applied(model, passes, advice.allPasses.error))
        advice.allPasses.afterUs = estimateUs(*after, chip, options);
}

}  // namespace npuwb::advisor
