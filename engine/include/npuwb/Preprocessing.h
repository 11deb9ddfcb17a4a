#pragma once
// How an image becomes a model input tensor, per input: resize or letterbox to the input size, colour order,
// value = (pixel * scale - mean[c]) / std[c] with pixels in 0..255, NCHW or NHWC, element type.
// So RKNN-style settings (mean 127.5, std 127.5, scale 1) and torchvision-style ones (mean 0.485..,
// std 0.229.., scale 1/255) both fit. Unset fields take defaults from the model's input shape.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "npuwb/Image.h"
#include "npuwb/ir/Graph.h"

namespace npuwb::imageio {

enum class ColorOrder { RGB, BGR };
enum class ResizeMode { Stretch, Letterbox };
enum class Layout { Auto, NCHW, NHWC };  // Auto: NCHW when dim 1 is 1, 3 or 4, else NHWC when the last dim is

struct Preprocessing {
    std::vector<float> mean;  // one value for all channels or one per channel; empty: 0
    std::vector<float> std;   // likewise; empty: 1
    float scale = 1.0f / 255.0f;
    ColorOrder color = ColorOrder::RGB;
    ResizeMode resize = ResizeMode::Stretch;
    float fill = 0.0f;  // letterbox border, as a 0..255 pixel value
    Layout layout = Layout::Auto;
    DType dtype = DType::Undefined;  // Undefined: the input's declared type (float32 when it is not a number type)
    int width = 0;                   // 0: from the input shape (needed when the model's H/W are symbolic)
    int height = 0;
};

/// Per input name; the key "*" applies to inputs without an entry of their own.
using PreprocessingSet = std::map<std::string, Preprocessing>;

const Preprocessing& preprocessingFor(const PreprocessingSet& set, const std::string& inputName);

/// JSON with the keys mean, std, scale, color ("rgb"/"bgr"), resize ("stretch"/"letterbox"), fill,
/// layout ("auto"/"nchw"/"nhwc"), dtype ("float32"...), size ([width, height]). Missing keys keep `base`.
/// Throws InvalidInput naming `where` and the key for a bad value.
Preprocessing preprocessingFromJson(const nlohmann::json& j, const std::string& where, Preprocessing base = {});
nlohmann::json preprocessingToJson(const Preprocessing& p);
/// A file with either one preprocessing object (for every input) or {"input name": {...}, "*": {...}}.
PreprocessingSet loadPreprocessingFile(const std::string& path);
/// Writes {"input name": {...}} atomically.
void savePreprocessingFile(const std::string& path, const PreprocessingSet& set);
nlohmann::json preprocessingSetToJson(const PreprocessingSet& set);

/// A model input with its preprocessing resolved against the declared shape.
struct InputGeometry {
    std::string name;
    DType dtype = DType::F32;
    Shape shape;               // concrete; a symbolic batch becomes 1
    Layout layout = Layout::NCHW;  // never Auto
    int64_t channels = 0, height = 0, width = 0;  // 0 when the input is not image-like (rank != 4)
    bool imageLike() const { return channels > 0; }
};

/// Throws InvalidInput naming the input when a needed dimension is unknown and not set in `p`.
InputGeometry resolveInput(const ValueInfo& input, const Preprocessing& p);

/// Resized or letterboxed to the input size (resizeImage), in the input's colour order and channel count (gray for
/// 1 channel): the picture the model sees, also what the GUI previews. Throws InvalidInput naming `origin` for a channel
/// count other than 1, 3 or 4.
Image prepareImage(const Image& image, const Preprocessing& p, const InputGeometry& g, const std::string& origin);
/// prepareImage, then scale/mean/std into a tensor of g.shape and g.dtype (batch 1; larger batches repeat it).
Tensor imageToTensor(const Image& image, const Preprocessing& p, const InputGeometry& g, const std::string& origin);

}  // namespace npuwb::imageio
