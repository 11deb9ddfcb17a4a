// Fits the cost model's shared coefficients on the published rknn_model_zoo figures (zoo-fps.csv) and checks it
// honestly: leave-one-family-out cross-validation (fit without the YOLOv5 family, predict it, and so on).
//
//   npuwb-perfmodel-fit --figures zoo-fps.csv --models-dir DIR --chips-dir resources/chips [--write]
//       [--max-median-error 0.2] [--max-error 0.5] [--max-fit-median-error 0.2] [--max-fit-error 0.5]
//
// Without --write it prints the fit table (the profiles' coefficients against every figure), the cross-validation
// table (each family predicted by coefficients fitted without it) and the RK3588 2- and 3-core predictions, and
// exits 1 when an error exceeds its threshold or when the profiles' stored validation no longer matches the
// cross-validation. With --write it fits on every figure and writes the coefficients and the validation into
// every profile's "costModel" object.
//
// Error = estimated time / published time - 1 (positive: the estimate is too slow). The fit minimizes a robust
// (soft-L1) loss of log(estimated / published) by a pattern search over the logarithms of the coefficients.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "npuwb/AtomicFile.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/ModelIO.h"
#include "perfmodel/ModelPlan.h"

namespace fs = std::filesystem;
using namespace npuwb;

namespace {

struct Figure {
    std::string model, family, chip;  // chip: profile name
    std::string column;               // CSV column the figure came from
    double publishedFps = 0;
};

/// One figure with its model planned for its chip (planning is the slow part; costing a plan is cheap).
struct Point {
    const Figure* figure = nullptr;
    const ChipProfile* chip = nullptr;
    ModelPlan plan;
};

/// The coefficients the fit chooses, as logarithms, and how they map onto CostCoefficients.
struct Knob {
    const char* name;
    double CostCoefficients::*field;
    double lo, hi;  // physical bounds
};
Knob kKnobs[] = {
    {"computeEfficiency", &CostCoefficients::computeEfficiency, 0.05, 1.0},
    {"ddrEfficiency", &CostCoefficients::ddrEfficiency, 0.05, 1.0},
    {"layerOverheadCycles", &CostCoefficients::layerOverheadCycles, 50, 50000},
    {"lutElementsPerLane", &CostCoefficients::lutElementsPerLane, 0.01, 4.0},
    {"cpuConvertMacsPerElement", &CostCoefficients::cpuConvertMacsPerElement, 0.1, 200},
    {"cpuSwitchOverheads", &CostCoefficients::cpuSwitchOverheads, 0.01, 100},
};
constexpr size_t kKnobCount = sizeof(kKnobs) / sizeof(kKnobs[0]);
using Theta = std::array<double, kKnobCount>;

CostCoefficients withTheta(CostCoefficients k, const Theta& t) {
    for (size_t i = 0; i < kKnobCount; ++i) k.*(kKnobs[i].field) = std::exp(t[i]);
    return k;
}

double ratioOf(const Point& p, const CostCoefficients& k, int64_t cores = 1) {
    const double us = planTimeUs(p.plan, *p.chip, cores, k);
    return us / (1e6 / p.figure->publishedFps);  // estimated / published time
}

double loss(const std::vector<const Point*>& pts, const CostCoefficients& base, const Theta& t) {
    for (size_t i = 0; i < kKnobCount; ++i)
        if (t[i] < std::log(kKnobs[i].lo) || t[i] > std::log(kKnobs[i].hi)) return 1e300;
    const CostCoefficients k = withTheta(base, t);
    constexpr double scale = 0.1;  // residuals beyond ~10% count linearly, not squared (robust to one bad model)
    double sum = 0;
    for (const Point* p : pts) {
        const double r = std::log(ratioOf(*p, k)) / scale;
        sum += 2.0 * (std::sqrt(1.0 + r * r) - 1.0);
    }
    return sum;
}

/// Pattern search from a few starts: step every coordinate both ways, keep improvements, halve the step.
Theta fit(const std::vector<const Point*>& pts, const CostCoefficients& base) {
    Theta best{};
    double bestLoss = 1e300;
    for (double eff : {0.3, 0.7})
        for (double ddr : {0.15, 0.5})
            for (double overhead : {500.0, 5000.0}) {
                Theta t{std::log(eff), std::log(ddr), std::log(overhead), std::log(0.25), std::log(4.0), std::log(1.0)};
                for (size_t i = 0; i < kKnobCount; ++i)
                    t[i] = std::clamp(t[i], std::log(kKnobs[i].lo), std::log(kKnobs[i].hi));
                double l = loss(pts, base, t);
                for (double step = 0.5; step > 1e-3; step /= 2) {
                    for (bool improved = true; improved;) {
                        improved = false;
                        for (size_t i = 0; i < kKnobCount; ++i)
                            for (double dir : {-1.0, 1.0}) {
                                Theta c = t;
                                c[i] += dir * step;
                                double cl = loss(pts, base, c);
                                if (cl < l - 1e-12) {
                                    t = c;
                                    l = cl;
                                    improved = true;
                                }
                            }
                    }
                }
                if (l < bestLoss) {
                    bestLoss = l;
                    best = t;
                }
            }
    return best;
}

std::vector<Figure> readFigures(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::vector<Figure> out;
    std::vector<std::string> header;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> cells;
        std::stringstream ss(line);
        for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
        if (header.empty()) {
            header = cells;
            continue;
        }
        if (cells.size() != header.size()) throw std::runtime_error(path + ": row '" + line + "' has the wrong column count");
        std::map<std::string, std::string> row;
        for (size_t i = 0; i < cells.size(); ++i) row[header[i]] = cells[i];
        for (const auto& [column, chip] : {std::pair<std::string, std::string>{"rk3566_68", "rk3566"},
                                           {"rk3588_single_core", "rk3588"}})
            out.push_back(Figure{row.at("model"), row.at("family"), chip, column, std::stod(row.at(column))});
    }
    return out;
}

double percentile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double pos = q * double(v.size() - 1);
    const size_t i = static_cast<size_t>(pos);
    return i + 1 < v.size() ? v[i] + (pos - double(i)) * (v[i + 1] - v[i]) : v.back();
}

struct Summary {
    double medianAbs = 0, maxAbs = 0, p10 = 1, p90 = 1;
};
Summary summarize(const std::vector<double>& ratios) {
    std::vector<double> abs;
    for (double r : ratios) abs.push_back(std::abs(r - 1.0));
    return Summary{percentile(abs, 0.5), *std::max_element(abs.begin(), abs.end()), percentile(ratios, 0.1),
                   percentile(ratios, 0.9)};
}

void printTable(const char* title, const std::vector<Point>& points, const std::vector<double>& ratios) {
    std::printf("\n%s\n%-30s %-8s %-12s %10s %10s %8s\n", title, "model", "chip", "family", "published", "estimated",
                "error");
    for (size_t i = 0; i < points.size(); ++i) {
        const Figure& f = *points[i].figure;
        std::printf("%-30s %-8s %-12s %10.1f %10.1f %+7.0f%%\n", f.model.c_str(), points[i].chip->name.c_str(),
                    f.family.c_str(), f.publishedFps, f.publishedFps / ratios[i], 100.0 * (ratios[i] - 1.0));
    }
    const Summary s = summarize(ratios);
    std::printf("median |error| %.1f%%, max |error| %.1f%%, estimated/published time 10th-90th percentile %.2f-%.2f\n",
                100 * s.medianAbs, 100 * s.maxAbs, s.p10, s.p90);
}

void writeProfiles(const std::string& chipsDir, const CostCoefficients& k, const Summary& cv, size_t points) {
    for (const auto& entry : fs::directory_iterator(chipsDir)) {
        if (entry.path().extension() != ".json") continue;
        nlohmann::ordered_json j = nlohmann::ordered_json::parse(readFile(entry.path().string()));
        const std::string name = j.at("name").get<std::string>();
        const bool published = name == "RK3588" || name == "RK3566" || name == "RK3568";
        nlohmann::ordered_json cm;
        for (const Knob& knob : kKnobs) cm[knob.name] = std::round(k.*(knob.field) * 1e4) / 1e4;
        cm["minStripePixels"] = k.minStripePixels;
        cm["outputBlockCycles"] = k.outputBlockCycles;
        cm["validation"] = {
            {"method", std::string("leave-one-family-out cross-validation on the rknn_model_zoo figures of RK3566/68 "
                                   "and RK3588 (tests/perfmodel/zoo-fps.csv)") +
                           (published ? "" : "; no published figures for " + name +
                                                 ": the same physics with its own clock, MAC array and DDR")},
            {"points", points},
            {"medianAbsError", std::round(cv.medianAbs * 1e4) / 1e4},
            {"maxAbsError", std::round(cv.maxAbs * 1e4) / 1e4},
            {"fastRatioP10", std::round(cv.p10 * 1e4) / 1e4},
            {"slowRatioP90", std::round(cv.p90 * 1e4) / 1e4}};
        j["costModel"] = cm;
        writeFileAtomically(entry.path().string(), j.dump(1) + "\n");
        std::printf("wrote %s\n", entry.path().string().c_str());
    }
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app("fit and cross-validate the NPU cost model on published rknn_model_zoo figures");
    std::string figuresPath, modelsDir, chipsDir;
    bool write = false;
    double maxMedian = 0.20, maxError = 0.50, maxFitMedian = 0.20, maxFitError = 0.50;
    app.add_option("--figures", figuresPath, "published figures CSV")->required();
    app.add_option("--models-dir", modelsDir, "folder with NAME.onnx from tests/perfmodel/zoo/export.py")->required();
    app.add_option("--chips-dir", chipsDir, "chip profile folder (resources/chips)")->required();
    app.add_flag("--write", write, "fit on every figure and write the coefficients into the profiles");
    app.add_option("--max-median-error", maxMedian, "cross-validation: largest median |error| allowed");
    app.add_option("--max-error", maxError, "cross-validation: largest |error| allowed");
    app.add_option("--max-fit-median-error", maxFitMedian, "fit with the profiles' coefficients: median");
    app.add_option("--max-fit-error", maxFitError, "fit with the profiles' coefficients: max");
    std::vector<std::string> fixed;
    app.add_option("--fix", fixed, "NAME=VALUE: hold a coefficient at a value (experiments: what the others absorb)");
    CLI11_PARSE(app, argc, argv);
    try {
        for (const std::string& f : fixed) {
            const size_t eq = f.find('=');
            Knob* knob = std::find_if(std::begin(kKnobs), std::end(kKnobs),
                                      [&](const Knob& k) { return f.substr(0, eq) == k.name; });
            if (eq == std::string::npos || knob == std::end(kKnobs)) throw std::runtime_error("--fix " + f + ": unknown");
            knob->lo = knob->hi = std::stod(f.substr(eq + 1));
        }
        const std::vector<Figure> figures = readFigures(figuresPath);
        std::map<std::string, ChipProfile> chips;
        for (const char* name : {"rk3566", "rk3588"})
            chips.emplace(name, loadChipProfile((fs::path(chipsDir) / (std::string(name) + ".json")).string()));
        std::vector<Point> points;
        std::map<std::string, Model> models;
        for (const Figure& f : figures) {
            if (!models.count(f.model))
                models.emplace(f.model, loadModel((fs::path(modelsDir) / (f.model + ".onnx")).string()));
            Point p;
            p.figure = &f;
            p.chip = &chips.at(f.chip);
            p.plan = planModel(models.at(f.model), *p.chip, "int8");
            points.push_back(std::move(p));
        }
        const CostCoefficients profileK = chips.at("rk3588").coefficients;

        // Leave one family out: fit without it, predict it.
        std::vector<double> cvRatios(points.size());
        std::vector<std::string> families;
        for (const Figure& f : figures)
            if (std::find(families.begin(), families.end(), f.family) == families.end()) families.push_back(f.family);
        for (const std::string& family : families) {
            std::vector<const Point*> train;
            for (const Point& p : points)
                if (p.figure->family != family) train.push_back(&p);
            const CostCoefficients k = withTheta(profileK, fit(train, profileK));
            std::printf("fold without %-11s:", family.c_str());
            for (const Knob& knob : kKnobs) std::printf(" %s %.4g", knob.name, k.*(knob.field));
            std::printf("\n");
            for (size_t i = 0; i < points.size(); ++i)
                if (points[i].figure->family == family) cvRatios[i] = ratioOf(points[i], k);
        }
        const Summary cv = summarize(cvRatios);

        CostCoefficients k = profileK;
        if (write) {
            std::vector<const Point*> all;
            for (const Point& p : points) all.push_back(&p);
            k = withTheta(profileK, fit(all, profileK));
            writeProfiles(chipsDir, k, cv, points.size());
        }
        std::printf("\ncoefficients:");
        for (const Knob& knob : kKnobs) std::printf(" %s %.4g", knob.name, k.*(knob.field));
        std::printf("\n");
        std::vector<double> fitRatios;
        for (const Point& p : points) fitRatios.push_back(ratioOf(p, k));
        printTable("Fit (coefficients of the profiles, every figure):", points, fitRatios);
        printTable("Leave-one-family-out cross-validation (each family predicted by a fit without it):", points,
                   cvRatios);

        std::printf("\nRK3588 multi-core predictions (no published figures; only the ops of the facts list split):\n");
        std::printf("%-30s %9s %9s %9s\n", "model", "1 core", "2 cores", "3 cores");
        for (const Point& p : points) {
            if (p.figure->chip != "rk3588") continue;
            std::printf("%-30s", p.figure->model.c_str());
            for (int64_t cores : {1, 2, 3}) std::printf(" %9.1f", 1e6 / planTimeUs(p.plan, *p.chip, cores, k));
            std::printf("\n");
        }
        if (write) return 0;

        const Summary fitSummary = summarize(fitRatios);
        int failures = 0;
        auto require = [&](bool ok, const std::string& what) {
            if (!ok) {
                std::printf("FAIL: %s\n", what.c_str());
                ++failures;
            }
        };
        char buf[256];
        std::snprintf(buf, sizeof buf, "cross-validation median |error| %.3f <= %.3f", cv.medianAbs, maxMedian);
        require(cv.medianAbs <= maxMedian, buf);
        std::snprintf(buf, sizeof buf, "cross-validation max |error| %.3f <= %.3f", cv.maxAbs, maxError);
        require(cv.maxAbs <= maxError, buf);
        std::snprintf(buf, sizeof buf, "fit median |error| %.3f <= %.3f", fitSummary.medianAbs, maxFitMedian);
        require(fitSummary.medianAbs <= maxFitMedian, buf);
        std::snprintf(buf, sizeof buf, "fit max |error| %.3f <= %.3f", fitSummary.maxAbs, maxFitError);
        require(fitSummary.maxAbs <= maxFitError, buf);
        for (const auto& [name, chip] : chips) {
            const EstimateValidation& v = chip.validation;
            const bool same = v.points == int(points.size()) && std::abs(v.medianAbsError - cv.medianAbs) < 0.01 &&
                              std::abs(v.maxAbsError - cv.maxAbs) < 0.01 && std::abs(v.fastRatioP10 - cv.p10) < 0.01 &&
                              std::abs(v.slowRatioP90 - cv.p90) < 0.01;
            require(same, name + ".json costModel.validation matches this cross-validation (else re-run with --write)");
        }
        std::printf("\n%s\n", failures ? "calibration check FAILED" : "calibration check passed");
        return failures ? 1 : 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "npuwb-perfmodel-fit: %s\n", e.what());
        return 2;
    }
}
