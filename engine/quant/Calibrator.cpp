// Calibration: stream the samples through the float model (with the observed activations as extra outputs, so
// backend segments keep them) and reduce each value to a clipping range with the chosen observer.
#include <chrono>
#include <cmath>
#include <exception>
#include <set>
#include <thread>

#include "quant/Observer.h"
#include "quant/QuantGraph.h"
#include "quant/StreamingHistogram.h"
#include "quant/Quantizer.h"
#include "runtime/BackendPlan.h"
#include "runtime/Session.h"

namespace npuwb::quant {

std::vector<std::string> quantizableActivations(const Model& model) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    const Graph& g = model.graph;
    for (size_t i : g.topologicalOrder()) {
        const Node& n = g.nodes[i];
        if (detail::opRole(n, g) == detail::OpRole::None) continue;
        for (const auto& v : detail::activationInputs(n, g))
            if (seen.insert(v).second) out.push_back(v);
    }
    return out;
}

std::vector<std::string> quantizableNodes(const Model& model) {
    std::vector<std::string> out;
    const Graph& g = model.graph;
    for (size_t i : g.topologicalOrder())
        if (detail::opRole(g.nodes[i], g) != detail::OpRole::None) out.push_back(nodeDisplayName(g.nodes[i]));
    return out;
}

namespace {

std::span<const float> floats(const Tensor& t) { return t.values<float>(); }

ActivationRange chooseRange(const ValueStats& stats, const QuantizeOptions& options) {
    constexpr int levels = 256;  // 8-bit activations
    const MinMax& mm = stats.range;
    ActivationRange r;
    r.observedMin = mm.min;
    r.observedMax = mm.max;
    r.min = std::min(mm.min, 0.0f);
    r.max = std::max(mm.max, 0.0f);
    if (!stats.withHistogram) return r;
    const Histogram h = stats.histogram.histogram();
    if (options.observer == ObserverKind::KL) {
        // KL is symmetric on |x|: a signed range gets half the asymmetric grid per side, but a non-negative one
        // (after Relu) gets the whole grid over [0, T], so Q must have all of its levels there.
        float t = klThreshold(h, mm.min >= 0.0f ? levels : levels / 2);
        // KL compares distribution shapes and ignores how far the clipped values lie. On spiky data (a text
        // line's background, one outlier channel) it clipped percents of all values: PP-OCRv4 rec decoded 0/100
        // lines, BlazeFace fell to 50%. So it never clips more than this share (rec 86/100, BlazeFace 97.5-98.5%).
        constexpr double kKlMaxClippedPercent = 0.01;
        t = std::max(t, percentileRange(h, 100.0 - kKlMaxClippedPercent).max);
        r.min = std::max(r.min, -t);
        r.max = std::min(r.max, t);
    } else {
        ClipRange c = options.observer == ObserverKind::MMSE ? mmseRange(h, levels) : percentileRange(h, options.percentile);
        r.min = std::min(std::max(r.min, c.min), 0.0f);
        r.max = std::max(std::min(r.max, c.max), 0.0f);
    }
    return r;
}

}  // namespace

Calibration calibrate(const Model& floatModel, const SampleSource& samples, const QuantizeOptions& options,
                      const QuantizeControl& control) {
    const auto start = std::chrono::steady_clock::now();
    const size_t count = options.maxSamples ? std::min(options.maxSamples, samples.size()) : samples.size();
    if (count == 0) failInput("calibration needs at least one sample");
    const std::vector<std::string> values = quantizableActivations(floatModel);
    const Model observed = detail::withExtraOutputs(floatModel, values);

    detail::SampleRunOptions run;
    run.backend = options.backend;
    run.threads = options.threads;
    run.cancel = control.cancel;
    const size_t workers = detail::workerCount(run, count);

    // One pass: min/max and (histogram observers) a histogram whose range grows with the data, one table per
    // worker (merged after, no locks in the hot loop).
    const bool needsHistogram = options.observer != ObserverKind::MinMax;
    const bool absolute = options.observer == ObserverKind::KL;
    const size_t bins = static_cast<size_t>(std::max(options.histogramBins, 16));
    std::vector<std::map<std::string, ValueStats>> perWorker(workers);
    for (auto& table : perWorker)
        for (const auto& v : values) table.emplace(v, needsHistogram ? ValueStats(bins, absolute) : ValueStats());
    if (control.progress) run.progress = [&](size_t d, size_t t) { control.progress("calibrate", d, t); };
    detail::forEachSample(observed, samples, count, run, [&](size_t w, size_t, std::map<std::string, Tensor>& out) {
        for (auto& [v, stats] : perWorker[w]) {
            auto it = out.find(v);
            if (it != out.end() && it->second.dtype() == DType::F32) stats.add(floats(it->second));
        }
    });
    std::map<std::string, ValueStats> merged = std::move(perWorker[0]);
    for (size_t w = 1; w < workers; ++w)
        for (auto& [v, stats] : perWorker[w]) merged[v].merge(stats);

    Calibration cal;
    cal.observer = options.observer;
    cal.samples = count;
    cal.datasetHash = samples.contentHash();
    cal.backend = resolveBackendName(options.backend);
    // Observer search per value (KL scans every threshold), spread over the same workers.
    std::vector<std::pair<const std::string*, const ValueStats*>> items;
    for (const auto& [v, stats] : merged)
        if (stats.range.seen) items.emplace_back(&v, &stats);
    std::vector<ActivationRange> chosen(items.size());
    std::vector<std::exception_ptr> errors(workers);
    auto choose = [&](size_t from) {
        try {
            for (size_t k = from; k < items.size(); k += workers) chosen[k] = chooseRange(*items[k].second, options);
        } catch (...) {
            errors[from] = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(choose, w);
    choose(0);
    for (auto& t : pool) t.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    for (size_t k = 0; k < items.size(); ++k) cal.ranges[*items[k].first] = chosen[k];
    cal.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return cal;
}

double timeInference(const Model& floatModel, const SampleSource& samples, const QuantizeOptions& options,
                     const QuantizeControl& control) {
    const auto start = std::chrono::steady_clock::now();
    const size_t count = options.maxSamples ? std::min(options.maxSamples, samples.size()) : samples.size();
    detail::SampleRunOptions run;
    run.backend = options.backend;
    run.threads = options.threads;
    run.cancel = control.cancel;
    if (control.progress) run.progress = [&](size_t d, size_t t) { control.progress("inference", d, t); };
    detail::forEachSample(floatModel, samples, count, run, [](size_t, size_t, std::map<std::string, Tensor>&) {});
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace npuwb::quant
