// Prints the cost model's prediction next to each published board figure it was calibrated on and fails when
// any prediction is off by more than the stated factor, so a change to the model or the profiles that breaks the
// calibration shows up in CI. Usage: npuwb-perfmodel-calibration --points JSON --models-dir DIR
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "npuwb/ChipProfile.h"
#include "npuwb/ModelIO.h"
#include "npuwb/CostModel.h"
#include "npuwb/AtomicFile.h"

int main(int argc, char** argv) {
    CLI::App app("cost-model calibration: predicted vs published FPS");
    std::string pointsPath, modelsDir;
    app.add_option("--points", pointsPath, "calibration points JSON")->required();
    app.add_option("--models-dir", modelsDir, "folder with the exported models")->required();
    CLI11_PARSE(app, argc, argv);
    try {
        nlohmann::json doc = nlohmann::json::parse(npuwb::readFile(pointsPath));
        double maxFactor = doc.at("maxFactor").get<double>();
        std::printf("%s\n%s\n\n", doc.at("source").get<std::string>().c_str(), doc.at("note").get<std::string>().c_str());
        std::printf("%-18s %-16s %-8s %5s %-5s %10s %10s %8s %12s  %s\n", "model", "published as", "chip", "cores",
                    "dtype", "published", "predicted", "ratio", "pred. us", "status");
        std::map<std::string, npuwb::Model> models;
        int failures = 0;
        double logSum = 0;
        for (const auto& p : doc.at("points")) {
            std::string file = p.at("model").get<std::string>();
            if (!models.count(file)) models.emplace(file, npuwb::loadModel((std::filesystem::path(modelsDir) / file).string()));
            npuwb::ChipProfile chip = npuwb::findChipProfile(p.at("chip").get<std::string>());
            npuwb::EstimateOptions options;
            options.cores = p.at("cores").get<int64_t>();
            options.dtype = p.at("dtype").get<std::string>();
            npuwb::Report r = npuwb::estimateModel(models.at(file), chip, options);
            double published = p.at("fps").get<double>();
            double predicted = npuwb::estimatedFps(r);
            double ratio = predicted / published;
            bool ok = ratio <= maxFactor && ratio >= 1.0 / maxFactor;
            failures += ok ? 0 : 1;
            logSum += std::log(ratio);
            std::printf("%-18s %-16s %-8s %5lld %-5s %10.1f %10.1f %8.2f %12.1f  %s\n", file.c_str(),
                        p.at("published").get<std::string>().c_str(), chip.name.c_str(),
                        static_cast<long long>(options.cores), options.dtype.c_str(), published, predicted, ratio,
                        r.run.medianUs, ok ? "ok" : "OUT OF RANGE");
        }
        size_t n = doc.at("points").size();
        std::printf("\ngeometric mean predicted/published: %.2f; allowed factor %.1fx; %d of %zu outside\n",
                    std::exp(logSum / double(n)), maxFactor, failures, n);
        return failures == 0 ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "calibration: %s\n", e.what());
        return 2;
    }
}
