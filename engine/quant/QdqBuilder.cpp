// The QDQ rewrite: per quantizable node and precision, QuantizeLinear/DequantizeLinear on activation inputs,
// DequantizeLinear on int8/int4 weights and int32 biases, Cast pairs for fp16. See Quantizer.h for the rules.
#include <algorithm>
#include <climits>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "npuwb/ModelIO.h"
#include "passes/GraphEdit.h"
#include "quant/KeptOps.h"
#include "quant/Observer.h"
#include "quant/QuantGraph.h"
#include "npuwb/Quantizer.h"
#include "quant/WeightRounding.h"
#include "runtime/BackendPlan.h"

namespace npuwb::quant {

namespace {

constexpr int64_t kQdqOpset = 13;  // per-axis QuantizeLinear/DequantizeLinear
constexpr int64_t kOnnxFloat = 1, kOnnxFloat16 = 10;

Precision schemeDefault(Scheme s) {
    switch (s) {
        case Scheme::W8A8: return Precision::Int8;
        case Scheme::W8A16: return Precision::Int16;
        case Scheme::W4A16: return Precision::Int4;
        case Scheme::FP16: return Precision::Fp16;
    }
    return Precision::Int8;
}

/// Builds the rewritten node list; names derive from the value they convert, so they are stable and readable.
class QdqRewriter {
public:
    QdqRewriter(const Model& model, const Calibration& cal, const QuantizeOptions& options)
        : src_(model.graph), roles_(model.graph), cal_(cal), options_(options),
          activationType_(options.activationType == ActivationType::Int8 ? DType::I8 : DType::U8) {}

    const detail::QuantRoles& roles() const { return roles_; }

    std::vector<Node> nodes;
    std::map<std::string, Tensor> newInitializers;

    void rewrite(const Node& original, Precision p) {
        const detail::OpRole role = roles_.role(original);
        if (role == detail::OpRole::None || p == Precision::Float) {
            nodes.push_back(original);
            return;
        }
        Node n = original;
        if (role == detail::OpRole::Kept) {  // never int8 (KeptOps.h): the op's inputs rounded to fp16
            for (const auto& v : roles_.activationInputs(original)) {
                const std::string half = castPair(v);
                for (auto& in : n.inputs)
                    if (in == v) in = half;
            }
            nodes.push_back(std::move(n));
            return;
        }
        std::optional<QuantParams> inputParams;  // of input 0 when it is int8-quantized (bias scale)
        for (const auto& v : roles_.activationInputs(original)) {
            std::string replacement;
            if (p == Precision::Int8) {
                auto r = cal_.ranges.find(v);
                if (r == cal_.ranges.end()) continue;  // never observed as float: leave it
                QuantParams q = asymmetricParams(r->second.min, r->second.max, activationType_);
                replacement = activationQdq(v, q);
                if (!original.inputs.empty() && original.inputs[0] == v) inputParams = q;
            } else if (p == Precision::Fp16 || p == Precision::Int4) {
                replacement = castPair(v);
            } else {
                continue;  // Int16: activations stay float in the export (see Quantizer.h)
            }
            for (auto& in : n.inputs)
                if (in == v) in = replacement;
        }
        if (role == detail::OpRole::Weighted) {
            const detail::WeightInfo w = detail::weightInfo(original, src_);
            const std::string& weightName = original.inputs[static_cast<size_t>(w.weightInput)];
            const Tensor& weight = src_.initializers.at(weightName);
            if (p == Precision::Fp16) {
                n.inputs[static_cast<size_t>(w.weightInput)] = fp16Weight(weightName, weight);
            } else if (p == Precision::Int4) {
                n.inputs[static_cast<size_t>(w.weightInput)] = int4Weight(weightName, weight, w);
            } else {
                std::vector<float> scales;
                n.inputs[static_cast<size_t>(w.weightInput)] = int8Weight(weightName, weight, w, scales);
                if (p == Precision::Int8 && inputParams && w.biasInput >= 0) {
                    const std::string& biasName = original.inputs[static_cast<size_t>(w.biasInput)];
                    n.inputs[static_cast<size_t>(w.biasInput)] =
                        int32Bias(biasName, src_.initializers.at(biasName), inputParams->scale, scales);
                }
            }
        }
        nodes.push_back(std::move(n));
    }

private:
    /// The input correlation GPTQ rounds `name` with, when calibration measured one that fits the weight.
    const InputCorrelation* correlationOf(const std::string& name, const Tensor& w) const {
        auto it = cal_.weightCorrelations.find(name);
        if (it == cal_.weightCorrelations.end() || w.rank() < 2) return nullptr;
        const InputCorrelation& h = *it->second;
        const int64_t rowLen = w.rank() == 2 ? 0 : w.numel() / w.dim(0);
        if (rowLen ? h.k != rowLen : (h.k != w.dim(0) && h.k != w.dim(1))) return nullptr;
        return &h;
    }

    /// A weight viewed as [output rows, K]: as stored, or transposed for [K, N].
    struct RowsMajor {
        const Tensor& w;
        bool transposed;
        int64_t rows, k;
        std::vector<float> buffer;
        RowsMajor(const Tensor& weight, bool transposedForGroups)
            : w(weight), transposed(transposedForGroups && weight.rank() == 2),
              rows(transposed ? weight.dim(1) : weight.dim(0)), k(weight.numel() / std::max<int64_t>(1, rows)) {
            if (!transposed) return;
            buffer.resize(static_cast<size_t>(w.numel()));
            const float* s = w.data<float>();
            for (int64_t i = 0; i < k; ++i)
                for (int64_t j = 0; j < rows; ++j) buffer[static_cast<size_t>(j * k + i)] = s[i * rows + j];
        }
        const float* data() const { return transposed ? buffer.data() : w.data<float>(); }
        void scatter(const std::vector<int8_t>& r, int8_t* dst) const {
            if (!transposed) return void(std::copy(r.begin(), r.end(), dst));
            for (int64_t i = 0; i < k; ++i)
                for (int64_t j = 0; j < rows; ++j) dst[i * rows + j] = r[static_cast<size_t>(j * k + i)];
        }
    };

    const Graph& src_;
    const detail::QuantRoles roles_;
    const Calibration& cal_;
    const QuantizeOptions& options_;
    DType activationType_;
    std::map<std::string, std::string> done_;  // cache key -> converted value name

    std::string fresh(const std::string& base) {
        std::string name = base;
        for (int i = 2; src_.initializers.count(name) || newInitializers.count(name) || src_.findValueInfo(name) ||
                        usedNames_.count(name);
             ++i)
            name = base + "_" + std::to_string(i);
        usedNames_.insert(name);
        return name;
    }
    std::set<std::string> usedNames_;

    void addNode(const std::string& op, const std::string& name, std::vector<std::string> inputs,
                 std::string output, std::map<std::string, Attribute> attrs = {}) {
        Node n;
        n.opType = op;
        n.name = name;
        n.inputs = std::move(inputs);
        n.outputs = {std::move(output)};
        n.attributes = std::move(attrs);
        nodes.push_back(std::move(n));
    }

    std::string activationQdq(const std::string& v, const QuantParams& q) {
        const std::string key = "q8:" + v;
        if (auto it = done_.find(key); it != done_.end()) return it->second;
        const std::string scale = fresh(v + "_scale"), zero = fresh(v + "_zero_point");
        newInitializers[scale] = Tensor::scalar<float>(q.scale);
        newInitializers[zero] = activationType_ == DType::I8 ? Tensor::scalar<int8_t>(static_cast<int8_t>(q.zeroPoint))
                                                             : Tensor::scalar<uint8_t>(static_cast<uint8_t>(q.zeroPoint));
        const std::string quantized = fresh(v + "_quantized"), dequantized = fresh(v + "_dequantized");
        addNode("QuantizeLinear", fresh(v + "_QuantizeLinear"), {v, scale, zero}, quantized);
        addNode("DequantizeLinear", fresh(v + "_DequantizeLinear"), {quantized, scale, zero}, dequantized);
        return done_[key] = dequantized;
    }

    std::string castPair(const std::string& v) {
        const std::string key = "f16:" + v;
        if (auto it = done_.find(key); it != done_.end()) return it->second;
        const std::string half = fresh(v + "_fp16"), back = fresh(v + "_fp16_float");
        addNode("Cast", fresh(v + "_CastFp16"), {v}, half, {{"to", Attribute::ofInt(kOnnxFloat16)}});
        addNode("Cast", fresh(v + "_CastFloat"), {half}, back, {{"to", Attribute::ofInt(kOnnxFloat)}});
        return done_[key] = back;
    }

    std::string fp16Weight(const std::string& name, const Tensor& w) {
        const std::string key = "wf16:" + name;
        if (auto it = done_.find(key); it != done_.end()) return it->second;
        Tensor h(DType::F16, w.shape());
        const float* src = w.data<float>();
        Float16* dst = h.data<Float16>();
        for (int64_t i = 0; i < w.numel(); ++i) dst[i] = Float16(src[i]);
        const std::string stored = fresh(name + "_fp16"), out = fresh(name + "_fp16_float");
        newInitializers[stored] = h;
        addNode("Cast", fresh(name + "_CastFloat"), {stored}, out, {{"to", Attribute::ofInt(kOnnxFloat)}});
        return done_[key] = out;
    }

    std::string int8Weight(const std::string& name, const Tensor& w, const detail::WeightInfo& info,
                           std::vector<float>& scales) {
        const bool perChannel = options_.perChannel && info.channelAxis >= 0;
        const int64_t axis = perChannel ? info.channelAxis : 0;
        const int64_t channels = perChannel ? w.dim(axis) : 1;
        int64_t inner = 1;
        for (size_t d = static_cast<size_t>(axis) + 1; d < w.rank(); ++d) inner *= w.shape()[d];
        auto channelOf = [&](int64_t i) { return perChannel ? (i / inner) % channels : 0; };
        std::vector<float> absMax(static_cast<size_t>(channels), 0.0f);
        const float* src = w.data<float>();
        for (int64_t i = 0; i < w.numel(); ++i) {
            float& m = absMax[static_cast<size_t>(channelOf(i))];
            m = std::max(m, std::fabs(src[i]));
        }
        std::vector<QuantParams> q;
        scales.clear();
        for (float m : absMax) {
            q.push_back(symmetricParams(m, 127));
            scales.push_back(q.back().scale);
        }
        const std::string key = "w8:" + name + (perChannel ? ":pc" : ":pt");
        if (auto it = done_.find(key); it != done_.end()) return it->second;
        Tensor qw(DType::I8, w.shape());
        int8_t* dst = qw.data<int8_t>();
        if (const InputCorrelation* h = correlationOf(name, w)) {
            // Rows are output channels: [Cout, ...] as stored, [K, N] weights transposed there and back.
            const RowsMajor rows(w, info.transposedForGroups);
            const std::vector<int8_t> r = roundWithFeedback(
                rows.data(), rows.rows, rows.k,
                [&](int64_t row, int64_t) { return q[perChannel ? static_cast<size_t>(row) : 0].scale; }, -127, 127, *h);
            rows.scatter(r, dst);
        } else {
            for (int64_t i = 0; i < w.numel(); ++i)
                dst[i] = static_cast<int8_t>(quantizeValue(src[i], q[static_cast<size_t>(channelOf(i))], -127, 127));
        }
        const std::string stored = fresh(name + "_quantized"), scale = fresh(name + "_scale"),
                          zero = fresh(name + "_zero_point"), out = fresh(name + "_dequantized");
        newInitializers[stored] = qw;
        std::map<std::string, Attribute> attrs;
        if (perChannel) {
            newInitializers[scale] = Tensor::fromVector<float>({channels}, scales);
            newInitializers[zero] = Tensor(DType::I8, {channels});
            attrs["axis"] = Attribute::ofInt(axis);
        } else {
            newInitializers[scale] = Tensor::scalar<float>(scales[0]);
            newInitializers[zero] = Tensor::scalar<int8_t>(0);
        }
        addNode("DequantizeLinear", fresh(name + "_DequantizeLinear"), {stored, scale, zero}, out, attrs);
        return done_[key] = out;
    }

    std::string int32Bias(const std::string& name, const Tensor& b, float inputScale, const std::vector<float>& wScales) {
        const int64_t n = b.numel();
        std::vector<float> scales(static_cast<size_t>(n));
        for (int64_t c = 0; c < n; ++c) scales[static_cast<size_t>(c)] = inputScale * wScales[wScales.size() == 1 ? 0 : static_cast<size_t>(c)];
        Tensor qb(DType::I32, b.shape());
        const float* src = b.data<float>();
        int32_t* dst = qb.data<int32_t>();
        for (int64_t c = 0; c < n; ++c) {
            const double r = std::nearbyint(static_cast<double>(src[c]) / scales[static_cast<size_t>(c)]);
            dst[c] = static_cast<int32_t>(std::clamp(r, static_cast<double>(INT32_MIN), static_cast<double>(INT32_MAX)));
        }
        const std::string stored = fresh(name + "_quantized"), scale = fresh(name + "_scale"),
                          zero = fresh(name + "_zero_point"), out = fresh(name + "_dequantized");
        newInitializers[stored] = qb;
        if (wScales.size() == 1) {  // per-tensor weights: a scalar bias scale works below opset 13 too
            newInitializers[scale] = Tensor::scalar<float>(scales[0]);
            newInitializers[zero] = Tensor::scalar<int32_t>(0);
            addNode("DequantizeLinear", fresh(name + "_DequantizeLinear"), {stored, scale, zero}, out);
            return out;
        }
        newInitializers[scale] = Tensor::fromVector<float>({n}, scales);
        newInitializers[zero] = Tensor(DType::I32, {n});
        addNode("DequantizeLinear", fresh(name + "_DequantizeLinear"), {stored, scale, zero}, out,
                {{"axis", Attribute::ofInt(0)}});
        return out;
    }

    // int4 in [-8, 7] stored as int8, one scale per group of consecutive elements of a row (output channel).
    std::string int4Weight(const std::string& name, const Tensor& w, const detail::WeightInfo& info) {
        const std::string key = "w4:" + name;
        if (auto it = done_.find(key); it != done_.end()) return it->second;
        // Rows: output channels. [K, N] weights are transposed first so a row holds one output's K inputs.
        Tensor rowsMajor = w;
        Shape rowShape = w.shape();
        if (info.transposedForGroups && w.rank() == 2) {
            const int64_t k = w.dim(0), nOut = w.dim(1);
            rowsMajor = Tensor(DType::F32, {nOut, k});
            const float* s = w.data<float>();
            float* d = rowsMajor.data<float>();
            for (int64_t i = 0; i < k; ++i)
                for (int64_t j = 0; j < nOut; ++j) d[j * k + i] = s[i * nOut + j];
            rowShape = {nOut, k};
        }
        const int64_t rows = rowShape.empty() ? 1 : rowShape[0];
        const int64_t rowLen = rows > 0 ? rowsMajor.numel() / rows : 0;
        int64_t group = std::clamp<int64_t>(options_.groupSize, 1, std::max<int64_t>(rowLen, 1));
        if (rowLen % group != 0) group = rowLen;  // documented fallback: per channel
        const int64_t groups = rows * (rowLen / group);
        Tensor q(DType::I8, {groups, group});
        std::vector<float> scales(static_cast<size_t>(groups));
        const float* src = rowsMajor.data<float>();
        int8_t* dst = q.data<int8_t>();
        std::vector<QuantParams> params;
        for (int64_t gi = 0; gi < groups; ++gi) {
            float m = 0.0f;
            if (cal_.weightRounding == WeightRounding::Gptq) m = leastSquaresAbsMax(src + gi * group, group, 7);
            else
                for (int64_t k = 0; k < group; ++k) m = std::max(m, std::fabs(src[gi * group + k]));
            params.push_back(symmetricParams(m, 7));
            scales[static_cast<size_t>(gi)] = params.back().scale;
        }
        if (const InputCorrelation* h = correlationOf(name, w)) {
            const std::vector<int8_t> r = roundWithFeedback(
                src, rows, rowLen,
                [&](int64_t row, int64_t k) { return scales[static_cast<size_t>(row * (rowLen / group) + k / group)]; },
                -8, 7, *h);
            std::copy(r.begin(), r.end(), dst);
        } else {
            for (int64_t i = 0; i < groups * group; ++i)
                dst[i] = static_cast<int8_t>(quantizeValue(src[i], params[static_cast<size_t>(i / group)], -8, 7));
        }
        const std::string stored = fresh(name + "_int4"), scale = fresh(name + "_scale"),
                          zero = fresh(name + "_zero_point"), deq = fresh(name + "_int4_dequantized"),
                          shape = fresh(name + "_shape"), reshaped = fresh(name + "_int4_reshaped");
        newInitializers[stored] = q;
        newInitializers[scale] = Tensor::fromVector<float>({groups}, scales);
        newInitializers[zero] = Tensor(DType::I8, {groups});
        newInitializers[shape] = Tensor::fromVector<int64_t>({static_cast<int64_t>(rowShape.size())}, rowShape);
        addNode("DequantizeLinear", fresh(name + "_DequantizeLinear"), {stored, scale, zero}, deq,
                {{"axis", Attribute::ofInt(0)}});
        addNode("Reshape", fresh(name + "_Reshape"), {deq, shape}, reshaped);
        std::string out = reshaped;
        if (info.transposedForGroups && w.rank() == 2) {
            out = fresh(name + "_int4_transposed");
            addNode("Transpose", fresh(name + "_Transpose"), {reshaped}, out, {{"perm", Attribute::ofInts({1, 0})}});
        }
        return done_[key] = out;
    }
};

/// The precision of each kind of kept op on the options' chip (read once, on first use).
class KeptPrecisions {
public:
    explicit KeptPrecisions(const std::string& chip) : chip_(chip) {}
    Precision operator()(detail::KeptKind kind) {
        auto it = known_.find(kind);
        if (it == known_.end()) it = known_.emplace(kind, detail::keptPrecision(kind, chip_)).first;
        return it->second;
    }

private:
    std::string chip_;
    std::map<detail::KeptKind, Precision> known_;
};

}  // namespace

std::map<std::string, Precision> defaultPrecisions(const Model& floatModel, const QuantizeOptions& options) {
    std::map<std::string, Precision> out;
    const std::map<std::string, detail::KeptKind> kept = detail::findKeptOps(floatModel.graph);
    KeptPrecisions keptPrecision(options.chip);
    for (const auto& n : quantizableNodes(floatModel)) {
        auto k = kept.find(n);
        out[n] = k != kept.end() ? keptPrecision(k->second) : schemeDefault(options.scheme);
    }
    for (const auto& [name, p] : options.overrides) {
        if (!out.count(name))
            failInput("precision override: no quantizable layer named '" + name + "' in the model");
        if (auto k = kept.find(name); k != kept.end() && p != Precision::Fp16 && p != Precision::Float)
            failInput("precision override: layer '" + name + "' belongs to a " +
                      std::string(detail::keptKindName(k->second)) +
                      ", which stays in fp16 or float (integer grids there destroy accuracy); got " +
                      std::string(precisionName(p)));
        out[name] = p;
    }
    return out;
}

Model buildQdqModel(const Model& floatModel, const Calibration& calibration, const QuantizeOptions& options,
                    const std::map<std::string, Precision>& precisions) {
    const bool needsPerAxis = options.perChannel || options.scheme == Scheme::W4A16;
    if (floatModel.opset("") < kQdqOpset && needsPerAxis)
        return buildQdqModel(convertOpset(floatModel, kQdqOpset), calibration, options, precisions);
    const Graph& g = floatModel.graph;
    const Precision fallback = schemeDefault(options.scheme);
    QdqRewriter rw(floatModel, calibration, options);
    KeptPrecisions keptPrecision(options.chip);
    nlohmann::json precisionMap = nlohmann::json::object(), keptMap = nlohmann::json::object();
    for (size_t i : g.topologicalOrder()) {
        const Node& n = g.nodes[i];
        Precision p = fallback;
        const std::string name = n.layerName();
        const auto kept = rw.roles().kept().find(name);
        const bool isKept = kept != rw.roles().kept().end() && rw.roles().role(n) == detail::OpRole::Kept;
        if (isKept) p = keptPrecision(kept->second);
        if (auto it = precisions.find(name); it != precisions.end()) p = it->second;
        if (isKept) {
            if (p != Precision::Float) p = Precision::Fp16;  // an integer choice (a GUI edit) still keeps it
            keptMap[name] = std::string(detail::keptKindName(kept->second));
        }
        if (rw.roles().role(n) != detail::OpRole::None) precisionMap[name] = std::string(precisionName(p));
        rw.rewrite(n, p);
    }
    Model out = floatModel;
    out.graph.nodes = std::move(rw.nodes);
    for (auto& [name, t] : rw.newInitializers) out.graph.initializers[name] = std::move(t);
    // Drop float weights no node reads any more.
    std::set<std::string> read;
    for (const auto& n : out.graph.nodes)
        for (const auto& in : n.inputs) read.insert(in);
    for (const auto& in : out.graph.inputs) read.insert(in.name);
    for (const auto& o : out.graph.outputs) read.insert(o.name);
    for (auto it = out.graph.initializers.begin(); it != out.graph.initializers.end();)
        it = !read.count(it->first)
                 ? out.graph.initializers.erase(it)
                 : std::next(it);
    out.metadata["npuwb.quant.scheme"] = std::string(schemeName(options.scheme));
    out.metadata["npuwb.quant.observer"] = std::string(observerName(calibration.observer));
    out.metadata["npuwb.quant.dataset_hash"] = calibration.datasetHash;
    out.metadata["npuwb.quant.samples"] = std::to_string(calibration.samples);
    out.metadata["npuwb.quant.activations"] = options.activationType == ActivationType::Int8 ? "int8 asymmetric" : "uint8 asymmetric";
    out.metadata["npuwb.quant.weights"] = options.perChannel ? "int8 symmetric per-channel" : "int8 symmetric per-tensor";
    if (options.scheme == Scheme::W4A16)
        out.metadata["npuwb.quant.group_size"] = std::to_string(options.groupSize);
    out.metadata["npuwb.quant.precision"] = precisionMap.dump();
    if (!keptMap.empty()) out.metadata["npuwb.quant.kept"] = keptMap.dump();  // node -> LayerNorm | Softmax | GELU
    out.metadata["npuwb.quant.weight_rounding"] = std::string(weightRoundingName(calibration.weightRounding));
    return out;
}

}  // namespace npuwb::quant
