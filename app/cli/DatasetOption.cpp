#include "DatasetOption.h"

#include <filesystem>
#include <sstream>

#include "npuwb/AtomicFile.h"
#include "npuwb/DatasetSampleSource.h"
#include "npuwb/Error.h"
#include "npuwb/NpySampleSource.h"
#include "npuwb/Preprocessing.h"

namespace npuwb::cli {

namespace {
// A list whose entries are all .npy needs no image preprocessing (and no fixed image geometry).
bool npyOnlyList(const std::string& path) {
    if (std::error_code ec; !std::filesystem::is_regular_file(path, ec)) return false;
    std::istringstream in(readFile(path));
    bool any = false;
    for (std::string token; in >> token;) {
        if (token[0] == '#') {
            std::string rest;
            std::getline(in, rest);
            continue;
        }
        if (std::filesystem::path(token).extension() != ".npy") return false;
        any = true;
    }
    return any;
}
}  // namespace

std::unique_ptr<quant::SampleSource> openDataset(const std::string& listOrFolder, const Model& model,
                                                 const std::string& preprocessingFile) {
    std::vector<ValueInfo> inputs;
    for (const auto& in : model.graph.inputs)
        if (!model.graph.initializers.count(in.name)) inputs.push_back(in);
    if (preprocessingFile.empty() && npyOnlyList(listOrFolder))
        return std::make_unique<quant::NpySampleSource>(listOrFolder, inputs);
    imageio::PreprocessingSet pre;
    if (!preprocessingFile.empty()) pre = imageio::loadPreprocessingFile(preprocessingFile);
    return imageio::makeSampleSource(listOrFolder, inputs, pre);
}

}  // namespace npuwb::cli
