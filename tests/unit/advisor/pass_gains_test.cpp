// A fixing pass's gain is what Apply changes in the estimate: on PP-OCRv4 det at 1x3x480x480 (symbolic dims, so
// the passes rewrite the model as opened, as the GUI's Apply does), each pass's measured gain is within 10% of the
// estimate after applying it at all its sites by their anchors (the GUI's "Apply to All Sites"); the figure for all
// passes together is what applying them in one go gives, never a sum; quantize at int8 gains nothing.
#include "AdvisorTestUtil.h"

#include <filesystem>
#include <map>

#include "npuwb/CostModel.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Optimizer.h"

using namespace npuwb;
using namespace npuwb::advisor;
using namespace npuwb::advisor::testing;

namespace {
const std::string kDetector = NPUWB_SOURCE_DIR "/tests/data/models/ch_PP-OCRv4_det_infer.onnx";
const std::map<std::string, Shape> kAt480 = {{"x", {1, 3, 480, 480}}};

double estimateAt480(const Model& model) {
    return estimateModel(withInputShapes(model, kAt480), chip("rk3588")).run.medianUs;
}
}  // namespace

TEST(PassGains, EachPassGainIsWhatApplyingItAtItsSitesChanges) {
    if (!std::filesystem::exists(kDetector)) GTEST_SKIP() << "scripts/fetch-models.sh has not fetched " << kDetector;
    const Model model = loadModel(kDetector);
    AdviseOptions options;
    options.inputShapes = kAt480;
    const Advice advice = adviseWithEstimate(model, chip("rk3588"), options);
    const double before = advice.estimate.run.medianUs;
    EXPECT_NEAR(before, estimateAt480(model), 1e-6);
    std::map<std::string, std::vector<const Finding*>> sites;
    for (const Finding& f : advice.findings)
        if (!f.pass.empty()) sites[f.pass].push_back(&f);
    ASSERT_TRUE(sites.count("fuse_hardswish")) << "PP-OCRv4 det spells out HardSwish 24 times";
    EXPECT_TRUE(sites["fuse_hardswish"].front()->gainMeasured);
    for (const auto& [pass, found] : sites) {
        double measured = 0;
        passes::OptimizerOptions apply;
        apply.passes = {pass};
        for (const Finding* f : found) {
            // Unmeasured only where the cost model saw nothing to gain (nodes the converter folds anyway).
            if (!f->gainMeasured) {
                EXPECT_EQ(f->estimatedGainUs, 0.0) << pass;
            }
            measured += f->estimatedGainUs;
            if (!f->passAnchor.empty()) apply.onlyAt.push_back(f->passAnchor);
        }
        const double achieved = before - estimateAt480(passes::optimize(model, apply).model);
        EXPECT_LE(std::abs(measured - achieved), 0.1 * std::max(std::abs(achieved), 1.0))
            << pass << ": shown " << measured << " us, Apply changed the estimate by " << achieved << " us";
    }
    // fuse_hardswish alone: 27020.2 -> 24811.1 us, the figure the GUI showed after Apply.
    double hardswish = 0;
    for (const Finding* f : sites["fuse_hardswish"]) hardswish += f->estimatedGainUs;
    EXPECT_GT(hardswish, 1000.0);
    // Every pass at once: what one optimize over all of them gives, and no more than their gains' sum.
    ASSERT_TRUE(advice.allPasses.error.empty()) << advice.allPasses.error;
    EXPECT_EQ(advice.allPasses.passes.size(), sites.size());
    passes::OptimizerOptions all;
    all.passes = advice.allPasses.passes;
    EXPECT_NEAR(advice.allPasses.afterUs, estimateAt480(passes::optimize(model, all).model), 1e-6);
    EXPECT_LT(advice.allPasses.afterUs, before);
}

TEST(PassGains, QuantizeGainsNothingOnAnInt8EstimateAndSaysWhatFp16Costs) {
    const Model m = singleConv(64, 64, 32, 32, 3);
    const auto f = findings("quantize", m);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].estimatedGainUs, 0.0);  // the int8 estimate already assumes the converter quantizes
    EXPECT_NE(f[0].hazard.find("us slower"), std::string::npos) << f[0].hazard;
}
