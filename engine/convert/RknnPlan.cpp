// The RKNN-Toolkit2 conversion plan: the workbench's state mapped onto the toolkit's config/load/build arguments.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "npuwb/AtomicFile.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/Error.h"
#include "npuwb/Report.h"
#include "npuwb/RknnConversion.h"

namespace npuwb::rknn {

namespace fs = std::filesystem;

namespace {

// Higher rank = more precise. A layer is "kept" when it runs above its scheme's default precision.
int precisionRank(quant::Precision p) {
    switch (p) {
        case quant::Precision::Int4: return 0;
        case quant::Precision::Int8: return 1;
        case quant::Precision::Int16: return 2;
        case quant::Precision::Fp16: return 3;
        case quant::Precision::Float: return 4;
    }
    return 4;
}
quant::Precision schemeDefaultPrecision(quant::Scheme s) {
    switch (s) {
        case quant::Scheme::W8A8: return quant::Precision::Int8;
        case quant::Scheme::W8A16: return quant::Precision::Int16;
        case quant::Scheme::W4A16: return quant::Precision::Int4;
        case quant::Scheme::FP16: return quant::Precision::Fp16;
    }
    return quant::Precision::Int8;
}
bool keptAbove(const std::string& precisionName, quant::Scheme scheme) {
    return precisionRank(quant::precisionFromName(precisionName)) > precisionRank(schemeDefaultPrecision(scheme));
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string absolute(const std::string& path) { return fs::absolute(path).lexically_normal().string(); }

QuantizationFacts factsFromQuantizeReport(const nlohmann::json& j, const std::string& path) {
    QuantizationFacts f;
    f.source = path;
    f.scheme = quant::schemeFromName(j.at("scheme").get<std::string>());
    if (j.contains("observer")) f.observer = quant::observerFromName(j.at("observer").get<std::string>());
    if (j.contains("dataset")) f.datasetPath = j.at("dataset").get<std::string>();
    if (j.contains("preprocess")) f.preprocessPath = j.at("preprocess").get<std::string>();
    if (j.contains("precision"))
        for (const auto& [node, precision] : j.at("precision").items())
            if (keptAbove(precision.get<std::string>(), *f.scheme))
                f.keptLayers.push_back({.node = node,
                                        .tensor = {},
                                        .reason = precision.get<std::string>() + " in the quantization"});
    return f;
}

// The layers an accuracy analysis keeps (run above the scheme's default) or flags (SNR below its threshold).
void addAccuracyLayers(QuantizationFacts& f, const AccuracySection& a, quant::Scheme scheme) {
    std::set<std::string> listed;
    for (const auto& l : f.keptLayers) listed.insert(l.node);
    for (const auto& l : a.layers) {
        // "float" there also marks ops the quantizer leaves alone (activations, pooling): only a raised precision
        // (fp16, int16) is a choice to keep a layer out of int8.
        const bool kept = !l.precision.empty() && l.precision != quant::precisionName(quant::Precision::Float) &&
                          keptAbove(l.precision, scheme);
        if ((!kept && !l.lowSnr) || listed.count(l.fullName)) continue;
        std::string reason;
        if (kept) reason = l.precision + " in the quantized model";
        if (l.lowSnr) {
            const std::optional<double> snr = l.singleSnrDb ? l.singleSnrDb : l.entireSnrDb;
            char buf[96];
            std::snprintf(buf, sizeof buf, "SNR %.1f dB below %.1f dB in the accuracy run", snr.value_or(0.0),
                          a.snrThresholdDb);
            reason += (reason.empty() ? "" : "; ") + std::string(buf);
        }
        f.keptLayers.push_back({.node = l.fullName, .tensor = l.value, .reason = reason});
    }
}

QuantizationFacts factsFromAccuracyReport(const std::string& path) {
    const Report r = loadReport(path);
    QuantizationFacts f;
    f.source = path;
    if (!r.accuracy) failInput(path + ": an accuracy report without an accuracy section");
    const quant::Scheme scheme =
        r.accuracy->scheme.empty() ? quant::Scheme::W8A8 : quant::schemeFromName(r.accuracy->scheme);
    f.scheme = scheme;
    addAccuracyLayers(f, *r.accuracy, scheme);
    return f;
}

// The input's channel count for mean/std: dim 1 of NCHW, the last dim of NHWC.
int64_t channelsOf(const Shape& shape, imageio::Layout layout) {
    if (shape.size() != 4) return shape.empty() ? 1 : shape.back();
    if (layout == imageio::Layout::NHWC) return shape[3];
    if (layout == imageio::Layout::NCHW) return shape[1];
    return (shape[1] == 1 || shape[1] == 3 || shape[1] == 4) ? shape[1] : shape[3];
}

std::vector<double> perChannel(const std::vector<float>& values, int64_t channels, double fill, double divisor,
                               const std::string& what, const std::string& input) {
    if (!values.empty() && values.size() != 1 && static_cast<int64_t>(values.size()) != channels)
        failInput("preprocessing of input '" + input + "': " + std::to_string(values.size()) + " " + what +
                  " values for " + std::to_string(channels) + " channels");
    std::vector<double> out(static_cast<size_t>(std::max<int64_t>(channels, 1)));
    for (size_t c = 0; c < out.size(); ++c) {
        // Preprocessing values are floats: 7 significant digits, so 0.229 / (1/255) prints 58.395, not 58.39500045.
        char digits[32];
        std::snprintf(digits, sizeof digits, "%.7g", (values.empty() ? fill : values[values.size() == 1 ? 0 : c]) / divisor);
        out[c] = std::strtod(digits, nullptr);
    }
    return out;
}

const imageio::Preprocessing* findPreprocessing(const imageio::PreprocessingSet& set, const std::string& name) {
    if (auto it = set.find(name); it != set.end()) return &it->second;
    if (auto it = set.find("*"); it != set.end()) return &it->second;
    return nullptr;
}

}  // namespace

QuantizationFacts loadQuantizationFacts(const std::string& path) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(readFile(path));
    } catch (const nlohmann::json::exception& e) {
        failInput(path + ": not a quantization or accuracy report (" + e.what() + ")");
    }
    try {
        if (j.is_object() && j.value("kind", "") == "accuracy") return factsFromAccuracyReport(path);
        if (j.is_object() && j.contains("scheme") && j.contains("precision")) return factsFromQuantizeReport(j, path);
    } catch (const nlohmann::json::exception& e) {
        failInput(path + ": malformed report (" + e.what() + ")");
    }
    failInput(path + ": not a quantization report (`quantize --json`) or an accuracy report (`accuracy --json`)");
}

QuantizationFacts quantizationFactsFromRun(const quant::QuantizeOptions& options,
                                           const std::map<std::string, quant::Precision>& precisions,
                                           const AccuracySection* accuracy, const std::string& datasetPath,
                                           const imageio::PreprocessingSet& preprocessing) {
    QuantizationFacts f;
    f.source = "the last quantization in this session";
    f.scheme = options.scheme;
    f.observer = options.observer;
    f.datasetPath = datasetPath;
    f.preprocessing = preprocessing;
    for (const auto& [node, precision] : precisions)
        if (precisionRank(precision) > precisionRank(schemeDefaultPrecision(options.scheme)))
            f.keptLayers.push_back(
                {.node = node, .tensor = {}, .reason = std::string(quant::precisionName(precision)) + " in the quantization"});
    if (accuracy) addAccuracyLayers(f, *accuracy, options.scheme);
    return f;
}

std::vector<std::string> targetPlatforms() {
    std::vector<std::string> names;
    for (const auto& n : availableChipProfiles()) names.push_back(lower(n));
    std::sort(names.begin(), names.end());
    return names;
}

std::string quantizedDtypeFor(quant::Scheme scheme) {
    switch (scheme) {
        case quant::Scheme::W8A8: return "w8a8";
        case quant::Scheme::W8A16: return "w8a16";
        case quant::Scheme::W4A16: return "w4a16";
        case quant::Scheme::FP16: return "";  // no quantization: build(do_quantization=False)
    }
    return "w8a8";
}

std::string quantizedAlgorithmFor(quant::ObserverKind observer) {
    switch (observer) {
        case quant::ObserverKind::MinMax: return "normal";
        case quant::ObserverKind::KL: return "kl_divergence";
        case quant::ObserverKind::MMSE: return "mmse";
        case quant::ObserverKind::Percentile: break;
    }
    failInput("RKNN-Toolkit2 has no percentile observer (its quantized_algorithm is normal, kl_divergence or mmse): "
              "choose --observer minmax, kl or mmse");
}

ConversionPlan planConversion(const Model& model, const ConversionOptions& o) {
    ConversionPlan plan;
    const std::vector<std::string> targets = targetPlatforms();
    plan.target = lower(o.target);
    if (std::find(targets.begin(), targets.end(), plan.target) == targets.end()) {
        std::string list;
        for (const auto& t : targets) list += (list.empty() ? "" : ", ") + t;
        failInput("unknown target chip '" + o.target + "' (chip profiles: " + list + ")");
    }
    if (o.outputPath.empty()) failInput("no output .rknn path given");
    plan.modelPath = absolute(o.modelPath);
    plan.outputPath = absolute(o.outputPath);
    std::string stem = plan.outputPath;
    if (fs::path(stem).extension() == ".rknn") stem = stem.substr(0, stem.size() - 5);
    plan.scriptPath = stem + ".convert.py";

    const QuantizationFacts* facts = o.quantization ? &*o.quantization : nullptr;
    const quant::Scheme scheme = o.scheme ? *o.scheme : (facts && facts->scheme ? *facts->scheme : quant::Scheme::W8A8);
    const quant::ObserverKind observer =
        o.observer ? *o.observer : (facts && facts->observer ? *facts->observer : quant::ObserverKind::MinMax);
    plan.scheme = std::string(quant::schemeName(scheme));
    plan.quantize = scheme != quant::Scheme::FP16 && o.dataset.has_value();
    if (scheme != quant::Scheme::FP16 && !o.dataset) {
        if (o.scheme) failInput("scheme " + plan.scheme + " quantizes: give a data set (--dataset LIST)");
        plan.notes.push_back("no data set: the toolkit builds a float16 model (give a data set to quantize)");
    }
    if (plan.quantize) {
        plan.datasetPath = stem + ".dataset.txt";
        plan.quantizedDtype = quantizedDtypeFor(scheme);
        plan.quantizedAlgorithm = quantizedAlgorithmFor(observer);
        plan.quantizedMethod = o.perChannel ? "channel" : "layer";
        if (scheme == quant::Scheme::W4A16 && plan.target != "rk3576")
            plan.notes.push_back("RKNN-Toolkit2 (2.3) supports w4a16 on rk3576 only; the toolkit will refuse " +
                                 plan.target);
    }

    // Inputs: concrete shapes (symbolic dims from --input-shape or the preprocessing's size) and mean/std.
    bool anyImage = false;  // any sample that is not a .npy array is an image the toolkit normalizes
    if (o.dataset)
        for (const auto& e : o.dataset->entries)
            for (const auto& f : e.files)
                if (lower(fs::path(f).extension().string()) != ".npy") anyImage = true;
    for (const auto& in : model.graph.inputs) {
        if (model.graph.initializers.count(in.name)) continue;
        ConversionInput ci;
        ci.name = in.name;
        const imageio::Preprocessing* pre = findPreprocessing(
            o.preprocessing.empty() && facts ? facts->preprocessing : o.preprocessing, in.name);
        if (auto it = o.inputShapes.find(in.name); it != o.inputShapes.end()) {
            ci.shape = it->second;
            plan.fixInputSizes = true;
        } else {
            if (!in.type.shape) failInput("input '" + in.name + "' of " + o.modelPath + " has no declared shape: give "
                                          "--input-shape " + in.name + "=1,3,H,W");
            const SymShape& sym = *in.type.shape;
            for (size_t d = 0; d < sym.size(); ++d) {
                int64_t v = sym[d].value;
                if (!sym[d].known()) {
                    plan.fixInputSizes = true;
                    const bool nchw = sym.size() == 4 && (!pre || pre->layout != imageio::Layout::NHWC);
                    if (d == 0) v = 1;
                    else if (pre && sym.size() == 4 && pre->height > 0 && d == (nchw ? 2u : 1u)) v = pre->height;
                    else if (pre && sym.size() == 4 && pre->width > 0 && d == (nchw ? 3u : 2u)) v = pre->width;
                }
                if (v < 0)
                    failInput("input '" + in.name + "' of " + o.modelPath + " has a symbolic size " +
                              symShapeToString(sym) + ": give --input-shape " + in.name +
                              "=1,3,H,W or a size in the preprocessing");
                ci.shape.push_back(v);
            }
        }
        // The workbench computes (pixel * scale - mean) / std; the toolkit (pixel - mean') / std' on 0..255
        // pixels, so mean' = mean / scale and std' = std / scale.
        if (pre || anyImage) {
            const imageio::Preprocessing p = pre ? *pre : imageio::Preprocessing{};
            const int64_t channels = channelsOf(ci.shape, p.layout);
            ci.mean = perChannel(p.mean, channels, 0.0, p.scale, "mean", in.name);
            ci.std = perChannel(p.std, channels, 1.0, p.scale, "std", in.name);
            if (p.color == imageio::ColorOrder::BGR) plan.rgbToBgr = true;
            if (p.resize == imageio::ResizeMode::Letterbox)
                plan.notes.push_back("input '" + in.name + "': the workbench letterboxes calibration images, the "
                                     "toolkit resizes them plainly; give it letterboxed images for the same ranges");
        }
        plan.inputs.push_back(std::move(ci));
    }
    if (plan.inputs.empty()) failInput(o.modelPath + " has no inputs to convert");
    if (plan.inputs.size() > 1 && plan.rgbToBgr)
        plan.notes.push_back("quant_img_RGB2BGR applies to every image input of the model");

    if (plan.quantize) {
        for (const auto& e : o.dataset->entries) {
            if (e.files.size() != plan.inputs.size())
                failInput(o.dataset->source + ":" + std::to_string(e.line) + ": " + std::to_string(e.files.size()) +
                          " file(s) for " + std::to_string(plan.inputs.size()) + " model input(s)");
            std::vector<std::string> sample;
            for (const auto& f : e.files) {
                if (f.find_first_of(" \t\n") != std::string::npos)
                    failInput(o.dataset->source + ": '" + f + "' has a space, which the toolkit's dataset.txt cannot hold");
                sample.push_back(absolute(f));
            }
            plan.datasetSamples.push_back(std::move(sample));
        }
    }

    // Hybrid layers: the report's node names resolved to output tensors of this model.
    if (facts && plan.quantize) {
        std::map<std::string, const Node*> byName;
        std::set<std::string> producedValues;
        for (const auto& n : model.graph.nodes) {
            byName[n.name] = &n;
            for (const auto& out : n.outputs) producedValues.insert(out);
        }
        std::set<std::string> seen;
        for (HybridLayer l : facts->keptLayers) {
            if (l.tensor.empty() || !producedValues.count(l.tensor)) {
                auto it = byName.find(l.node);
                if (it == byName.end() || it->second->outputs.empty() || it->second->outputs[0].empty()) {
                    plan.notes.push_back("layer '" + l.node + "' of " + facts->source + " is not in " + o.modelPath +
                                         " (renamed by the pre-quantization optimization?): left to the toolkit");
                    continue;
                }
                l.tensor = it->second->outputs[0];
            }
            if (seen.insert(l.tensor).second) plan.hybridLayers.push_back(std::move(l));
        }
    }
    return plan;
}

void writeConversionFiles(const ConversionPlan& plan) {
    const fs::path folder = fs::path(plan.scriptPath).parent_path();  // the toolkit writes OUT there too
    if (std::error_code ec; !folder.empty() && !fs::create_directories(folder, ec) && ec)
        fail(ErrorKind::Io, folder.string() + ": cannot create the folder (" + ec.message() + ")");
    if (!plan.datasetPath.empty()) writeFileAtomically(plan.datasetPath, renderDatasetList(plan));
    writeFileAtomically(plan.scriptPath, renderScript(plan));
}

}  // namespace npuwb::rknn
