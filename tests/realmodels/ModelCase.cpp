#include "ModelCase.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

namespace npuwb::realmodels {

Manifest readManifest(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open manifest " + path);
    Manifest manifest;
    try {
        auto json = nlohmann::json::parse(in);
        manifest.tolerance = json.value("tolerance", manifest.tolerance);
        for (const auto& m : json.at("models")) {
            ModelCase c{m.at("name").get<std::string>(), m.at("file").get<std::string>(), {}};
            for (const auto& [inputName, spec] : m.at("inputs").items()) {
                InputSpec s;
                s.shape = spec.at("shape").get<Shape>();
                if (spec.contains("dtype")) s.dtype = dtypeFromName(spec["dtype"].get<std::string>());
                s.low = spec.value("low", s.low);
                s.high = spec.value("high", s.high);
                if (spec.contains("value")) s.value = spec["value"].get<double>();
                s.generator = spec.value("generator", s.generator);
                if (s.generator != "uniform" && s.generator != "text")
                    throw std::runtime_error(inputName + ": unknown generator '" + s.generator + "'");
                c.inputs[inputName] = s;
            }
            manifest.models.push_back(std::move(c));
        }
    } catch (const std::exception& e) {
        throw std::runtime_error("manifest " + path + ": " + e.what());
    }
    return manifest;
}

namespace {

Tensor textPage(const Shape& shape, std::mt19937_64& rng, const std::string& name) {
    if (shape.size() != 4 || shape[0] != 1 || shape[1] != 3)
        throw std::runtime_error("input " + name + ": the text generator wants a 1x3xHxW shape");
    const int64_t h = shape[2], w = shape[3];
    Tensor t(DType::F32, shape);
    float* px = t.data<float>();
    std::fill(px, px + t.numel(), 1.0f);  // white page
    auto pick = [&](int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1)); };
    const int64_t lineHeight = std::max<int64_t>(4, h / 20);
    for (int64_t row = lineHeight; row + lineHeight <= h - lineHeight; row += 2 * lineHeight + lineHeight / 2) {
        for (int64_t x = w / 16; x < w - w / 16;) {
            int64_t glyph = pick(lineHeight / 4 + 1, lineHeight * 3 / 4 + 1);
            for (int64_t c = 0; c < 3; ++c)
                for (int64_t y = row; y < row + lineHeight; ++y)
                    for (int64_t i = x; i < std::min(x + glyph, w); ++i) px[(c * h + y) * w + i] = 0.0f;
            x += glyph + pick(lineHeight / 8 + 1, lineHeight / 3 + 1);
        }
    }
    const float mean[3] = {0.485f, 0.456f, 0.406f}, stdev[3] = {0.229f, 0.224f, 0.225f};
    for (int64_t c = 0; c < 3; ++c)
        for (int64_t i = 0; i < h * w; ++i) px[c * h * w + i] = (px[c * h * w + i] - mean[c]) / stdev[c];
    return t;
}

}  // namespace

std::map<std::string, Tensor> makeInputs(const ModelCase& modelCase, const std::vector<ValueInfo>& required,
                                         uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::map<std::string, Tensor> inputs;
    for (const auto& info : required) {
        auto it = modelCase.inputs.find(info.name);
        if (it == modelCase.inputs.end())
            throw std::runtime_error("models.json: " + modelCase.name + " lacks a spec for input '" + info.name + "'");
        const InputSpec& spec = it->second;
        if (spec.generator == "text") {
            inputs[info.name] = textPage(spec.shape, rng, info.name);
            continue;
        }
        Tensor t(spec.dtype.value_or(info.type.dtype), spec.shape);
        // Raw 53-bit draws instead of std::uniform_real_distribution, whose output differs between libraries.
        auto draw = [&] {
            double unit = static_cast<double>(rng() >> 11) * 0x1.0p-53;
            return spec.value ? *spec.value : spec.low + unit * (spec.high - spec.low);
        };
        visitNumeric(t.dtype(), [&]<typename T>() {
            for (auto& v : t.values<T>()) v = static_cast<T>(isFloat(t.dtype()) ? draw() : std::round(draw()));
        }, "input " + info.name);
        inputs[info.name] = t;
    }
    return inputs;
}

}  // namespace npuwb::realmodels
