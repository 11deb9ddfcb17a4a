// Pre-quantization optimization: the float model is simplified through the proven Optimizer before calibration,
// so the QDQ model quantizes what the NPU will run (one Conv instead of Conv + BatchNorm + Mul + Add, one HardSwish
// instead of four elementwise ops) at an opset with per-channel QuantizeLinear. See Quantizer.h for the passes.
#include <nlohmann/json.hpp>

#include "npuwb/Optimizer.h"
#include "npuwb/Quantizer.h"
#include "npuwb/Error.h"

namespace npuwb::quant {

namespace {
constexpr int64_t kPerChannelOpset = 13;
}

std::vector<std::string> preparationPasses(int64_t opset) {
    std::vector<std::string> passes{"remove_identity", "constant_folding", "fold_batchnorm", "fold_affine",
                                    "fuse_hardswish",  "fuse_layernorm",   "dead_code_elimination"};
    if (opset < kPerChannelOpset) passes.insert(passes.begin(), "upgrade_opset");
    return passes;
}

std::string Preparation::summary() const {
    if (!ran) return "pre-quantization optimization skipped: " + skipped;
    std::string s = "pre-quantization optimization: " + std::to_string(nodesBefore) + " -> " +
                    std::to_string(nodesAfter) + " nodes";
    if (opsetAfter != opsetBefore)
        s += ", opset " + std::to_string(opsetBefore) + " -> " + std::to_string(opsetAfter);
    std::string list;
    for (const auto& [pass, count] : rewrites) list += (list.empty() ? "" : ", ") + pass + " " + std::to_string(count);
    s += list.empty() ? " (nothing to rewrite)" : " (" + list + ")";
    if (!rolledBack.empty()) s += "; " + std::to_string(rolledBack.size()) + " rewrite(s) rolled back by the proof";
    s += "; proven on " + proofBackend;
    return s;
}

std::string Preparation::json() const {
    nlohmann::json j = {{"ran", ran}};
    if (!ran) {
        j["skipped"] = skipped;
        return j.dump();
    }
    j["opset"] = {opsetBefore, opsetAfter};
    j["nodes"] = {nodesBefore, nodesAfter};
    j["rewrites"] = rewrites;
    j["rolledBack"] = rolledBack;
    j["proofBackend"] = proofBackend;
    return j.dump();
}

Model prepareForQuantization(const Model& floatModel, const SampleSource& samples, const ExecutorOptions& executor,
                             Preparation& report) {
    report = Preparation{};
    report.opsetBefore = report.opsetAfter = floatModel.opset("");
    report.nodesBefore = report.nodesAfter = floatModel.graph.nodes.size();
    passes::OptimizerOptions options;
    options.passes = preparationPasses(floatModel.opset(""));
    options.proof.executor = executor;
    report.proofBackend = resolveBackendName(executor.backend);
    // The proof runs on one random input set and on the first calibration sample (real value ranges).
    if (samples.size() > 0) {
        Sample first = samples.load(0);
        for (const auto& [name, t] : first.inputs) options.proof.inputShapes[name] = t.shape();
        options.proof.calibrationSets.push_back(std::move(first.inputs));
    }
    passes::OptimizeResult r;
    try {
        r = passes::optimize(floatModel, options);
    } catch (const Error& e) {
        report.skipped = e.what();
        return floatModel;
    }
    if (!r.endToEnd.passed) {  // every rewrite was proven; a drift of many small ones still must not pass silently
        report.skipped = "the optimized model differs from the original beyond the tolerance: " + r.endToEnd.failure;
        return floatModel;
    }
    report.ran = true;
    report.opsetAfter = r.model.opset("");
    report.nodesAfter = r.model.graph.nodes.size();
    for (const auto& a : r.applied) ++report.rewrites[a.pass];
    for (const auto& a : r.rolledBack) report.rolledBack.push_back(a.error);
    return r.model;
}

}  // namespace npuwb::quant
