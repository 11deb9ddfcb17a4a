// `npuwb-cli advise MODEL --target CHIP [--dtype int8|fp16] [--cores N] [--json OUT] [--input-shape NAME=dims]`:
// the advisor's findings for a chip, grouped by rule and sorted by estimated gain (a fixing pass's gain measured by
// applying it to a copy), and what applying every fixing pass gives; --json writes the estimate report with the
// findings as suggestions[].
#include <cstdio>
#include <iostream>
#include <map>

#include "Commands.h"
#include "InputShapeOption.h"
#include "npuwb/Advisor.h"
#include "npuwb/CostModel.h"
#include "npuwb/Error.h"
#include "npuwb/VendorGuide.h"

namespace npuwb::cli {

namespace {
struct AdviseCliOptions {
    std::string model, target, jsonPath, dtype = "int8";
    int cores = 1;
    int top = 0;
    std::vector<std::string> inputShapes;
    bool listRules = false;
};

void printRules() {
    for (const auto& r : advisor::listRules()) std::printf("%-20s %s\n", r.name.c_str(), r.description.c_str());
}

void printFindings(const std::vector<advisor::Finding>& findings, const advisor::Advice& advice, size_t total) {
    const Report& estimate = advice.estimate;
    // Groups in the order of their best finding (findings arrive sorted by gain).
    std::vector<std::string> order;
    std::map<std::string, std::vector<const advisor::Finding*>> byRule;
    for (const auto& f : findings) {
        if (!byRule.count(f.rule)) order.push_back(f.rule);
        byRule[f.rule].push_back(&f);
    }
    std::map<std::string, std::string> descriptions;
    for (const auto& r : advisor::listRules()) descriptions[r.name] = r.description;
    for (const auto& rule : order) {
        const auto& list = byRule[rule];
        double sum = 0;
        for (auto* f : list) sum += f->estimatedGainUs;
        std::printf("\n== %s: %zu finding(s), estimated gain %.1f us summed -- %s\n", rule.c_str(), list.size(), sum,
                    descriptions[rule].c_str());
        for (auto* f : list) {
            // "=": measured by applying the pass to a copy; "~": the cost model's figure for the site.
            std::printf("  [%-6s] %c%9.1f us  %s\n", f->severity.c_str(), f->gainMeasured ? '=' : '~',
                        f->estimatedGainUs, f->hazard.c_str());
            std::printf("  %27s evidence: %s\n", "", advisor::evidenceText(*f).c_str());
            std::printf("  %27s fix: %s%s%s\n", "", f->mitigation.c_str(),
                        f->pass.empty() ? "" : ("  [pass: " + f->pass + "]").c_str(),
                        f->guideSection.empty() ? "" : ("  [" + citeVendorGuide(f->guideSection) + "]").c_str());
        }
    }
    std::printf("\n%zu finding(s)%s; the estimate is %.1f us per frame. A gain marked = is what applying its pass to "
                "a copy changed in the estimate (its share of the pass's whole change); ~ is the cost model's "
                "figure. Gains overlap (two findings on one layer share its time): do not add them.\n",
                total, findings.size() < total ? (" (" + std::to_string(findings.size()) + " shown)").c_str() : "",
                estimate.run.medianUs);
    const advisor::PassesGain& all = advice.allPasses;
    if (all.passes.empty()) return;
    std::string names;
    for (const std::string& p : all.passes) names += (names.empty() ? "" : ", ") + p;
    if (!all.error.empty())
        std::printf("Applying every fixing pass (%s) failed on a copy: %s\n", names.c_str(), all.error.c_str());
    else
        std::printf("Applying every fixing pass (%s): %.1f -> %.1f us per frame (%.1f us less).\n", names.c_str(),
                    all.beforeUs, all.afterUs, all.beforeUs - all.afterUs);
}

void runAdvise(const AdviseCliOptions& o) {
    if (o.listRules) return printRules();
    if (o.model.empty() || o.target.empty()) failInput("advise needs MODEL and --target CHIP (see --list-rules)");
    ChipProfile chip = findChipProfile(o.target);
    auto loaded = loadModelWithInputShapes(o.model, o.inputShapes);
    const Model& model = *loaded;
    advisor::AdviseOptions ao;
    ao.dtype = o.dtype;
    ao.cores = o.cores;
    advisor::Advice advice = advisor::adviseWithEstimate(model, chip, ao);
    if (!o.jsonPath.empty()) {
        advice.estimate.model.path = o.model;
        saveReport(advice.estimate, o.jsonPath);
        std::cerr << "report written to " << o.jsonPath << "\n";
    }
    const Report& e = advice.estimate;
    int64_t cpuLayers = 0;
    for (const auto& l : e.layers) cpuLayers += l.target == "CPU";
    std::printf("Advice for %s on %s (%s, %d core(s)): estimated %.1f us per frame (%.1f FPS), %zu layers, %lld on "
                "the CPU\n",
                o.model.c_str(), chip.name.c_str(), o.dtype.c_str(), o.cores, e.run.medianUs, estimatedFps(e),
                e.layers.size(), static_cast<long long>(cpuLayers));
    std::vector<advisor::Finding> shown = advice.findings;
    if (o.top > 0 && shown.size() > size_t(o.top)) shown.resize(size_t(o.top));
    printFindings(shown, advice, advice.findings.size());
}
}  // namespace

static void addAdviseCommand(CLI::App& app) {
    auto o = std::make_shared<AdviseCliOptions>();
    CLI::App* cmd = app.add_subcommand("advise", "Find what keeps a model from running fast on a chip's NPU, and the fixes");
    cmd->add_option("model", o->model, "ONNX model file");
    cmd->add_option("--target", o->target, "chip profile name (rk3588, rk3566, ...) or a profile .json path");
    cmd->add_option("--dtype", o->dtype, "NPU data type")->capture_default_str()->check(CLI::IsMember({"int8", "fp16"}));
    cmd->add_option("--cores", o->cores, "NPU cores to use (only multi-core ops split)")
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    cmd->add_option("--json", o->jsonPath, "write the estimate report with the findings as suggestions[]");
    cmd->add_option("--top", o->top, "print only the N findings with the largest estimated gain (0 = all)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    addInputShapeOption(cmd, o->inputShapes);
    cmd->add_flag("--list-rules", o->listRules, "list the advisor's rules and exit");
    cmd->callback([o] { runAdvise(*o); });
}
NPUWB_CLI_COMMAND(addAdviseCommand);

}  // namespace npuwb::cli
