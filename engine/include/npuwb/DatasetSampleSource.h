#pragma once
// quant::SampleSource over a data set list and per-input preprocessing: sample i is decoded on demand
// (decodeImageFile for images, the engine's .npy reader for arrays), so calibration streams and several threads can
// load at once.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "npuwb/DatasetList.h"
#include "npuwb/Image.h"
#include "npuwb/Preprocessing.h"
#include "npuwb/SampleSource.h"

namespace npuwb::imageio {

class DatasetSampleSource : public quant::SampleSource {
public:
    /// Checks every entry's file count against the inputs and resolves each input's geometry up front, so a bad
    /// list fails before calibration starts (errors name the list file and line).
    DatasetSampleSource(DatasetList list, const std::vector<ValueInfo>& inputs, PreprocessingSet preprocessing);

    size_t size() const override { return list_.entries.size(); }
    quant::Sample load(size_t index) const override;
    /// SHA-256 over the list (or folder entry names), every file's bytes and the preprocessing, in hex.
    std::string contentHash() const override;

    const DatasetList& list() const { return list_; }
    const std::vector<InputGeometry>& inputs() const { return geometry_; }
    const Preprocessing& preprocessingOf(size_t input) const { return preprocessingFor(preprocessing_, geometry_[input].name); }
    /// The decoded image of sample `index`, input `input` (throws when that entry is a .npy): for previews.
    Image loadImage(size_t index, size_t input) const;

private:
    Tensor loadInput(size_t index, size_t input) const;

    DatasetList list_;
    PreprocessingSet preprocessing_;
    std::vector<InputGeometry> geometry_;
    mutable std::once_flag hashOnce_;
    mutable std::string hash_;
};

/// The factory the CLI and GUI call: a dataset.txt or a folder of images, the model's graph inputs (those
/// without an initializer) and the preprocessing.
std::unique_ptr<DatasetSampleSource> makeSampleSource(const std::string& listOrFolder,
                                                      const std::vector<ValueInfo>& inputs,
                                                      const PreprocessingSet& preprocessing = {});
/// The inputs a caller must feed: graph inputs that are not initializers.
std::vector<ValueInfo> modelFeedInputs(const Model& model);

}  // namespace npuwb::imageio
