// quantizeModel: calibration, optional auto-hybrid precision search, QDQ build. Auto-hybrid ranks layers by a
// cheap sensitivity proxy measured for every layer in one pass per sample: the cosine of the layer's own output
// when it alone is quantized with float inputs ("single" of the accuracy analysis), per estimated latency cost of
// the higher precision (cost model, chip profile). It then verifies on the whole model: a binary search for the
// shortest prefix of that ranking whose output cosine meets the target (a few full-model evaluations instead of
// one per layer).
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "npuwb/ChipProfile.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Error.h"
#include "npuwb/CostModel.h"
#include "npuwb/Accuracy.h"
#include "quant/OutputAgreement.h"
#include "quant/QuantGraph.h"
#include "npuwb/Quantizer.h"
#include "npuwb/Session.h"

namespace npuwb::quant {

namespace {

/// Float outputs of the first samples, kept for repeated comparisons (few samples: small).
struct Reference {
    std::vector<std::map<std::string, Tensor>> outputs;
};

Reference referenceOutputs(const Model& model, const SampleSource& samples, size_t count,
                           const ExecutorOptions& executor, const std::atomic<bool>* cancel) {
    Reference r;
    r.outputs.resize(count);
    const detail::SampleRunOptions run{.executor = executor, .cancel = cancel};
    // Only the graph outputs: forEachSample also hands over the sample's inputs, which must not enter the cosine.
    detail::forEachSample(model, samples, count, run, [&](size_t, size_t i, std::map<std::string, Tensor>& out) {
        for (const auto& o : model.graph.outputs)
            if (auto it = out.find(o.name); it != out.end()) r.outputs[i].emplace(o.name, std::move(it->second));
    });
    return r;
}

/// Each graph output against the reference, per sample (OutputAgreement.h): a verdict takes the worst row.
std::vector<AccuracyOutput> agreementWith(const Reference& ref, const Model& reference, const Model& candidate,
                                          const SampleSource& samples, const ExecutorOptions& executor,
                                          const std::atomic<bool>* cancel) {
    detail::OutputAgreementAccumulator agreement(ref.outputs.size());
    const detail::SampleRunOptions run{.executor = executor, .cancel = cancel};
    detail::forEachSample(candidate, samples, ref.outputs.size(), run,
                          [&](size_t, size_t i, std::map<std::string, Tensor>& out) {
                              for (const auto& [name, t] : ref.outputs[i])
                                  if (auto it = out.find(name); it != out.end()) agreement.add(i, name, t, it->second);
                          });
    std::vector<std::string> names;
    for (const auto& o : reference.graph.outputs) names.push_back(o.name);
    return agreement.summarize(names);
}

/// Estimated per-layer latency (us) by node name for a dtype, empty when the cost model cannot estimate.
std::map<std::string, double> layerCosts(const Model& model, const std::string& chip, const std::string& dtype) {
    std::map<std::string, double> out;
    try {
        EstimateOptions eo;
        eo.dtype = dtype;
        Report r = estimateModel(model, findChipProfile(chip), eo);
        for (const auto& l : r.layers) out[l.fullName] += l.timeUs;
    } catch (const Error&) {
        out.clear();  // auto-hybrid then ranks by sensitivity alone
    }
    return out;
}

/// A copy whose graph inputs with symbolic or unknown dims take the first sample's shapes (shapes re-inferred), so
/// every value has a concrete shape: ONNX's opset converter, the cost model and backend plans need them. Unchanged
/// (nullopt) when every input is already concrete.
std::optional<Model> withSampleShapes(const Model& model, const SampleSource& samples, std::vector<std::string>& notes) {
    std::set<std::string> symbolic;
    for (const auto& in : model.graph.inputs) {
        if (model.graph.initializers.count(in.name) || in.type.kind != ValueType::Kind::Tensor) continue;
        bool concrete = in.type.shape.has_value();
        if (concrete)
            for (const auto& d : *in.type.shape) concrete = concrete && d.known();
        if (!concrete) symbolic.insert(in.name);
    }
    if (symbolic.empty() || samples.size() == 0) return std::nullopt;
    const Sample first = samples.load(0);
    Model out = model;
    for (auto& in : out.graph.inputs) {
        auto t = first.inputs.find(in.name);
        if (!symbolic.count(in.name) || t == first.inputs.end()) continue;
        SymShape fixed;
        for (int64_t d : t->second.shape()) fixed.push_back(Dim::of(d));
        in.type.shape = fixed;
        notes.push_back("input '" + in.name + "' fixed to " + shapeToString(t->second.shape()) +
                        ", the calibration samples' shape");
    }
    // Inferred types of the symbolic model would mask the concrete ones: drop them and infer again.
    out.graph.valueInfo.clear();
    for (auto& o : out.graph.outputs) o.type.shape.reset();
    Model reshaped = loadModelFromBytes(serializeModel(out), ".", model.sourcePath.empty() ? "model" : model.sourcePath);
    reshaped.sourcePath = model.sourcePath;
    return reshaped;
}

}  // namespace

std::vector<AccuracyOutput> compareOutputs(const Model& reference, const Model& candidate, const SampleSource& samples,
                                           size_t maxSamples, const ExecutorOptions& executor,
                                           const std::atomic<bool>* cancel) {
    const size_t count = std::min(maxSamples ? maxSamples : samples.size(), samples.size());
    Reference ref = referenceOutputs(reference, samples, count, executor, cancel);
    return agreementWith(ref, reference, candidate, samples, executor, cancel);
}

double outputCosine(const Model& reference, const Model& candidate, const SampleSource& samples, size_t maxSamples,
                    const ExecutorOptions& executor, const std::atomic<bool>* cancel) {
    return detail::worstCosine(compareOutputs(reference, candidate, samples, maxSamples, executor, cancel));
}

Model floatReferenceFor(const Model& floatModel, const Model& quantModel, const SampleSource& samples,
                        const ExecutorOptions& executor, std::vector<std::string>& notes) {
    auto meta = quantModel.metadata.find("npuwb.quant.prepare");
    bool prepared = false;
    if (meta != quantModel.metadata.end()) {
        try {
            const nlohmann::json j = nlohmann::json::parse(meta->second);
            prepared = j.is_object() && j.value("ran", false);
        } catch (const nlohmann::json::exception&) {
            notes.push_back("the quantized model's npuwb.quant.prepare metadata is not JSON: float model used as given");
        }
    }
    if (!prepared) return floatModel;
    Model reference = floatModel;
    if (auto fixed = withSampleShapes(floatModel, samples, notes)) reference = std::move(*fixed);
    Preparation report;
    reference = prepareForQuantization(reference, samples, executor, report);
    notes.push_back("float reference prepared as the quantizer prepared it: " + report.summary());
    return reference;
}

static QuantizeResult quantizeConverted(const Model& floatModel, const SampleSource& samples, const QuantizeOptions& options,
                                 const QuantizeControl& control, QuantizeResult result);

QuantizeResult quantizeModel(const Model& inputModel, const SampleSource& samples, const QuantizeOptions& options,
                             const QuantizeControl& control) {
    if (options.scheme == Scheme::W4A16 && (options.groupSize < 32 || options.groupSize > 256))
        failInput("w4a16 group size must be 32..256, got " + std::to_string(options.groupSize));
    QuantizeResult result;
    QuantizeOptions adapted = options;
    Model floatModel = inputModel;
    if (auto fixed = withSampleShapes(inputModel, samples, result.notes)) floatModel = std::move(*fixed);
    // Pre-quantization optimization (Quantizer.h): folds, fusions and the opset upgrade per-channel QDQ needs.
    if (options.prepare) {
        const Model before = floatModel;
        floatModel = prepareForQuantization(before, samples, options.executor, result.preparation);
        result.notes.push_back(result.preparation.summary());
        if (!options.overrides.empty()) {
            const std::vector<std::string> was = quantizableNodes(before), now = quantizableNodes(floatModel);
            const std::set<std::string> wasSet(was.begin(), was.end()), nowSet(now.begin(), now.end());
            for (const auto& [name, p] : options.overrides)
                if (wasSet.count(name) && !nowSet.count(name))
                    failInput("precision override: layer '" + name + "' was folded into another layer by the " +
                              "pre-quantization optimization; name the layer it joined, or turn the optimization off");
        }
    } else {
        result.preparation.skipped = "turned off";
    }
    // QDQ per-axis needs opset 13: convert once here rather than per candidate model (the preparation normally
    // did). When ONNX's converter cannot adapt the model, opset 10..12 still has per-tensor QuantizeLinear.
    if (floatModel.opset("") < 13) {
        try {
            floatModel = convertOpset(floatModel, 13);
        } catch (const Error& e) {
            if (options.scheme == Scheme::W4A16) throw;
            // Opset 12 keeps pre-13 Softmax semantics, so it converts where 13 cannot.
            if (floatModel.opset("") < 12) floatModel = convertOpset(floatModel, 12);
            adapted.perChannel = false;
            result.notes.push_back("opset " + std::to_string(floatModel.opset("")) +
                                   " used (conversion to 13 failed: " + e.what() + "); weights per tensor");
        }
    }
    result = quantizeConverted(floatModel, samples, adapted, control, std::move(result));
    result.model.metadata["npuwb.quant.prepare"] = result.preparation.json();
    return result;
}

static QuantizeResult quantizeConverted(const Model& floatModel, const SampleSource& samples, const QuantizeOptions& options,
                                 const QuantizeControl& control, QuantizeResult result) {
    result.calibration = calibrate(floatModel, samples, options, control);
    result.precisions = defaultPrecisions(floatModel, options);
    if (options.autoHybridCosine) {
        const double target = *options.autoHybridCosine;
        const size_t count = std::min(std::max<size_t>(options.evalSamples, 1), samples.size());
        const Reference ref =
            referenceOutputs(floatModel, samples, count, options.executor, control.cancel);
        // The target holds for the worst output on the worst evaluated sample.
        auto evaluateOutputs = [&](const std::map<std::string, Precision>& p) {
            return agreementWith(ref, floatModel, buildQdqModel(floatModel, result.calibration, options, p), samples,
                                 options.executor, control.cancel);
        };
        std::map<size_t, std::vector<AccuracyOutput>> outputsWithTop;  // prefix length -> per-output agreement
        HybridResult h;
        h.targetCosine = target;
        h.chip = options.chip;
        h.evalSamples = count;
        h.outputsBefore = outputsWithTop[0] = evaluateOutputs(result.precisions);
        h.cosineBefore = detail::worstCosine(h.outputsBefore);
        h.meanCosineBefore = detail::meanCosine(h.outputsBefore);
        // Candidates: layers at a lower precision than the hybrid one and not pinned by the user.
        std::vector<std::string> candidates;
        auto rank = [](Precision p) {  // by how much precision it keeps
            switch (p) {
                case Precision::Int4: return 0;
                case Precision::Int8: return 1;
                case Precision::Int16: return 2;
                case Precision::Fp16: return 3;
                case Precision::Float: return 4;
            }
            return 4;
        };
        for (const auto& [name, p] : result.precisions)
            if (!options.overrides.count(name) && rank(p) < rank(options.hybridPrecision)) candidates.push_back(name);
        std::map<std::string, double> lowCost = layerCosts(floatModel, options.chip, "int8");
        std::map<std::string, double> highCost = layerCosts(floatModel, options.chip, "fp16");
        for (const auto& v : lowCost) h.int8LatencyUs += v.second;
        const Graph& g = floatModel.graph;
        std::map<std::string, std::string> opOf;
        for (const auto& n : g.nodes) opOf[n.layerName()] = n.opType;
        if (h.cosineBefore < target) {
            // Sensitivity proxy for every layer at once: the accuracy analysis' "single" cosine of the all-low model.
            AccuracyOptions ao;
            ao.executor = options.executor;
            ao.maxSamples = count;
            AccuracyControl ac;
            ac.cancel = control.cancel;
            if (control.progress) ac.progress = [&](size_t d, size_t t) { control.progress("sensitivity", d, t); };
            const AccuracySection acc = analyzeAccuracy(
                floatModel, buildQdqModel(floatModel, result.calibration, options, result.precisions), samples, ao, ac);
            std::map<std::string, double> single;
            for (const auto& l : acc.layers)
                if (l.singleCosine) single[l.fullName] = *l.singleCosine;
                else single[l.fullName] = l.entireCosine;  // no one-node model (subgraphs): the entire cosine
            for (const auto& c : candidates) {
                auto it = single.find(c);
                HybridLayer layer{c, opOf[c], it != single.end() ? std::max(0.0, 1.0 - it->second) : 0.0, 0.0, false};
                if (lowCost.count(c) && highCost.count(c)) layer.extraCostUs = std::max(0.0, highCost[c] - lowCost[c]);
                h.layers.push_back(layer);
            }
            // Rank by sensitivity per cost (a small floor keeps free layers from dividing by zero).
            std::vector<HybridLayer> ranked = h.layers;
            std::stable_sort(ranked.begin(), ranked.end(), [](const HybridLayer& a, const HybridLayer& b) {
                return a.sensitivity / (a.extraCostUs + 1.0) > b.sensitivity / (b.extraCostUs + 1.0);
            });
            auto withTop = [&](size_t k) {
                std::map<std::string, Precision> p = result.precisions;
                for (size_t i = 0; i < k; ++i) p[ranked[i].node] = options.hybridPrecision;
                return p;
            };
            // Smallest k meeting the target (cosine grows with k in practice; binary search keeps evaluations few).
            auto cosineOf = [&](size_t k) {
                if (!outputsWithTop.count(k)) outputsWithTop[k] = evaluateOutputs(withTop(k));
                return detail::worstCosine(outputsWithTop[k]);
            };
            size_t lo = 0, hi = ranked.size();
            if (cosineOf(hi) >= target) {
                size_t step = 0;
                const size_t steps = static_cast<size_t>(std::ceil(std::log2(static_cast<double>(hi) + 1.0)));
                while (lo + 1 < hi) {
                    const size_t mid = (lo + hi) / 2;
                    if (cosineOf(mid) >= target) hi = mid;
                    else lo = mid;
                    if (control.progress) control.progress("hybrid", ++step, steps);
                }
            }
            result.precisions = withTop(hi);
            h.cosineAfter = cosineOf(hi);
            h.outputsAfter = outputsWithTop[hi];
            h.targetMet = h.cosineAfter >= target;
            for (size_t i = 0; i < hi; ++i)
                for (auto& l : h.layers)
                    if (l.node == ranked[i].node) l.kept = true;
            std::stable_sort(h.layers.begin(), h.layers.end(),
                             [](const HybridLayer& a, const HybridLayer& b) { return a.sensitivity > b.sensitivity; });
        } else {
            h.cosineAfter = h.cosineBefore;
            h.outputsAfter = h.outputsBefore;
            h.targetMet = true;
        }
        h.meanCosineAfter = detail::meanCosine(h.outputsAfter);
        h.hybridLatencyUs = h.int8LatencyUs;
        for (const auto& l : h.layers)
            if (l.kept) h.hybridLatencyUs += l.extraCostUs;
        result.hybrid = std::move(h);
    }
    result.model = buildQdqModel(floatModel, result.calibration, options, result.precisions);
    result.floatModel = floatModel;
    return result;
}

}  // namespace npuwb::quant
