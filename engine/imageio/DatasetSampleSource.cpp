#include "npuwb/DatasetSampleSource.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"
#include "npuwb/Npy.h"
#include "npuwb/Sha256.h"

namespace npuwb::imageio {

namespace {

std::string joinNames(const std::vector<ValueInfo>& inputs) {
    std::string out;
    for (const ValueInfo& v : inputs) out += (out.empty() ? "" : ", ") + v.name;
    return out;
}

/// Whether every entry feeds input `input` from a .npy file.
bool npyColumn(const DatasetList& list, size_t input) {
    if (list.entries.empty()) return false;
    for (const auto& e : list.entries)
        if (input >= e.files.size() || !isNpyFile(e.files[input])) return false;
    return true;
}

/// The geometry of an input that only .npy files feed and whose declared shape has symbolic dims (PP-OCR's
/// [?,3,?,?]): the first file's shape (with the batch dimension when the file leaves it out), which every other
/// file must then have. Images would need a preprocessing size instead.
InputGeometry npyGeometry(const DatasetList& list, size_t input, const ValueInfo& declared) {
    InputGeometry g;
    g.name = declared.name;
    const std::string& path = list.entries[0].files[input];
    Tensor first;
    try {
        first = readNpy(path);
    } catch (const Error& e) {
        fail(e.kind(), list.originOf(0) + ": " + e.what());
    }
    g.dtype = declared.type.dtype != DType::Undefined ? declared.type.dtype : first.dtype();
    g.shape = first.shape();
    if (declared.type.shape && declared.type.shape->size() == g.shape.size() + 1) g.shape.insert(g.shape.begin(), 1);
    if (declared.type.shape && declared.type.shape->size() == g.shape.size())
        for (size_t d = 0; d < g.shape.size(); ++d)
            if ((*declared.type.shape)[d].known() && (*declared.type.shape)[d].value != g.shape[d])
                failInput(list.originOf(0) + ": wrong shape: '" + path + "' is " + shapeToString(first.shape()) +
                          ", input '" + g.name + "' takes " + symShapeToString(*declared.type.shape));
    return g;
}

bool fullyStatic(const ValueInfo& v) {
    if (!v.type.shape) return false;
    for (const Dim& d : *v.type.shape)
        if (!d.known()) return false;
    return true;
}

}  // namespace

std::vector<ValueInfo> modelFeedInputs(const Model& model) {
    std::vector<ValueInfo> out;
    for (const ValueInfo& v : model.graph.inputs)
        if (!model.graph.initializers.count(v.name)) out.push_back(v);
    return out;
}

DatasetSampleSource::DatasetSampleSource(DatasetList list, const std::vector<ValueInfo>& inputs,
                                         PreprocessingSet preprocessing)
    : list_(std::move(list)), preprocessing_(std::move(preprocessing)) {
    if (inputs.empty()) failInput(list_.source + ": the model has no inputs to feed");
    for (const auto& [name, p] : preprocessing_) {
        if (name == "*") continue;
        if (std::none_of(inputs.begin(), inputs.end(), [&](const ValueInfo& v) { return v.name == name; }))
            failInput("preprocessing names input '" + name + "', which the model does not have");
    }
    if (list_.isFolder && inputs.size() > 1)
        failInput(list_.source + ": a folder gives one file per sample, but the model has " +
                  std::to_string(inputs.size()) + " inputs (" + joinNames(inputs) +
                  "); use a dataset.txt with one file per input on each line");
    for (size_t i = 0; i < list_.entries.size(); ++i)
        if (list_.entries[i].files.size() != inputs.size())
            failInput(list_.originOf(i) + ": " + std::to_string(list_.entries[i].files.size()) +
                      " file(s) on this line, but the model has " + std::to_string(inputs.size()) + " input(s) (" +
                      joinNames(inputs) + ")");
    for (size_t i = 0; i < inputs.size(); ++i)
        geometry_.push_back(!fullyStatic(inputs[i]) && npyColumn(list_, i)
                                ? npyGeometry(list_, i, inputs[i])
                                : resolveInput(inputs[i], preprocessingFor(preprocessing_, inputs[i].name)));

}

Image DatasetSampleSource::loadImage(size_t index, size_t input) const {
    if (index >= size()) failInput(list_.source + ": sample " + std::to_string(index) + " out of range");
    const std::string& path = list_.entries[index].files.at(input);
    const std::string origin = list_.originOf(index);
    if (!isImageFile(path)) failInput(origin + ": '" + path + "' is not an image (jpg, png, bmp)");
    if (std::error_code ec; !std::filesystem::exists(path, ec))
        fail(ErrorKind::Io, origin + ": file not found: " + path + (ec ? " (" + ec.message() + ")" : ""));
    try {
        return decodeImageFile(path);  // with the EXIF orientation applied, as viewers show it
    } catch (const Error& e) {
        fail(e.kind(), origin + ": " + e.what());
    }
}

Tensor DatasetSampleSource::loadInput(size_t index, size_t input) const {
    const InputGeometry& g = geometry_[input];
    const std::string& path = list_.entries[index].files[input];
    const std::string origin = list_.originOf(index);
    if (isImageFile(path)) return imageToTensor(loadImage(index, input), preprocessingOf(input), g, origin);
    if (!isNpyFile(path))
        failInput(origin + ": '" + path + "' for input '" + g.name + "' is neither an image (jpg, png, bmp) nor .npy");
    if (std::error_code ec; !std::filesystem::exists(path, ec))
        fail(ErrorKind::Io, origin + ": file not found: " + path + (ec ? " (" + ec.message() + ")" : ""));
    Tensor t;
    try {
        t = readNpy(path);
    } catch (const Error& e) {
        fail(e.kind(), origin + ": " + e.what());
    }
    if (t.dtype() != g.dtype)
        failInput(origin + ": wrong dtype: '" + path + "' holds " + std::string(dtypeName(t.dtype())) + ", input '" +
                  g.name + "' takes " + std::string(dtypeName(g.dtype)));
    if (t.shape() == g.shape) return t;
    // A sample without the batch dimension is fine when the batch is 1.
    if (g.shape.size() == t.rank() + 1 && g.shape[0] == 1 && Shape(g.shape.begin() + 1, g.shape.end()) == t.shape())
        return t.reshaped(g.shape);
    failInput(origin + ": wrong shape: '" + path + "' is " + shapeToString(t.shape()) + ", input '" + g.name +
              "' takes " + shapeToString(g.shape));
}

quant::Sample DatasetSampleSource::load(size_t index) const {
    if (index >= size())
        failInput(list_.source + ": sample " + std::to_string(index) + " out of range (" + std::to_string(size()) +
                  " samples)");
    quant::Sample sample;
    sample.origin = list_.originOf(index);
    for (size_t i = 0; i < geometry_.size(); ++i) sample.inputs.emplace(geometry_[i].name, loadInput(index, i));
    return sample;
}

std::string DatasetSampleSource::contentHash() const {
    std::call_once(hashOnce_, [this] {
        Sha256 hash;
        const auto addText = [&](const std::string& s) {
            hash.update(s);
            hash.update("\0", 1);
        };
        if (!list_.isFolder) addText(readFile(list_.source));
        for (size_t i = 0; i < list_.entries.size(); ++i)
            for (const std::string& path : list_.entries[i].files) {
                addText(std::filesystem::path(path).filename().string());
                std::ifstream file(path, std::ios::binary);
                if (!file) fail(ErrorKind::Io, list_.originOf(i) + ": cannot read " + path);
                char block[1 << 16];
                while (file.read(block, sizeof block) || file.gcount() > 0)
                    hash.update(block, static_cast<size_t>(file.gcount()));
                if (file.bad()) fail(ErrorKind::Io, list_.originOf(i) + ": cannot read " + path);
            }
        // The same files preprocessed differently are a different calibration set.
        addText(preprocessingSetToJson(preprocessing_).dump());
        hash_ = hash.hex();
    });
    return hash_;
}

std::unique_ptr<DatasetSampleSource> makeSampleSource(const std::string& listOrFolder,
                                                      const std::vector<ValueInfo>& inputs,
                                                      const PreprocessingSet& preprocessing) {
    return std::make_unique<DatasetSampleSource>(loadDatasetList(listOrFolder), inputs, preprocessing);
}

}  // namespace npuwb::imageio
