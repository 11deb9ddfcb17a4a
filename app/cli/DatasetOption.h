#pragma once
// The --dataset / --preprocess options of `quantize` and `accuracy`: a dataset.txt (or image folder) turned into
// a quant::SampleSource. Uses app/imageio (images + .npy, preprocessing) when the CLI is built with it, else the
// engine's .npy-only source.
#include <memory>
#include <string>

#include "npuwb/ir/Graph.h"
#include "npuwb/SampleSource.h"

namespace npuwb::cli {

std::unique_ptr<quant::SampleSource> openDataset(const std::string& listOrFolder, const Model& model,
                                                 const std::string& preprocessingFile);

}  // namespace npuwb::cli
