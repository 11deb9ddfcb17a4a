// Calibration: stream the samples through the float model, watching the observed activations (a backend shows each
// one in place, in its own layout, instead of copying it out as an extra output; scalar Mul/Add results are computed
// from their input instead) and reduce each value to a clipping range with the chosen observer.
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <optional>
#include <set>
#include <thread>

#include "passes/GraphEdit.h"
#include "quant/Observer.h"
#include "quant/QuantGraph.h"
#include "quant/StreamingHistogram.h"
#include "npuwb/Quantizer.h"
#include "quant/WeightRounding.h"
#include "runtime/BackendPlan.h"
#include "npuwb/Session.h"
#include "npuwb/ProcessMemory.h"

namespace npuwb::quant {

std::vector<std::string> quantizableActivations(const Model& model) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    const Graph& g = model.graph;
    const detail::QuantRoles roles(g);
    for (size_t i : g.topologicalOrder()) {
        const Node& n = g.nodes[i];
        // Kept ops never take int8 inputs: nothing to observe (a mask's -3.4e38 would only stretch histograms).
        const detail::OpRole role = roles.role(n);
        if (role == detail::OpRole::None || role == detail::OpRole::Kept) continue;
        for (const auto& v : roles.activationInputs(n))
            if (seen.insert(v).second) out.push_back(v);
    }
    return out;
}

std::vector<std::string> quantizableNodes(const Model& model) {
    std::vector<std::string> out;
    const Graph& g = model.graph;
    const detail::QuantRoles roles(g);
    for (size_t i : g.topologicalOrder())
        if (roles.role(g.nodes[i]) != detail::OpRole::None) out.push_back(g.nodes[i].layerName());
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

// An observed value that is another value times or plus a scalar constant (Paddle's learnable affine blocks after
// each HardSwish: a third of PP-OCRv4 det's observed values). Its statistics are computed from that source tensor
// instead of watching it too: each watched value costs the backend a fused kernel and a pass over its elements.
// The steps round to float one op at a time, exactly as the graph's Mul and Add do.
struct AffineStep {
    bool multiply = false;
    float constant = 0.0f;
};
struct DerivedValue {
    const std::string* value = nullptr;
    std::string source;  // a fetched value (model output or graph input)
    std::vector<AffineStep> steps;
};
// An observed value that is a nearest-neighbour upsampling of another observed value by whole factors (the FPN
// Resizes of PP-OCRv4 det): every source element appears the same number of times, so its range and (normalised)
// histogram are the source's. It takes no extra output and no per-sample work.
struct ReplicatedValue {
    std::string value, source;
};

const Tensor* scalarF32Constant(const Graph& g, const std::string& name) {
    const Tensor* t = passes::constantOf(g, name);
    return t && t->dtype() == DType::F32 && t->numel() == 1 ? t : nullptr;
}

/// Whether Resize node `n` repeats each input element a whole number of times per axis: nearest, asymmetric
/// coordinates, floor rounding (input index = floor(output index / factor)) and output dims whole multiples of
/// the input dims, with constant scales (if given) equal to those factors.
bool isWholeFactorNearestResize(const Graph& g, const Node& n) {
    if (n.opType != "Resize" || !n.domain.empty() || n.inputs.empty() || n.outputs.size() != 1 ||
        n.attrString("mode", "nearest") != "nearest" ||
        n.attrString("coordinate_transformation_mode", "half_pixel") != "asymmetric" ||
        n.attrString("nearest_mode", "round_prefer_floor") != "floor")
        return false;
    const ValueInfo* in = g.findValueInfo(n.inputs[0]);
    const ValueInfo* out = g.findValueInfo(n.outputs[0]);
    if (!in || !out || !in->type.shape || !out->type.shape || in->type.shape->size() != out->type.shape->size())
        return false;
    std::vector<float> factors;
    for (size_t d = 0; d < in->type.shape->size(); ++d) {
        const Dim a = (*in->type.shape)[d], b = (*out->type.shape)[d];
        if (!a.known() || !b.known() || a.value == 0 || b.value % a.value != 0) return false;
        factors.push_back(static_cast<float>(b.value / a.value));
    }
    if (n.inputs.size() >= 3 && !n.inputs[2].empty()) {  // scales (opset 11+: input 2; sizes, input 3, need none)
        const Tensor* scales = passes::constantOf(g, n.inputs[2]);
        if (!scales) return false;
        if (scales->numel() != 0) {
            if (scales->dtype() != DType::F32 || scales->numel() != static_cast<int64_t>(factors.size())) return false;
            for (size_t d = 0; d < factors.size(); ++d)
                if (scales->values<float>()[d] != factors[d]) return false;
        }
    }
    return true;
}

/// Splits `values` into the ones the model must output, the ones derived from a fetched value by scalar steps and
/// the ones that replicate another observed value.
void planObservation(const Graph& g, const std::vector<std::string>& values, std::vector<std::string>& fetched,
                     std::vector<DerivedValue>& derived, std::vector<ReplicatedValue>& replicated) {
    const std::set<std::string> observed(values.begin(), values.end());
    std::set<std::string> free;  // present in every run's outputs anyway
    for (const auto& i : g.inputs) free.insert(i.name);
    for (const auto& o : g.outputs) free.insert(o.name);
    std::map<std::string, DerivedValue> chains;  // every derivable value, observed or not (chains pass through)
    std::map<std::string, std::string> copies;   // observed value -> observed value it replicates
    for (size_t i : g.topologicalOrder()) {
        const Node& n = g.nodes[i];
        if (isWholeFactorNearestResize(g, n) && observed.count(n.inputs[0]) && observed.count(n.outputs[0]) &&
            !free.count(n.outputs[0])) {
            copies[n.outputs[0]] = n.inputs[0];
            continue;
        }
        if (!n.domain.empty() || (n.opType != "Mul" && n.opType != "Add") || n.inputs.size() != 2 ||
            n.outputs.size() != 1 || n.outputs[0].empty() || free.count(n.outputs[0]))
            continue;
        const Tensor* c = scalarF32Constant(g, n.inputs[1]);
        std::string input = n.inputs[0];
        if (!c) {
            c = scalarF32Constant(g, n.inputs[0]);
            input = n.inputs[1];
        }
        if (!c || input.empty() || g.initializers.count(input)) continue;
        DerivedValue d;
        if (auto it = chains.find(input); it != chains.end()) d = it->second;
        else if (copies.count(input)) continue;  // never fetched: nothing to compute from
        else if (free.count(input) || observed.count(input)) d.source = input;
        else continue;
        d.steps.push_back({n.opType == "Mul", c->values<float>()[0]});
        chains[n.outputs[0]] = std::move(d);
    }
    for (const auto& v : values) {
        if (copies.count(v)) continue;
        auto it = chains.find(v);
        if (it == chains.end()) {
            fetched.push_back(v);
            continue;
        }
        it->second.value = &v;
        derived.push_back(it->second);
    }
    // Sources before the values that copy them (a copy of a copy reads the filled-in stats).
    for (size_t i : g.topologicalOrder())
        for (const auto& out : g.nodes[i].outputs)
            if (auto it = copies.find(out); it != copies.end()) replicated.push_back({it->first, it->second});
}

/// The exact finite range of `steps` applied elementwise to values with finite range `r`: x*c and x+c round
/// monotonically (non-decreasing; x*c non-increasing for c < 0), so the ends map to the ends. Nullopt when an
/// end overflows: the caller then computes the values.
std::optional<FiniteRange> mapRange(FiniteRange r, const std::vector<AffineStep>& steps) {
    for (const AffineStep& s : steps) {
        if (s.multiply) {
            r.lo *= s.constant;
            r.hi *= s.constant;
            if (r.lo > r.hi) std::swap(r.lo, r.hi);
        } else {
            r.lo += s.constant;
            r.hi += s.constant;
        }
        if (!std::isfinite(r.lo) || !std::isfinite(r.hi)) return std::nullopt;
    }
    return r;
}

/// `steps` applied to `values`, in place.
void applySteps(std::vector<float>& values, const std::vector<AffineStep>& steps) {
    float* o = values.data();
    for (const AffineStep& s : steps) {
        const float c = s.constant;
        if (s.multiply)
            for (size_t k = 0; k < values.size(); ++k) o[k] *= c;
        else
            for (size_t k = 0; k < values.size(); ++k) o[k] += c;
    }
}

/// One worker's view of the values a run produces: statistics of each fetched value, and of the values derived
/// from it, while its elements are at hand (a backend shows them in place, in its own layout).
class WorkerObserver : public ValueObserver {
public:
    WorkerObserver(std::map<std::string, ValueStats>& table, const std::set<std::string>& fetched,
                   const std::map<std::string, std::vector<const DerivedValue*>>& derivedFrom)
        : table_(table), fetched_(fetched), derivedFrom_(derivedFrom) {}

    void observe(const std::string& name, std::span<const float> elements) override {
        auto derived = derivedFrom_.find(name);
        const bool hasDerived = derived != derivedFrom_.end();
        std::optional<FiniteRange> known;
        if (fetched_.count(name)) known = table_.at(name).add(elements, hasDerived ? &sourceSample_ : nullptr);
        if (!hasDerived) return;
        const FiniteRange sourceRange = known ? *known : finiteRange(elements);
        static const bool slow = std::getenv("NPUWB_SLOW_DERIVED");
        for (const DerivedValue* d : derived->second) {
            ValueStats& stats = table_.at(*d->value);
            if (const auto r = sourceRange.any && !slow ? mapRange(sourceRange, d->steps) : std::nullopt) {
                if (known) {
                    scratch_ = sourceSample_;  // the elements the source's own histogram took
                } else {
                    const std::span<const float> sample = ValueStats::histogramSample(elements, scratch_);
                    if (sample.data() != scratch_.data()) scratch_.assign(sample.begin(), sample.end());
                }
                applySteps(scratch_, d->steps);
                stats.add(*r, scratch_);
            } else {  // nothing finite, or an end overflows: compute every value
                scratch_.assign(elements.begin(), elements.end());
                applySteps(scratch_, d->steps);
                stats.add(std::span<const float>(scratch_));
            }
        }
    }

private:
    std::map<std::string, ValueStats>& table_;
    const std::set<std::string>& fetched_;
    const std::map<std::string, std::vector<const DerivedValue*>>& derivedFrom_;
    std::vector<float> sourceSample_, scratch_;  // reused every value and sample
};

}  // namespace

Calibration calibrate(const Model& floatModel, const SampleSource& samples, const QuantizeOptions& options,
                      const QuantizeControl& control) {
    const auto start = std::chrono::steady_clock::now();
    const size_t count = options.maxSamples ? std::min(options.maxSamples, samples.size()) : samples.size();
    if (count == 0) failInput("calibration needs at least one sample");
    const std::vector<std::string> values = quantizableActivations(floatModel);
    std::vector<std::string> fetched;
    std::vector<DerivedValue> derived;
    std::vector<ReplicatedValue> replicated;
    planObservation(floatModel.graph, values, fetched, derived, replicated);
    const std::set<std::string> fetchedSet(fetched.begin(), fetched.end());
    std::map<std::string, std::vector<const DerivedValue*>> derivedFrom;
    for (const auto& d : derived) derivedFrom[d.source].push_back(&d);

    // The run watches what it observes (no extra model outputs: a backend shows each value in place); graph
    // inputs are observed from the sample.
    std::set<std::string> graphInputs;
    for (const auto& in : floatModel.graph.inputs) graphInputs.insert(in.name);
    detail::SampleRunOptions run;
    run.executor = options.executor;
    run.cancel = control.cancel;
    for (const auto& v : fetched)
        if (!graphInputs.count(v)) run.watched.insert(v);
    for (const auto& [source, list] : derivedFrom)
        if (!graphInputs.count(source)) run.watched.insert(source);
    const size_t workers = detail::workerCount(run, count);

    // One pass: min/max and (histogram observers) a histogram whose range grows with the data, one table per
    // worker (merged after, no locks in the hot loop).
    const bool needsHistogram = options.observer != ObserverKind::MinMax;
    const bool absolute = options.observer == ObserverKind::KL;
    const size_t bins = static_cast<size_t>(std::max(options.histogramBins, 16));
    std::vector<std::map<std::string, ValueStats>> perWorker(workers);
    for (auto& table : perWorker)
        for (const auto& v : values) table.emplace(v, needsHistogram ? ValueStats(bins, absolute) : ValueStats());
    std::vector<std::unique_ptr<WorkerObserver>> observers;
    for (auto& table : perWorker) observers.push_back(std::make_unique<WorkerObserver>(table, fetchedSet, derivedFrom));
    run.observerOf = [&](size_t w) -> ValueObserver* { return observers[w].get(); };
    if (control.progress) run.progress = [&](size_t d, size_t t) { control.progress("calibrate", d, t); };
    {
        ReuseFreedBlocks reuse;
        detail::forEachSample(floatModel, samples, count, run, [&](size_t w, size_t, std::map<std::string, Tensor>& out) {
            for (const auto& name : graphInputs) {
                if (!fetchedSet.count(name) && !derivedFrom.count(name)) continue;
                auto it = out.find(name);
                if (it != out.end() && it->second.dtype() == DType::F32) observers[w]->observe(name, floats(it->second));
            }
        });
    }
    std::map<std::string, ValueStats> merged = std::move(perWorker[0]);
    for (size_t w = 1; w < workers; ++w)
        for (auto& [v, stats] : perWorker[w]) merged[v].merge(stats);
    for (const auto& r : replicated) merged.at(r.value) = merged.at(r.source);

    Calibration cal;
    cal.observer = options.observer;
    cal.samples = count;
    cal.backend = resolveBackendName(options.executor.backend);
    // Observer search per value (KL scans every threshold) and the data set hash (reads every sample file again)
    // as tasks the workers take in turn: uneven values no longer leave a worker idle.
    std::vector<std::pair<const std::string*, const ValueStats*>> items;
    for (const auto& [v, stats] : merged)
        if (stats.range.seen) items.emplace_back(&v, &stats);
    std::vector<ActivationRange> chosen(items.size());
    std::vector<std::exception_ptr> errors(workers);
    std::atomic<size_t> nextTask{0};
    auto choose = [&](size_t w) {
        try {
            for (size_t task = nextTask++; task <= items.size(); task = nextTask++) {
                if (task == 0) cal.datasetHash = samples.contentHash();
                else chosen[task - 1] = chooseRange(*items[task - 1].second, options);
            }
        } catch (...) {
            errors[w] = std::current_exception();
        }
    };
    std::vector<std::thread> pool;
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(choose, w);
    choose(0);
    for (auto& t : pool) t.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    for (size_t k = 0; k < items.size(); ++k) cal.ranges[*items[k].first] = chosen[k];
    if (options.weightRounding == WeightRounding::Gptq && options.scheme != Scheme::FP16) {
        CorrelationOptions co;
        co.samples = std::max<size_t>(1, std::min(options.roundingSamples, count));
        co.executor = options.executor;
        co.cancel = control.cancel;
        if (control.progress) co.progress = [&](size_t d, size_t t) { control.progress("rounding", d, t); };
        cal.weightCorrelations = collectInputCorrelations(floatModel, samples, co);
        cal.weightRounding = WeightRounding::Gptq;
    }
    cal.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return cal;
}

double timeInference(const Model& floatModel, const SampleSource& samples, const QuantizeOptions& options,
                     const QuantizeControl& control) {
    const auto start = std::chrono::steady_clock::now();
    const size_t count = options.maxSamples ? std::min(options.maxSamples, samples.size()) : samples.size();
    detail::SampleRunOptions run;
    run.executor = options.executor;
    run.cancel = control.cancel;
    if (control.progress) run.progress = [&](size_t d, size_t t) { control.progress("inference", d, t); };
    ReuseFreedBlocks reuse;  // as calibration does: the comparison is about the extra work, not the allocator
    detail::forEachSample(floatModel, samples, count, run, [](size_t, size_t, std::map<std::string, Tensor>&) {});
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace npuwb::quant
