#pragma once
// The --dataset / --preprocess options of `quantize` and `accuracy`: a dataset.txt (or image folder) turned into
// a quant::SampleSource: the engine's npuwb_imageio (images + .npy, preprocessing), or its .npy-only source for a
// list of .npy files without preprocessing.
#include <memory>
#include <string>

#include "npuwb/ir/Graph.h"
#include "npuwb/SampleSource.h"

namespace npuwb::cli {

std::unique_ptr<quant::SampleSource> openDataset(const std::string& listOrFolder, const Model& model,
                                                 const std::string& preprocessingFile);

}  // namespace npuwb::cli
