#include "RealAccuracySupport.h"

#include <unistd.h>

#include <filesystem>
#include <memory>

#include "npuwb/ModelIO.h"
#include "npuwb/Session.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"

namespace npuwb::realquant {

namespace fs = std::filesystem;

Model loadTestModel(const std::string& fileName) { return loadModel(std::string(NPUWB_TEST_MODELS) + "/" + fileName); }

std::vector<std::vector<float>> runOutputs(const Model& model, const quant::SampleSource& samples,
                                           const std::vector<std::string>& outputs) {
    SessionOptions options;
    options.executor.backend = "auto";
    const Session session(std::make_shared<const Model>(model), options);
    std::vector<std::vector<float>> out;
    for (size_t i = 0; i < samples.size(); ++i) {
        const std::map<std::string, Tensor> result = session.runTensors(samples.load(i).inputs);
        std::vector<float> flat;
        for (const std::string& output : outputs) {
            const auto it = result.find(output);
            if (it == result.end()) failInput("model has no output '" + output + "'");
            const std::vector<float> values = it->second.toFloatVector();
            flat.insert(flat.end(), values.begin(), values.end());
        }
        out.push_back(std::move(flat));
    }
    return out;
}

std::string writeImageList(const std::string& folder, const std::vector<QImage>& images) {
    fs::create_directories(folder);
    std::string list;
    for (size_t i = 0; i < images.size(); ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "%04zu.png", i);
        const std::string path = (fs::path(folder) / name).string();
        if (!images[i].save(QString::fromStdString(path))) fail(ErrorKind::Io, "cannot write " + path);
        list += std::string(name) + "\n";
    }
    const std::string listPath = (fs::path(folder) / "list.txt").string();
    writeFileAtomically(listPath, list);
    return listPath;
}

// One folder per process: ctest runs several filters of this binary at once and they share draw seeds.
std::string freshFolder(const std::string& name) {
    std::string process = "p";
    process += std::to_string(::getpid());  // appended: "p" + temporary trips GCC 12's -Wrestrict false positive
    const fs::path path = fs::path(NPUWB_REAL_DATA_DIR) / process / name;
    fs::remove_all(path);
    fs::create_directories(path);
    return path.string();
}

}  // namespace npuwb::realquant
