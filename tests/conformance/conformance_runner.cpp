// Runs ONNX's conformance data (Debian libonnx-testdata) through the engine's reference executor.
// Prints one line per failed/skipped case with its reason, then "N passed, N failed, N skipped".
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>

#include "npuwb/ModelIO.h"
#include "npuwb/Session.h"

namespace fs = std::filesystem;
using namespace npuwb;

namespace {

struct SkipRule {
    std::regex pattern;
    std::string reason;
};

std::vector<std::string> readLines(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        auto hash = line.find('#');
        if (hash != std::string::npos) line = line.substr(0, hash);
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
        if (!line.empty()) lines.push_back(line);
    }
    return lines;
}

void collectOps(const Graph& g, std::set<std::string>& ops) {
    for (const auto& n : g.nodes) {
        ops.insert((n.domain.empty() ? "" : n.domain + ".") + n.opType);
        for (const auto& [k, a] : n.attributes) {
            if (a.g) collectOps(*a.g, ops);
            for (const auto& sub : a.graphs) collectOps(*sub, ops);
        }
    }
}

/// Ops of the model file as written (before Constant folding), so a case counts as "claimed" by what it tests.
std::set<std::string> modelOps(const std::string& path) {
    ImportOptions raw;
    raw.inferShapes = false;
    raw.foldConstants = false;
    std::set<std::string> ops;
    collectOps(loadModel(path, raw).graph, ops);
    return ops;
}

std::string compareTensors(const Tensor& expected, const Tensor& actual, double rtol, double atol) {
    if (expected.dtype() != actual.dtype())
        return "dtype " + std::string(dtypeName(actual.dtype())) + ", expected " + std::string(dtypeName(expected.dtype()));
    if (expected.shape() != actual.shape())
        return "shape " + shapeToString(actual.shape()) + ", expected " + shapeToString(expected.shape());
    if (expected.dtype() == DType::String) {
        for (int64_t i = 0; i < expected.numel(); ++i)
            if (expected.data<std::string>()[i] != actual.data<std::string>()[i])
                return "string " + std::to_string(i) + " is '" + actual.data<std::string>()[i] + "', expected '" +
                       expected.data<std::string>()[i] + "'";
        return {};
    }
    const bool floating = isFloat(expected.dtype());
    for (int64_t i = 0; i < expected.numel(); ++i) {
        if (floating) {
            double e = expected.elementAsDouble(i), a = actual.elementAsDouble(i);
            if (std::isnan(e) && std::isnan(a)) continue;
            if (std::isinf(e) && e == a) continue;
            if (!(std::fabs(a - e) <= atol + rtol * std::fabs(e)))
                return "element " + std::to_string(i) + " is " + std::to_string(a) + ", expected " + std::to_string(e);
        } else if (expected.elementAsInt(i) != actual.elementAsInt(i)) {
            return "element " + std::to_string(i) + " is " + std::to_string(actual.elementAsInt(i)) + ", expected " +
                   std::to_string(expected.elementAsInt(i));
        }
    }
    return {};
}

std::string compareValues(const Value& expected, const Value& actual, double rtol, double atol) {
    if (expected.isNone() || actual.isNone())
        return expected.isNone() == actual.isNone() ? std::string() : std::string("optional presence differs");
    if (expected.isSequence() != actual.isSequence()) return "sequence vs tensor mismatch";
    if (expected.isSequence()) {
        if (expected.sequence.size() != actual.sequence.size())
            return "sequence length " + std::to_string(actual.sequence.size()) + ", expected " +
                   std::to_string(expected.sequence.size());
        for (size_t i = 0; i < expected.sequence.size(); ++i) {
            std::string d = compareTensors(expected.sequence[i], actual.sequence[i], rtol, atol);
            if (!d.empty()) return "sequence item " + std::to_string(i) + ": " + d;
        }
        return {};
    }
    return compareTensors(expected.tensor, actual.tensor, rtol, atol);
}

/// ONNX 1.12's test data stores bfloat16 tensors as uint16 bit patterns (numpy has no bfloat16).
Value adaptToDeclared(Value v, const ValueType& declared) {
    if (v.isTensor() && declared.dtype == DType::BF16 && v.tensor.dtype() == DType::U16) {
        Tensor t(DType::BF16, v.tensor.shape());
        for (int64_t i = 0; i < t.numel(); ++i) t.data<BFloat16>()[i] = BFloat16::fromBits(v.tensor.data<uint16_t>()[i]);
        v.tensor = t;
    }
    return v;
}

/// Returns an empty string on success, otherwise the reason.
std::string runCase(const fs::path& dir, double rtol, double atol, bool roundTrip) {
    auto model = std::make_shared<Model>(loadModel((dir / "model.onnx").string()));
    if (roundTrip)  // export the IR and import it again: the reloaded model must give the same results
        model = std::make_shared<Model>(loadModelFromBytes(serializeModel(*model), dir.string(), "re-exported model.onnx"));
    Session session(model);
    std::vector<const ValueInfo*> inputs;
    for (const auto& in : model->graph.inputs)
        if (!model->graph.initializers.count(in.name)) inputs.push_back(&in);
    std::vector<fs::path> sets;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
    std::sort(sets.begin(), sets.end());
    if (sets.empty()) return "no test data sets";
    for (const auto& set : sets) {
        std::map<std::string, Value> feeds;
        for (size_t i = 0; i < inputs.size(); ++i) {
            fs::path f = set / ("input_" + std::to_string(i) + ".pb");
            if (!fs::exists(f)) continue;  // optional input left out by the test
            feeds[inputs[i]->name] = adaptToDeclared(loadValueProtoFile(f.string(), inputs[i]->type), inputs[i]->type);
        }
        auto results = session.run(feeds);
        for (size_t i = 0; i < model->graph.outputs.size(); ++i) {
            fs::path f = set / ("output_" + std::to_string(i) + ".pb");
            if (!fs::exists(f)) continue;
            const auto& declared = model->graph.outputs[i];
            Value expected = adaptToDeclared(loadValueProtoFile(f.string(), declared.type), declared.type);
            std::string diff = compareValues(expected, results.at(declared.name), rtol, atol);
            if (!diff.empty()) return set.filename().string() + " output '" + declared.name + "': " + diff;
        }
    }
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Runs ONNX's conformance test data through the NPU Workbench reference executor"};
    std::string dataDir = "/usr/share/libonnx-testdata/data";
    std::vector<std::string> suites{"node", "simple", "pytorch-converted", "pytorch-operator"};
    std::string filter = ".*";
    std::string skipsFile, claimedFile;
    double minPassRate = 0.0, rtol = 1e-3, atol = 1e-7;
    bool requireClaimed = false, verbose = false, roundTrip = false;
    app.add_option("--data", dataDir, "folder holding the suites")->capture_default_str();
    app.add_option("--suites", suites, "suites to run")->delimiter(',')->capture_default_str();
    app.add_option("--filter", filter, "regex over 'suite/case' names");
    app.add_option("--skips", skipsFile, "file of '<regex> <reason>' lines naming cases to skip");
    app.add_option("--claimed-ops", claimedFile, "file listing the ops whose cases must all pass");
    app.add_option("--min-pass-rate", minPassRate, "fail (exit 1) below this fraction of passed cases");
    app.add_flag("--require-claimed", requireClaimed, "fail (exit 1) if any case made only of claimed ops fails");
    app.add_option("--rtol", rtol)->capture_default_str();
    app.add_option("--atol", atol)->capture_default_str();
    app.add_flag("-v,--verbose", verbose, "print passing cases too");
    app.add_flag("--round-trip", roundTrip, "run each model after ONNX export and re-import");
    CLI11_PARSE(app, argc, argv);

    std::vector<SkipRule> skips;
    std::set<std::string> claimed;
    try {
        if (!skipsFile.empty())
            for (const auto& line : readLines(skipsFile)) {
                auto sp = line.find_first_of(" \t");
                std::string pat = line.substr(0, sp);
                std::string reason = sp == std::string::npos ? "" : line.substr(line.find_first_not_of(" \t", sp));
                skips.push_back({std::regex(pat), reason});
            }
        if (!claimedFile.empty())
            for (const auto& line : readLines(claimedFile)) claimed.insert(line);
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
    std::regex filterRe(filter);
    int passed = 0, failed = 0, skipped = 0, claimedTotal = 0, claimedPassed = 0;
    std::vector<std::string> claimedFailures;
    auto start = std::chrono::steady_clock::now();
    for (const auto& suite : suites) {
        fs::path suiteDir = fs::path(dataDir) / suite;
        if (!fs::is_directory(suiteDir)) {
            std::cerr << "error: no suite folder " << suiteDir << "\n";
            return 1;
        }
        std::vector<fs::path> cases;
        for (const auto& e : fs::directory_iterator(suiteDir))
            if (e.is_directory()) cases.push_back(e.path());
        std::sort(cases.begin(), cases.end());
        for (const auto& dir : cases) {
            std::string name = suite + "/" + dir.filename().string();
            if (!std::regex_search(name, filterRe)) continue;
            std::string skipReason;
            for (const auto& s : skips)
                if (std::regex_match(name, s.pattern)) skipReason = s.reason.empty() ? "listed in skips" : s.reason;
            if (!skipReason.empty()) {
                ++skipped;
                std::cout << "SKIP " << name << ": " << skipReason << "\n";
                continue;
            }
            bool isClaimed = false;
            std::string reason;
            try {
                std::set<std::string> ops = modelOps((dir / "model.onnx").string());
                isClaimed = !claimed.empty() &&
                            std::all_of(ops.begin(), ops.end(), [&](const std::string& op) { return claimed.count(op) > 0; });
                reason = runCase(dir, rtol, atol, roundTrip);
            } catch (const std::exception& e) {
                reason = e.what();
            }
            if (isClaimed) ++claimedTotal;
            if (reason.empty()) {
                ++passed;
                if (isClaimed) ++claimedPassed;
                if (verbose) std::cout << "PASS " << name << "\n";
            } else {
                ++failed;
                std::cout << "FAIL " << name << (isClaimed ? " [claimed op]" : "") << ": " << reason << "\n";
                if (isClaimed) claimedFailures.push_back(name);
            }
        }
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    int total = passed + failed + skipped;
    double rate = total ? double(passed) / total : 0.0;
    std::cout << "\nconformance: " << passed << "/" << total << " cases pass (" << std::fixed;
    std::cout.precision(1);
    std::cout << rate * 100.0 << "%) in " << seconds << " s\n";
    if (!claimed.empty())
        std::cout << "cases made only of claimed ops: " << claimedPassed << "/" << claimedTotal << " pass\n";
    std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
    if (rate < minPassRate) {
        std::cout << "pass rate below the required " << minPassRate * 100.0 << "%\n";
        return 1;
    }
    if (requireClaimed && !claimedFailures.empty()) {
        std::cout << claimedFailures.size() << " claimed-op cases fail\n";
        return 1;
    }
    return 0;
}
