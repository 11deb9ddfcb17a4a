// Per-layer accuracy analysis: float and QDQ model run side by side per sample (every compared value is an extra
// output, so backend segments cannot hide it); "single" re-runs each quantized node alone on the reference
// kernels with the float model's values as its inputs.
#include "npuwb/Accuracy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "quant/OutputAgreement.h"
#include "quant/QuantGraph.h"
#include "runtime/BackendPlan.h"
#include "npuwb/Session.h"

namespace npuwb::quant {

double cosineSimilarity(const float* a, const float* b, size_t n) {
    double ab = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < n; ++i) {
        ab += double(a[i]) * b[i];
        aa += double(a[i]) * a[i];
        bb += double(b[i]) * b[i];
    }
    if (aa == 0 && bb == 0) return 1.0;
    if (aa == 0 || bb == 0) return 0.0;
    return ab / std::sqrt(aa * bb);
}

double euclideanDistance(const float* a, const float* b, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    return std::sqrt(s);
}

double snrFromEnergies(double signalEnergy, double noiseEnergy) {
    if (noiseEnergy <= 0) return kSnrCapDb;
    if (signalEnergy <= 0) return -kSnrCapDb;
    return std::clamp(10.0 * std::log10(signalEnergy / noiseEnergy), -kSnrCapDb, kSnrCapDb);
}

namespace {

/// Adds the energies of reference and difference for an SNR over all samples.
void addEnergies(const float* reference, const float* other, size_t n, double& signal, double& noise) {
    for (size_t i = 0; i < n; ++i) {
        const double d = double(reference[i]) - double(other[i]);
        signal += double(reference[i]) * double(reference[i]);
        noise += d * d;
    }
}

const std::set<std::string> kChainOps = {"QuantizeLinear", "DequantizeLinear", "Cast", "Reshape", "Transpose"};

struct QuantizedAt {
    float scale = 1.0f;
    int64_t zeroPoint = 0;
    int32_t qmin = 0, qmax = 255;
};

/// A one-node model: the node plus its Q/DQ/Cast input chain down to float values and initializers.
struct SingleLayer {
    std::vector<std::string> floatInputs;
    std::unique_ptr<Session> session;
};

std::optional<SingleLayer> singleLayerModel(const Model& quant, size_t nodeIndex, const std::set<std::string>& floatValues,
                                            const std::map<std::string, size_t>& producer) {
    const Graph& g = quant.graph;
    auto m = std::make_shared<Model>();
    m->irVersion = quant.irVersion;
    m->opsetImports = quant.opsetImports;
    std::set<std::string> added, inputs;
    std::vector<size_t> chain;
    bool ok = true;
    std::function<void(const std::string&)> need = [&](const std::string& v) {
        if (v.empty() || added.count(v) || inputs.count(v)) return;
        if (auto it = g.initializers.find(v); it != g.initializers.end()) {
            m->graph.initializers[v] = it->second;
            added.insert(v);
            return;
        }
        auto p = producer.find(v);
        const bool chainNode = p != producer.end() && kChainOps.count(g.nodes[p->second].opType);
        if (!chainNode) {
            if (!floatValues.count(v)) { ok = false; return; }
            inputs.insert(v);
            m->graph.inputs.push_back(ValueInfo{v, {}});
            return;
        }
        added.insert(v);
        for (const auto& in : g.nodes[p->second].inputs) need(in);
        chain.push_back(p->second);
    };
    const Node& node = g.nodes[nodeIndex];
    for (const auto& in : node.inputs) need(in);
    if (!ok || node.attributes.size() != 0) {
        for (const auto& [k, a] : node.attributes)
            if (a.g || !a.graphs.empty()) ok = false;  // subgraph bodies may read anything
    }
    if (!ok) return std::nullopt;
    for (size_t i : chain) m->graph.nodes.push_back(g.nodes[i]);
    m->graph.nodes.push_back(node);
    for (const auto& o : node.outputs)
        if (!o.empty()) m->graph.outputs.push_back(ValueInfo{o, {}});
    SingleLayer s;
    for (const auto& in : m->graph.inputs) s.floatInputs.push_back(in.name);
    s.session = std::make_unique<Session>(m);
    return s;
}

struct LayerAccum {
    AccuracyLayer row;
    size_t quantIndex = 0;
    std::optional<QuantizedAt> q;
    std::optional<SingleLayer> single;
    double entireCos = 0, entireEu = 0, singleCos = 0, singleEu = 0;
    double entireSignal = 0, entireNoise = 0, singleSignal = 0, singleNoise = 0;
    size_t compared = 0, singleCompared = 0;
    double saturated = 0, elements = 0;
    bool seen = false;
};

}  // namespace

AccuracySection analyzeAccuracy(const Model& floatModel, const Model& quantModel, const SampleSource& samples,
                                const AccuracyOptions& options, const AccuracyControl& control) {
    const Graph& fg = floatModel.graph;
    const Graph& qg = quantModel.graph;
    for (const auto& in : fg.inputs)
        if (!fg.initializers.count(in.name) && !qg.findValueInfo(in.name))
            failInput("the quantized model has no input '" + in.name + "' (the float model has)");

    // Producers in the quantized model, and the QuantizeLinear applied to each value.
    std::map<std::string, size_t> producer;
    std::map<std::string, QuantizedAt> quantizedAt;
    for (size_t i = 0; i < qg.nodes.size(); ++i) {
        const Node& n = qg.nodes[i];
        for (const auto& o : n.outputs) producer[o] = i;
        if (n.opType == "QuantizeLinear" && n.inputs.size() >= 2 && qg.initializers.count(n.inputs[1])) {
            const Tensor& s = qg.initializers.at(n.inputs[1]);
            if (s.numel() != 1) continue;
            QuantizedAt q;
            q.scale = static_cast<float>(s.elementAsDouble(0));
            if (n.inputs.size() >= 3 && qg.initializers.count(n.inputs[2])) {
                const Tensor& z = qg.initializers.at(n.inputs[2]);
                q.zeroPoint = z.elementAsInt(0);
                if (z.dtype() == DType::I8) { q.qmin = -128; q.qmax = 127; }
            }
            quantizedAt[n.inputs[0]] = q;
        }
    }
    std::map<std::string, std::string> precisionOf;
    if (auto it = quantModel.metadata.find("npuwb.quant.precision"); it != quantModel.metadata.end()) {
        try {
            const nlohmann::json map = nlohmann::json::parse(it->second);  // items() must not outlive it
            for (const auto& [k, v] : map.items())
                if (v.is_string()) precisionOf[k] = v.get<std::string>();
        } catch (const nlohmann::json::exception&) {
            // A hand-edited map: fall back to "quantized"/"float" below.
        }
    }

    // Every float value of the float model (for "single" inputs), and the compared layers.
    std::set<std::string> floatValues;
    for (const auto& in : fg.inputs) floatValues.insert(in.name);
    std::vector<std::string> floatOutputs;
    std::vector<LayerAccum> layers;
    const std::vector<size_t> order = fg.topologicalOrder();
    for (size_t pos = 0; pos < order.size(); ++pos) {
        const Node& n = fg.nodes[order[pos]];
        for (const auto& o : n.outputs)
            if (!o.empty() && detail::isFloatValue(fg, o)) {
                floatValues.insert(o);
                floatOutputs.push_back(o);
            }
        if (n.opType == "Constant" || n.outputs.empty() || n.outputs[0].empty()) continue;
        const std::string& value = n.outputs[0];
        auto p = producer.find(value);
        if (p == producer.end() || !detail::isFloatValue(fg, value)) continue;
        LayerAccum a;
        a.row.id = static_cast<int64_t>(pos);
        a.row.fullName = n.layerName();
        a.row.opType = n.opType;
        a.row.value = value;
        a.quantIndex = p->second;
        auto prec = precisionOf.find(a.row.fullName);
        a.row.precision = prec != precisionOf.end() ? prec->second : "float";
        if (auto q = quantizedAt.find(value); q != quantizedAt.end()) {
            a.q = q->second;
            a.row.scale = q->second.scale;
            a.row.zeroPoint = q->second.zeroPoint;
        }
        layers.push_back(std::move(a));
    }
    if (layers.empty()) failInput("the quantized model shares no layer outputs with the float model");
    if (options.single)
        for (auto& a : layers) a.single = singleLayerModel(quantModel, a.quantIndex, floatValues, producer);

    std::vector<std::string> compared;
    for (const auto& a : layers) compared.push_back(a.row.value);
    const SessionOptions so{.executor = options.executor};
    Session floatSession(std::make_shared<const Model>(detail::withExtraOutputs(floatModel, floatOutputs)), so);
    Session quantSession(std::make_shared<const Model>(detail::withExtraOutputs(quantModel, compared)), so);

    const size_t count = options.maxSamples ? std::min(options.maxSamples, samples.size()) : samples.size();
    if (count == 0) failInput("accuracy analysis needs at least one sample");
    detail::OutputAgreementAccumulator outputAgreement(count);
    for (size_t i = 0; i < count; ++i) {
        if (control.cancel && control.cancel->load()) fail(ErrorKind::Cancelled, "accuracy analysis cancelled");
        Sample sample = samples.load(i);
        std::map<std::string, Tensor> fv, qv;
        try {
            fv = floatSession.runTensors(sample.inputs);
            qv = quantSession.runTensors(sample.inputs);
        } catch (const Error& e) {
            throw Error(e.kind(), sample.origin + ": " + e.what());
        }
        for (auto& [k, t] : sample.inputs) fv.emplace(k, t);
        for (auto& a : layers) {
            auto f = fv.find(a.row.value);
            auto q = qv.find(a.row.value);
            if (f == fv.end() || f->second.dtype() != DType::F32) continue;
            const Tensor& ft = f->second;
            const float* fd = ft.data<float>();
            const size_t n = static_cast<size_t>(ft.numel());
            float lo = fd[0], hi = fd[0];
            for (size_t k = 0; k < n; ++k) {
                lo = std::min(lo, fd[k]);
                hi = std::max(hi, fd[k]);
            }
            a.row.floatMin = a.seen ? std::min<double>(a.row.floatMin, lo) : lo;
            a.row.floatMax = a.seen ? std::max<double>(a.row.floatMax, hi) : hi;
            a.seen = true;
            if (a.q) {
                for (size_t k = 0; k < n; ++k) {
                    const double r = std::nearbyint(double(fd[k] / a.q->scale)) + double(a.q->zeroPoint);
                    if (r < a.q->qmin || r > a.q->qmax) a.saturated += 1;
                }
                a.elements += double(n);
            }
            if (q != qv.end() && q->second.dtype() == DType::F32 && q->second.numel() == ft.numel()) {
                a.entireCos += cosineSimilarity(fd, q->second.data<float>(), n);
                a.entireEu += euclideanDistance(fd, q->second.data<float>(), n);
                addEnergies(fd, q->second.data<float>(), n, a.entireSignal, a.entireNoise);
                ++a.compared;
            }
            if (a.single) {
                std::map<std::string, Tensor> in;
                bool complete = true;
                for (const auto& name : a.single->floatInputs) {
                    auto v = fv.find(name);
                    if (v == fv.end()) { complete = false; break; }
                    in[name] = v->second;
                }
                if (!complete) continue;
                auto out = a.single->session->runTensors(in);
                auto s = out.find(a.row.value);
                if (s != out.end() && s->second.dtype() == DType::F32 && s->second.numel() == ft.numel()) {
                    a.singleCos += cosineSimilarity(fd, s->second.data<float>(), n);
                    a.singleEu += euclideanDistance(fd, s->second.data<float>(), n);
                    addEnergies(fd, s->second.data<float>(), n, a.singleSignal, a.singleNoise);
                    ++a.singleCompared;
                }
            }
        }
        for (const auto& o : fg.outputs) {
            auto f = fv.find(o.name);
            auto q = qv.find(o.name);
            if (f != fv.end() && q != qv.end()) outputAgreement.add(i, o.name, f->second, q->second);
        }
        if (control.progress) control.progress(i + 1, count);
    }

    AccuracySection out;
    out.floatModel = floatModel.sourcePath;
    out.quantModel = quantModel.sourcePath;
    if (auto it = quantModel.metadata.find("npuwb.quant.scheme"); it != quantModel.metadata.end()) out.scheme = it->second;
    out.samples = static_cast<int64_t>(count);
    out.snrThresholdDb = options.snrThresholdDb;
    for (auto& a : layers) {
        if (!a.seen) continue;  // a value never computed at run time (folded constants)
        if (a.compared) {
            a.row.entireCosine = a.entireCos / double(a.compared);
            a.row.entireEuclidean = a.entireEu / double(a.compared);
            a.row.entireSnrDb = snrFromEnergies(a.entireSignal, a.entireNoise);
        }
        if (a.singleCompared) {
            a.row.singleCosine = a.singleCos / double(a.singleCompared);
            a.row.singleEuclidean = a.singleEu / double(a.singleCompared);
            a.row.singleSnrDb = snrFromEnergies(a.singleSignal, a.singleNoise);
        }
        // The layer's own noise when the single run measured it, else the noise accumulated up to it.
        const std::optional<double> ownSnr = a.row.singleSnrDb ? a.row.singleSnrDb : a.row.entireSnrDb;
        a.row.lowSnr = ownSnr && *ownSnr < options.snrThresholdDb;
        a.row.saturationRate = a.elements > 0 ? a.saturated / a.elements : 0.0;
        out.layers.push_back(std::move(a.row));
    }
    std::vector<std::string> outputNames;
    for (const auto& o : fg.outputs) outputNames.push_back(o.name);
    out.outputs = outputAgreement.summarize(outputNames);
    return out;
}

std::string accuracyToText(const AccuracySection& a) {
    std::string s;
    char line[1024];
    std::snprintf(line, sizeof line, "# float: %s\n# quantized: %s (%s), %lld sample(s)\n", a.floatModel.c_str(),
                  a.quantModel.c_str(), a.scheme.empty() ? "?" : a.scheme.c_str(), static_cast<long long>(a.samples));
    s += line;
    std::snprintf(line, sizeof line, "%-5s %-18s %-6s %-10s %-12s %-10s %-12s %-9s %-9s %-12s %-12s %-10s %-5s %-8s %-4s %s\n",
                  "ID", "OpType", "Prec", "entire_cos", "entire_eu", "single_cos", "single_eu", "entire_dB",
                  "single_dB", "float_min", "float_max", "scale", "zp", "satur%", "flag", "FullName");
    s += line;
    for (const auto& l : a.layers) {
        char single[64] = "-", singleEu[64] = "-", scale[64] = "-", zp[32] = "-";
        if (l.singleCosine) std::snprintf(single, sizeof single, "%.6f", *l.singleCosine);
        if (l.singleEuclidean) std::snprintf(singleEu, sizeof singleEu, "%.5g", *l.singleEuclidean);
        if (l.scale) std::snprintf(scale, sizeof scale, "%.4g", *l.scale);
        if (l.zeroPoint) std::snprintf(zp, sizeof zp, "%lld", static_cast<long long>(*l.zeroPoint));
        char entireDb[32] = "-", singleDb[32] = "-";
        if (l.entireSnrDb) std::snprintf(entireDb, sizeof entireDb, "%.1f", *l.entireSnrDb);
        if (l.singleSnrDb) std::snprintf(singleDb, sizeof singleDb, "%.1f", *l.singleSnrDb);
        std::snprintf(line, sizeof line,
                      "%-5lld %-18s %-6s %-10.6f %-12.5g %-10s %-12s %-9s %-9s %-12.5g %-12.5g %-10s %-5s %-8.4f %-4s %s\n",
                      static_cast<long long>(l.id), l.opType.c_str(), l.precision.c_str(), l.entireCosine,
                      l.entireEuclidean, single, singleEu, entireDb, singleDb, l.floatMin, l.floatMax, scale, zp,
                      100.0 * l.saturationRate, l.lowSnr ? "LOW" : "", l.fullName.c_str());
        s += line;
    }
    size_t low = 0;
    for (const auto& l : a.layers) low += l.lowSnr ? 1 : 0;
    std::snprintf(line, sizeof line, "# %zu layer(s) flagged LOW: own (single, else entire) SNR below %.1f dB\n", low,
                  a.snrThresholdDb);
    s += line;
    s += "\n# outputs (worst sample decides; mean beside it)\n";
    std::snprintf(line, sizeof line, "%-30s %-12s %-8s %-12s %-10s %-8s %-10s %s\n", "output", "worst_cos", "sample",
                  "mean_cos", "worst_dB", "sample", "snr_dB", "mean_eu");
    s += line;
    for (const auto& o : a.outputs) {
        std::snprintf(line, sizeof line, "%-30s %-12.6f %-8lld %-12.6f %-10.2f %-8lld %-10.2f %.5g\n", o.name.c_str(),
                      o.worstCosine, static_cast<long long>(o.worstCosineSample), o.cosine, o.worstSnrDb,
                      static_cast<long long>(o.worstSnrSample), o.snrDb, o.euclidean);
        s += line;
    }
    if (!a.outputs.empty()) {
        const auto worst = std::min_element(a.outputs.begin(), a.outputs.end(), [](const auto& x, const auto& y) {
            return x.worstCosine < y.worstCosine;
        });
        std::snprintf(line, sizeof line, "# worst output: %s, cosine %.6f on sample %lld (mean over outputs %.6f)\n",
                      worst->name.c_str(), worst->worstCosine, static_cast<long long>(worst->worstCosineSample),
                      detail::meanCosine(a.outputs));
        s += line;
    }
    return s;
}

}  // namespace npuwb::quant
