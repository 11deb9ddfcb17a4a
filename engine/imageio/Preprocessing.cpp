#include "npuwb/Preprocessing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"

namespace npuwb::imageio {

using nlohmann::json;

namespace {

template <class Enum>
Enum enumFromJson(const json& j, const std::string& where, const char* key,
                  std::initializer_list<std::pair<const char*, Enum>> names) {
    if (j.is_string())
        for (const auto& [name, value] : names)
            if (j.get<std::string>() == name) return value;
    std::string allowed;
    for (const auto& [name, value] : names) allowed += (allowed.empty() ? "" : ", ") + std::string(name);
    failInput(where + ": '" + key + "' must be one of " + allowed + ", got " + j.dump());
}

std::vector<float> floatsFromJson(const json& j, const std::string& where, const char* key) {
    if (j.is_number()) return {j.get<float>()};
    if (!j.is_array()) failInput(where + ": '" + key + "' must be a number or an array of numbers");
    std::vector<float> out;
    for (const json& v : j) {
        if (!v.is_number()) failInput(where + ": '" + key + "' must contain only numbers, got " + v.dump());
        out.push_back(v.get<float>());
    }
    return out;
}

float floatFromJson(const json& j, const std::string& where, const char* key) {
    if (!j.is_number()) failInput(where + ": '" + key + "' must be a number, got " + j.dump());
    return j.get<float>();
}

const char* layoutName(Layout l) { return l == Layout::NCHW ? "nchw" : l == Layout::NHWC ? "nhwc" : "auto"; }

bool isImageChannelCount(int64_t c) { return c == 1 || c == 3 || c == 4; }

float channelValue(const std::vector<float>& v, int64_t c, float fallback) {
    if (v.empty()) return fallback;
    return v.size() == 1 ? v[0] : v[static_cast<size_t>(c)];
}

}  // namespace

const Preprocessing& preprocessingFor(const PreprocessingSet& set, const std::string& inputName) {
    static const Preprocessing defaults;
    if (auto it = set.find(inputName); it != set.end()) return it->second;
    if (auto it = set.find("*"); it != set.end()) return it->second;
    return defaults;
}

Preprocessing preprocessingFromJson(const json& j, const std::string& where, Preprocessing p) {
    if (!j.is_object()) failInput(where + ": preprocessing must be a JSON object");
    static const char* known[] = {"mean", "std", "scale", "color", "resize", "fill", "layout", "dtype", "size"};
    for (const auto& [key, value] : j.items())
        if (std::find_if(std::begin(known), std::end(known), [&](const char* k) { return key == k; }) == std::end(known))
            failInput(where + ": unknown preprocessing key '" + key + "'");
    if (j.contains("mean")) p.mean = floatsFromJson(j["mean"], where, "mean");
    if (j.contains("std")) {
        p.std = floatsFromJson(j["std"], where, "std");
        for (float s : p.std)
            if (s == 0.0f || !std::isfinite(s)) failInput(where + ": 'std' values must be finite and non-zero");
    }
    if (j.contains("scale")) p.scale = floatFromJson(j["scale"], where, "scale");
    if (j.contains("fill")) p.fill = floatFromJson(j["fill"], where, "fill");
    if (j.contains("color"))
        p.color = enumFromJson<ColorOrder>(j["color"], where, "color", {{"rgb", ColorOrder::RGB}, {"bgr", ColorOrder::BGR}});
    if (j.contains("resize"))
        p.resize = enumFromJson<ResizeMode>(j["resize"], where, "resize",
                                            {{"stretch", ResizeMode::Stretch}, {"letterbox", ResizeMode::Letterbox}});
    if (j.contains("layout"))
        p.layout = enumFromJson<Layout>(j["layout"], where, "layout",
                                        {{"auto", Layout::Auto}, {"nchw", Layout::NCHW}, {"nhwc", Layout::NHWC}});
    if (j.contains("dtype")) {
        if (!j["dtype"].is_string()) failInput(where + ": 'dtype' must be a type name such as \"float32\"");
        const std::string name = j["dtype"].get<std::string>();
        try {
            p.dtype = name == "float32" ? DType::F32 : name == "float16" ? DType::F16 : dtypeFromName(name);
        } catch (const Error&) {
            failInput(where + ": unknown dtype '" + name + "'");
        }
        if (p.dtype != DType::F32 && p.dtype != DType::F16 && p.dtype != DType::U8 && p.dtype != DType::I8)
            failInput(where + ": dtype '" + name + "' is not supported for images (float32, float16, uint8, int8)");
    }
    if (j.contains("size")) {
        const json& s = j["size"];
        if (!s.is_array() || s.size() != 2 || !s[0].is_number_integer() || !s[1].is_number_integer() ||
            s[0].get<int64_t>() <= 0 || s[1].get<int64_t>() <= 0 || s[0].get<int64_t>() > 65535 || s[1].get<int64_t>() > 65535)
            failInput(where + ": 'size' must be [width, height] with integers from 1 to 65535");
        p.width = s[0].get<int>();
        p.height = s[1].get<int>();
    }
    return p;
}

json preprocessingToJson(const Preprocessing& p) {
    json j;
    j["mean"] = p.mean;
    j["std"] = p.std;
    j["scale"] = p.scale;
    j["color"] = p.color == ColorOrder::RGB ? "rgb" : "bgr";
    j["resize"] = p.resize == ResizeMode::Stretch ? "stretch" : "letterbox";
    j["fill"] = p.fill;
    j["layout"] = layoutName(p.layout);
    if (p.dtype != DType::Undefined) j["dtype"] = p.dtype == DType::F32 ? "float32" : std::string(dtypeName(p.dtype));
    if (p.width > 0 && p.height > 0) j["size"] = {p.width, p.height};
    return j;
}

json preprocessingSetToJson(const PreprocessingSet& set) {
    json j = json::object();
    for (const auto& [name, p] : set) j[name] = preprocessingToJson(p);
    return j;
}

PreprocessingSet loadPreprocessingFile(const std::string& path) {
    json j;
    try {
        j = json::parse(readFile(path));
    } catch (const json::exception& e) {
        failInput(path + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object()) failInput(path + ": preprocessing must be a JSON object");
    static const char* keys[] = {"mean", "std", "scale", "color", "resize", "fill", "layout", "dtype", "size"};
    const bool single = std::any_of(std::begin(keys), std::end(keys), [&](const char* k) { return j.contains(k); });
    PreprocessingSet set;
    if (single) {
        set["*"] = preprocessingFromJson(j, path);
        return set;
    }
    for (const auto& [name, value] : j.items()) set[name] = preprocessingFromJson(value, path + ": input '" + name + "'");
    return set;
}

void savePreprocessingFile(const std::string& path, const PreprocessingSet& set) {
    writeFileAtomically(path, preprocessingSetToJson(set).dump(2) + "\n");
}

InputGeometry resolveInput(const ValueInfo& input, const Preprocessing& p) {
    InputGeometry g;
    g.name = input.name;
    const std::string where = "input '" + input.name + "'";
    const DType declared = input.type.dtype;
    g.dtype = p.dtype != DType::Undefined ? p.dtype
              : (isFloat(declared) || isInteger(declared)) ? declared
                                                           : DType::F32;
    if (!input.type.shape) failInput(where + " has no declared shape; calibration data needs a fixed input shape");
    const SymShape& sym = *input.type.shape;
    const auto known = [&](size_t i) { return sym[i].known() ? sym[i].value : int64_t{-1}; };
    if (sym.size() != 4) {
        for (size_t i = 0; i < sym.size(); ++i) {
            int64_t d = known(i);
            if (d < 0 && i == 0) d = 1;  // a symbolic batch
            if (d < 0) failInput(where + " has the unknown dimension " + std::to_string(i) + " in " +
                                 symShapeToString(sym) + "; give .npy files of a fixed shape");
            g.shape.push_back(d);
        }
        return g;  // not an image: .npy only
    }
    g.layout = p.layout;
    if (g.layout == Layout::Auto) {
        const int64_t c1 = known(1), c3 = known(3);
        g.layout = isImageChannelCount(c1) ? Layout::NCHW : isImageChannelCount(c3) ? Layout::NHWC : Layout::NCHW;
    }
    const bool nchw = g.layout == Layout::NCHW;
    const size_t cAxis = nchw ? 1 : 3, hAxis = nchw ? 2 : 1, wAxis = nchw ? 3 : 2;
    const int64_t batch = known(0) > 0 ? known(0) : 1;
    g.channels = known(cAxis);
    g.height = p.height > 0 ? p.height : known(hAxis);
    g.width = p.width > 0 ? p.width : known(wAxis);
    if (known(hAxis) > 0 && p.height > 0 && p.height != known(hAxis))
        failInput(where + ": preprocessing size height " + std::to_string(p.height) + " differs from the model's " +
                  std::to_string(known(hAxis)));
    if (known(wAxis) > 0 && p.width > 0 && p.width != known(wAxis))
        failInput(where + ": preprocessing size width " + std::to_string(p.width) + " differs from the model's " +
                  std::to_string(known(wAxis)));
    if (g.channels <= 0) failInput(where + ": the channel dimension of " + symShapeToString(sym) + " is unknown");
    if (g.height <= 0 || g.width <= 0)
        failInput(where + " has a symbolic height or width in " + symShapeToString(sym) +
                  "; set \"size\": [width, height] in the preprocessing");
    g.shape = nchw ? Shape{batch, g.channels, g.height, g.width} : Shape{batch, g.height, g.width, g.channels};
    return g;
}

Image prepareImage(const Image& image, const Preprocessing& p, const InputGeometry& g, const std::string& origin) {
    if (!g.imageLike())
        failInput(origin + ": input '" + g.name + "' of shape " + shapeToString(g.shape) +
                  " is not an image input (rank 4 with 1, 3 or 4 channels); give a .npy file");
    if (!isImageChannelCount(g.channels))
        failInput(origin + ": wrong channel count: input '" + g.name + "' has " + std::to_string(g.channels) +
                  " channels in " + shapeToString(g.shape) + ", images give 1 (gray), 3 (RGB/BGR) or 4; use .npy");
    const int w = static_cast<int>(g.width), h = static_cast<int>(g.height);
    const Image rgb = convertChannels(image, g.channels == 4 ? 4 : 3);
    Image sized;
    if (p.resize == ResizeMode::Stretch) {
        sized = resizeImage(rgb, w, h);
    } else {
        // The largest size of the picture's aspect ratio that fits, centred on a fill-coloured canvas.
        const int64_t widthAtFullHeight = int64_t{h} * rgb.width / rgb.height;
        const int fw = widthAtFullHeight <= w ? static_cast<int>(std::max<int64_t>(1, widthAtFullHeight)) : w;
        const int fh = widthAtFullHeight <= w ? h : static_cast<int>(std::max<int64_t>(1, int64_t{w} * rgb.height / rgb.width));
        const Image fitted = resizeImage(rgb, fw, fh);
        sized = Image(w, h, rgb.channels);
        const auto fill = static_cast<uint8_t>(std::clamp(static_cast<int>(std::lround(p.fill)), 0, 255));
        for (size_t i = 0; i < sized.pixels.size(); ++i)
            sized.pixels[i] = rgb.channels == 4 && i % 4 == 3 ? 255 : fill;  // the border is opaque
        const int left = (w - fw) / 2, top = (h - fh) / 2;
        const size_t rowBytes = static_cast<size_t>(fw) * rgb.channels;
        for (int y = 0; y < fh; ++y)
            std::copy_n(fitted.row(y), rowBytes, sized.row(top + y) + static_cast<size_t>(left) * rgb.channels);
    }
    if (g.channels == 1) return convertChannels(sized, 1);
    if (p.color == ColorOrder::BGR)
        for (size_t i = 0; i < sized.pixels.size(); i += static_cast<size_t>(sized.channels))
            std::swap(sized.pixels[i], sized.pixels[i + 2]);
    return sized;
}

Tensor imageToTensor(const Image& image, const Preprocessing& p, const InputGeometry& g, const std::string& origin) {
    const Image prepared = prepareImage(image, p, g, origin);
    const int64_t C = g.channels, H = g.height, W = g.width;
    for (const auto* v : {&p.mean, &p.std})
        if (v->size() > 1 && static_cast<int64_t>(v->size()) != C)
            failInput(origin + ": wrong channel count: preprocessing of input '" + g.name + "' has " +
                      std::to_string(v->size()) + " mean/std values but the input has " + std::to_string(C) +
                      " channels");
    std::vector<float> plane(static_cast<size_t>(C * H * W));  // one sample in the requested layout
    const bool nchw = g.layout == Layout::NCHW;
    for (int64_t y = 0; y < H; ++y) {
        const uint8_t* row = prepared.row(static_cast<int>(y));
        for (int64_t x = 0; x < W; ++x)
            for (int64_t c = 0; c < C; ++c) {
                const float pixel = row[x * C + c];
                const float value =
                    (pixel * p.scale - channelValue(p.mean, c, 0.0f)) / channelValue(p.std, c, 1.0f);
                plane[static_cast<size_t>(nchw ? (c * H + y) * W + x : (y * W + x) * C + c)] = value;
            }
    }
    Tensor out(g.dtype, g.shape);
    const int64_t per = static_cast<int64_t>(plane.size());
    visitNumeric(g.dtype, [&]<typename T>() {
        T* dst = out.data<T>();
        for (int64_t i = 0; i < out.numel(); ++i) {
            const float v = plane[static_cast<size_t>(i % per)];
            if constexpr (std::is_integral_v<T>)
                dst[i] = static_cast<T>(std::clamp(std::nearbyint(v), static_cast<float>(std::numeric_limits<T>::min()),
                                                   static_cast<float>(std::numeric_limits<T>::max())));
            else
                dst[i] = static_cast<T>(v);
        }
    }, origin + ": input '" + g.name + "' filled from an image");
    return out;
}

}  // namespace npuwb::imageio
