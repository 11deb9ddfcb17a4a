// Names of schemes, observers and precisions, and the per-layer precision override file.
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "npuwb/Quantizer.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"
#include "util/JsonText.h"

namespace npuwb::quant {

namespace {
template <class E, size_t N>
E fromName(std::string_view name, const std::pair<E, std::string_view> (&table)[N], const char* what) {
    std::string choices;
    for (const auto& [e, n] : table) {
        if (n == name) return e;
        choices += (choices.empty() ? "" : ", ") + std::string(n);
    }
    failInput("unknown " + std::string(what) + " '" + std::string(name) + "' (choose " + choices + ")");
}
template <class E, size_t N> std::string_view toName(E e, const std::pair<E, std::string_view> (&table)[N]) {
    for (const auto& [v, n] : table)
        if (v == e) return n;
    return "?";
}

const std::pair<Scheme, std::string_view> kSchemes[] = {
    {Scheme::W8A8, "w8a8"}, {Scheme::W8A16, "w8a16"}, {Scheme::W4A16, "w4a16"}, {Scheme::FP16, "fp16"}};
const std::pair<ObserverKind, std::string_view> kObservers[] = {{ObserverKind::MinMax, "minmax"},
                                                                {ObserverKind::KL, "kl"},
                                                                {ObserverKind::MMSE, "mmse"},
                                                                {ObserverKind::Percentile, "percentile"}};
const std::pair<Precision, std::string_view> kPrecisions[] = {{Precision::Int8, "int8"},
                                                              {Precision::Int16, "int16"},
                                                              {Precision::Int4, "int4"},
                                                              {Precision::Fp16, "fp16"},
                                                              {Precision::Float, "float"}};
}  // namespace

std::string_view schemeName(Scheme s) { return toName(s, kSchemes); }
Scheme schemeFromName(std::string_view n) { return fromName(n, kSchemes, "scheme"); }
std::string_view observerName(ObserverKind o) { return toName(o, kObservers); }
ObserverKind observerFromName(std::string_view n) {
    if (n == "normal") return ObserverKind::MinMax;  // RKNN's name for min-max
    return fromName(n, kObservers, "observer");
}
std::string_view precisionName(Precision p) { return toName(p, kPrecisions); }
Precision precisionFromName(std::string_view n) {
    if (n == "float32" || n == "fp32") return Precision::Float;
    if (n == "float16") return Precision::Fp16;
    return fromName(n, kPrecisions, "precision");
}

std::map<std::string, Precision> loadPrecisionOverrides(const std::string& path) {
    const std::string text = readFile(path);
    std::map<std::string, Precision> out;
    const size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{') {
        nlohmann::json j;
        try {
            j = parseJsonText(text);
        } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers too large
            failInput(path + ": not valid JSON: " + e.what());
        }
        for (const auto& [layer, v] : j.items()) {
            if (!v.is_string()) failInput(path + ": layer '" + layer + "': precision must be a string");
            try {
                out[layer] = precisionFromName(v.get<std::string>());
            } catch (const Error& e) {
                failInput(path + ": layer '" + layer + "': " + e.what());
            }
        }
        return out;
    }
    std::istringstream in(text);
    std::string line;
    for (size_t lineNo = 1; std::getline(in, line); ++lineNo) {
        if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        std::istringstream fields(line);
        std::string layer, precision, extra;
        if (!(fields >> layer)) continue;
        // "layer: int8" and "layer int8" both work.
        if (layer.back() == ':') layer.pop_back();
        if (!(fields >> precision) || (fields >> extra))
            failInput(path + ":" + std::to_string(lineNo) + ": expected 'LAYER PRECISION'");
        try {
            out[layer] = precisionFromName(precision);
        } catch (const Error& e) {
            failInput(path + ":" + std::to_string(lineNo) + ": " + e.what());
        }
    }
    return out;
}

}  // namespace npuwb::quant
