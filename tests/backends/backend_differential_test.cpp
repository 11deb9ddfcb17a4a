// Every backend found (or those named in NPUWB_TEST_BACKENDS, comma-separated) against the reference kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <random>
#include <set>
#include <sstream>

#include "DifferentialHarness.h"
#include "npuwb/sdk/Backend.h"

using namespace npuwb;

namespace {

std::vector<std::string> backendsUnderTest() {
    if (const char* env = std::getenv("NPUWB_TEST_BACKENDS")) {
        std::vector<std::string> out;
        std::stringstream ss(env);
        for (std::string s; std::getline(ss, s, ',');)
            if (!s.empty()) out.push_back(s);
        return out;
    }
    return availableBackends();
}

bool onednnBuilt() {
    const auto found = availableBackends();
    return std::find(found.begin(), found.end(), "cpu-onednn") != found.end();
}

/// Every case runs on cpu-onednn, claimed by it and within the usual tolerance of the reference.
void expectClaimedAndPassed(const std::vector<difftest::Case>& cases) {
    for (const auto& c : cases) {
        difftest::Outcome o = difftest::runCase(c, "cpu-onednn");
        EXPECT_TRUE(o.passed) << c.label << ": " << o.message;
        EXPECT_TRUE(o.claimed) << c.label << ": " << o.message;
    }
}

using CaseFamily = void (*)(std::vector<difftest::Case>&, std::mt19937&);

/// The cases of `families` (one seed for all), `count` of them, each claimed by cpu-onednn and passed.
void expectFamiliesClaimedAndPassed(std::initializer_list<CaseFamily> families, size_t count) {
    std::mt19937 rng(20261203);
    std::vector<difftest::Case> cases;
    for (CaseFamily add : families) add(cases, rng);
    ASSERT_EQ(cases.size(), count);
    expectClaimedAndPassed(cases);
}

/// The most graph nodes one cpu-onednn kernel covers in a run of `c` (a fused chain covers several).
size_t widestKernel(const difftest::Case& c) {
    struct Widest : ExecutionObserver {
        size_t widest = 0;
        bool wantsKernelTimes() const override { return true; }
        void kernelTimed(const std::vector<size_t>& steps, double) override { widest = std::max(widest, steps.size()); }
    } watch;
    SessionOptions opts;
    opts.executor.backend = "cpu-onednn";
    opts.profileKernels = true;  // kernel times name the nodes each kernel covers
    Session session(c.model, opts);
    session.prepare(c.inputs);
    RunControl control;
    control.observer = &watch;
    session.runTensors(c.inputs, control);
    return watch.widest;
}

/// The names of the nodes the timed kernels of a cpu-onednn run of `c` cover (data-movement views run in none).
std::set<std::string> nodesInKernels(const difftest::Case& c) {
    struct Covered : ExecutionObserver {
        std::vector<std::vector<size_t>> kernels;
        bool wantsKernelTimes() const override { return true; }
        void kernelTimed(const std::vector<size_t>& steps, double) override { kernels.push_back(steps); }
    } watch;
    SessionOptions opts;
    opts.executor.backend = "cpu-onednn";
    opts.profileKernels = true;
    Session session(c.model, opts);
    session.prepare(c.inputs);
    RunControl control;
    control.observer = &watch;
    session.runTensors(c.inputs, control);
    std::set<std::string> names;
    for (const auto& kernel : watch.kernels)
        for (size_t pos : kernel) names.insert(session.model().graph.nodes[session.executionOrder()[pos]].name);
    return names;
}

/// Each case of `families` whose label starts with one of `fused`'s prefixes runs with one kernel covering at least
/// that many of its nodes: the fusion happened.
void expectFused(std::initializer_list<CaseFamily> families, const std::vector<std::pair<std::string, size_t>>& fused) {
    std::mt19937 rng(20261203);
    std::vector<difftest::Case> cases;
    for (CaseFamily add : families) add(cases, rng);
    int checked = 0;
    for (const auto& c : cases)
        for (const auto& [prefix, width] : fused)
            if (c.label.rfind(prefix, 0) == 0) {
                EXPECT_GE(widestKernel(c), width) << c.label;
                ++checked;
                break;
            }
    EXPECT_GT(checked, 0);
}

}  // namespace

class BackendDifferential : public ::testing::TestWithParam<std::string> {};

TEST_P(BackendDifferential, MatchesReferenceOnStandardCases) {
    const std::string backend = GetParam();
    auto cases = difftest::standardCases(20261129);
    ASSERT_GT(cases.size(), 100u);
    int claimed = 0, passed = 0;
    double worst = 0;
    for (const auto& c : cases) {
        difftest::Outcome o = difftest::runCase(c, backend);
        EXPECT_TRUE(o.passed) << backend << ": " << c.label << ": " << o.message;
        claimed += o.claimed;
        passed += o.passed;
        if (o.claimed) worst = std::max(worst, o.worstRelative);
        if (!o.claimed && o.passed) std::printf("[%s] not claimed: %s (%s)\n", backend.c_str(), c.label.c_str(), o.message.c_str());
    }
    std::printf("[%s] %zu cases: %d passed, %d fully run by the backend, %zu partly/fully on the reference; "
                "worst relative error on claimed cases %.3g\n",
                backend.c_str(), cases.size(), passed, claimed, cases.size() - static_cast<size_t>(claimed), worst);
    // A backend that claims nothing tests nothing.
    EXPECT_GT(claimed, static_cast<int>(cases.size()) / 2) << backend << " claims too few cases";
}

INSTANTIATE_TEST_SUITE_P(Plugins, BackendDifferential, ::testing::ValuesIn(backendsUnderTest()),
                         [](const auto& info) {
                             std::string n = info.param;
                             for (char& ch : n) if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                             return n;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(BackendDifferential);

// What real models need claimed (one unclaimed op falls back to the reference kernels): constant Pad, Split, and
// TensorFlow's explicit Pad before a stride-2 depthwise Conv or a pool (folded by the Session's exact rewrites).
TEST(OnednnCoverage, ClaimsPadSplitAndFoldedPads) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    std::vector<difftest::Case> cases;
    for (auto& c : difftest::standardCases(20261129))
        if (c.label.rfind("Pad constant", 0) == 0 || c.label.rfind("Pad+", 0) == 0 ||
            c.label.rfind("Pad(-inf)+", 0) == 0 || c.label.rfind("Split", 0) == 0)
            cases.push_back(std::move(c));
    EXPECT_GE(cases.size(), 9u);
    expectClaimedAndPassed(cases);
}

// The last reference fallbacks of the benchmark corpus: LPRNet's ReduceMean over every axis and DeepLabV3+'s linear
// align_corners Resize; with them the inner-axis reductions and pooling of a Transpose's output that oneDNN only had
// its reference loops for. All claimed; the Resize bit for bit the reference's (the same double sums).
TEST(OnednnCoverage, ClaimsAllAxisReducesAndAlignCornersResize) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    int reduces = 0, resizes = 0;
    for (const auto& c : difftest::standardCases(20261129)) {
        const bool reduce = c.label.find(" all axes ") != std::string::npos ||
                            c.label.find(" inner axes ") != std::string::npos || c.label.rfind("Transpose+", 0) == 0;
        const bool resize = c.label.rfind("Resize linear align_corners", 0) == 0;
        if (!reduce && !resize) continue;
        (reduce ? reduces : resizes) += 1;
        difftest::Outcome o = difftest::runCase(c, "cpu-onednn", resize ? 0.0 : 1e-4);
        EXPECT_TRUE(o.passed) << c.label << ": " << o.message;
        EXPECT_TRUE(o.claimed) << c.label << ": " << o.message;
    }
    EXPECT_EQ(reduces, 8 + 16 + 2);
    EXPECT_EQ(resizes, 10);
}

// Spatial means (and sums, maxima, minima) of a Conv's output, reduced in the channels-last layout the Conv left:
// claimed and within the usual tolerance.
TEST(OnednnCoverage, ClaimsSpatialReducesOfConvOutputs) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addConvSpatialReduceCases}, 8u);
}

// Pre-activation residual blocks (resnet50-v2-7): sums into the residual's buffer where nothing reads it later, copies
// where something does, BatchNormalization + Relu as one pass; all claimed and within the usual tolerance.
TEST(OnednnCoverage, ClaimsResidualBlocksAndBatchNormRelu) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addInPlaceResidualCases, difftest::addBatchNormReluCases}, 12u + 15u);
}

// HardSwish as paddle2onnx writes it (PP-OCR cls: x * Clip(x + 3, 0, 6) / 6, the Div last) after Conv+BN: one post-op,
// claimed and within the usual tolerance; a Div by 5 or a product read again stay separate ops.
TEST(OnednnCoverage, ClaimsDivLastHardSwish) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addDivLastHardSwishCases}, 12u);
}

// Concat of channels-last Conv outputs (squeezenet's fire modules, YOLO's necks) block by block, plain values among
// them, on every axis and batch 2: claimed and within the usual tolerance.
TEST(OnednnCoverage, ClaimsConcatOfConvOutputs) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addConvConcatCases}, 6u);
}

// A channel Concat read only by an ungrouped Conv (squeezenet's fire modules): the Conv as one Conv per Concat
// input, each adding onto the output, with BatchNormalization, residual and activation post-ops; claimed and
// within the usual tolerance, also where the Concat is kept as an output.
TEST(OnednnCoverage, ClaimsConcatsReadByAConv) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addConcatIntoConvCases}, 5u);
}

// LayerNormalization (PP-OCRv4 rec's w8a8 export had five on the reference kernels): claimed over any axis with a
// scale and bias of the normalized shape; a broadcast scale or a requested Mean output stay on the reference kernels.
TEST(OnednnCoverage, ClaimsLayerNormalization) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    std::mt19937 rng(20261203);
    std::vector<difftest::Case> cases;
    difftest::addLayerNormCases(cases, rng);
    int claimed = 0;
    for (const auto& c : cases) {
        difftest::Outcome o = difftest::runCase(c, "cpu-onednn");
        EXPECT_TRUE(o.passed) << c.label << ": " << o.message;
        const bool wanted = c.label.find("broadcast") == std::string::npos && c.label.find("Mean") == std::string::npos;
        EXPECT_EQ(o.claimed, wanted) << c.label << ": " << o.message;
        claimed += o.claimed;
    }
    EXPECT_EQ(claimed, 8);
}

// Transformer exports (ViT, encoders, GPT-2): MatMul with a 2-D weight as one GEMM over A's rows, with its bias Add
// and activations as post-ops; a broadcast 2-D B, batched B; claimed and within the usual tolerance.
TEST(OnednnCoverage, ClaimsMatMulWithWeights) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addMatMulWeightCases}, 8u * 4u + 1u);
    expectFused({difftest::addMatMulWeightCases}, {{"MatMul weight + bias", 2}, {"MatMul [1,K,N] weight, scaled", 2}});
}

// GELU in its erf and tanh forms (a MatMul's post-op, or one pass), Erf alone; claimed and within the usual
// tolerance, also where a value inside is read elsewhere or a constant differs and nothing fuses.
TEST(OnednnCoverage, ClaimsGelu) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addGeluCases}, 4u * 4u + 1u);
    expectFused({difftest::addGeluCases}, {{"MatMul+bias+GELU", 7}, {"GELU alone", 5}});
}

// LayerNorm as torch exports it below opset 17 (and with opset 18's axes input): one layer normalization, claimed
// and within the usual tolerance; unfused where the centered value is read again.
TEST(OnednnCoverage, ClaimsDecomposedLayerNorm) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addDecomposedLayerNormCases}, 6u * 2u);
    expectFused({difftest::addDecomposedLayerNormCases}, {{"LayerNorm decomposed ", 7}});
}

// Gather with constant indices (ViT's class token), Where with a constant mask (GPT-2's causal mask), Transposes of
// size-1 dims as views: claimed and within the usual tolerance.
TEST(OnednnCoverage, ClaimsGatherWhereAndSize1Transposes) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addGatherWhereCases}, 3u * 11u);
}

// Conv1d (whisper's front end) as oneDNN's 1-D convolution, and Slices with steps as strided views: claimed.
TEST(OnednnCoverage, ClaimsConv1dAndSteppedSlices) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addConv1dStridedSliceCases}, 3u * 4u);
}

// Broadcasts oneDNN has no kernel for (a middle axis) run in rows, for every binary op: claimed and exact.
TEST(OnednnCoverage, ClaimsMiddleAxisBroadcasts) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addMiddleBroadcastCases}, 3u * 14u);
}

// Scores divided by sqrt(d) (and a weight MatMul divided then Relu): the Div is a post-op of the MatMul's kernel.
TEST(OnednnCoverage, DividesScoresInTheMatMulKernel) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addScaledScoreCases}, 3u * 2u);
    expectFused({difftest::addScaledScoreCases}, {{"scores Div", 2}, {"MatMul weight Div Relu", 3}});
}

// The attention core (MatMul, scale, mask or bias, Softmax, MatMul) as one kernel per block of score rows, with the
// heads' Transposes around it; probabilities read elsewhere keep the ops apart.
TEST(OnednnCoverage, FusesTheAttentionCore) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addAttentionCoreCases}, 3u * 2u);
    expectFused({difftest::addAttentionCoreCases}, {{"attention, heads split", 5}, {"attention, scaled", 5}});
    std::mt19937 rng(20261203);
    std::vector<difftest::Case> cases;
    difftest::addAttentionCoreCases(cases, rng);
    for (const auto& c : cases)
        if (c.label.rfind("attention, probabilities kept", 0) == 0) {
            EXPECT_LT(widestKernel(c), 3u) << c.label;
        }
}

// The quantizer's attention (QDQ on Q, K, V and the probabilities, fp16 marks): at head sizes of 64 and more the
// GEMMs take the 8-bit values with exact int32 sums; below, float GEMMs and a float QDQ of the probabilities. A
// probability one step away from the reference's (its float arithmetic near a .5 boundary) would move an output by
// scale * |V|; these seeds have none (errors of 4e-8 here), so the tolerance catches a zero point one off (1e-2) or
// a scale 1% off.
TEST(OnednnCoverage, RunsTheQuantizedAttentionCoreExactly) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    std::mt19937 rng(20261207);
    std::vector<difftest::Case> cases;
    difftest::addQuantizedAttentionCases(cases, rng);
    ASSERT_EQ(cases.size(), 3u);
    for (const auto& c : cases) {
        const difftest::Outcome o = difftest::runCase(c, "cpu-onednn", 1e-3);
        EXPECT_TRUE(o.claimed) << c.label << ": " << o.message;
        EXPECT_TRUE(o.passed) << c.label << ": " << o.message;
        EXPECT_GE(widestKernel(c), 8u) << c.label;  // MatMul, Cast, Cast, Div, Softmax, Q, DQ, MatMul
    }
}

/// Runs each case on cpu-onednn against the reference (all claimed, within 1e-3) and expects no node `elided` picks
/// to run in a kernel.
void expectClaimedWithoutKernels(const std::vector<difftest::Case>& cases,
                                 const std::function<bool(const Node&)>& elided) {
    for (const auto& c : cases) {
        const difftest::Outcome o = difftest::runCase(c, "cpu-onednn", 1e-3);
        EXPECT_TRUE(o.claimed) << c.label << ": " << o.message;
        EXPECT_TRUE(o.passed) << c.label << ": " << o.message;
        const std::set<std::string> ran = nodesInKernels(c);
        for (const auto& n : c.model->graph.nodes) {
            if (elided(n)) {
                EXPECT_FALSE(ran.count(n.name)) << c.label << ": " << n.name << " ran as a kernel";
            }
        }
    }
}

// Q, K and V from int8 Linears, their heads split before the QuantizeLinear: each Linear writes its bytes, the
// Transposes that keep the last axis are views of them, and the core reads the bytes (dequantizing them itself for
// float GEMMs). No QuantizeLinear or DequantizeLinear of Q, K, V runs, nor a Transpose of Q or V.
TEST(OnednnCoverage, FeedsTheQuantizedAttentionCoreBytesFromItsLinears) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    std::mt19937 rng(20261208);
    std::vector<difftest::Case> cases;
    difftest::addLinearFedAttentionCases(cases, rng);
    ASSERT_EQ(cases.size(), 2u);
    expectClaimedWithoutKernels(cases, [](const Node& n) {
        const std::string& out = n.outputs[0];
        const bool head = out.rfind("q_", 0) == 0 || out.rfind("k_", 0) == 0 || out.rfind("v_", 0) == 0;
        const bool moved = n.opType == "Transpose" && out != "k_heads";
        const bool quant = n.opType == "QuantizeLinear" || n.opType == "DequantizeLinear";
        return head && (moved || (quant && out.find("_w") == std::string::npos));
    });
}

// One Linear making Q, K and V, Slices taking them apart: the Linear writes each third in its own QuantizeLinear's
// parameters and the core reads the queries and values in place (strided views of those bytes); no Slice, Div,
// QuantizeLinear or value Transpose runs as a kernel, only the keys' Transpose (it moves the last axis).
TEST(OnednnCoverage, SplitsAFusedQkvLinearIntoTheAttentionCoresBytes) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    std::mt19937 rng(20261207);
    std::vector<difftest::Case> cases;
    difftest::addFusedProjectionAttentionCases(cases, rng);
    ASSERT_EQ(cases.size(), 2u);
    expectClaimedWithoutKernels(cases, [](const Node& n) {
        const std::string& out = n.outputs[0];
        return n.opType == "Slice" || n.opType == "Div" || (n.opType == "Transpose" && out != "k_heads") ||
               (n.opType == "QuantizeLinear" && out != "X_q" && out != "p_q");
    });
}

// The core's output merged back by Transpose and Reshape and quantized for the next Linear: the kernel writes the
// bytes (the QuantizeLinear and the Transpose run in no kernel), the same bytes as a QuantizeLinear kernel makes of
// the float output when that output is kept (so nothing fuses). Against the reference: a probability one step away
// (float GEMMs round differently) moves an output by up to |V| / 255, two output steps here; rare.
TEST(OnednnCoverage, QuantizesTheAttentionCoresOutputInTheKernel) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    std::mt19937 rng(20261209);
    std::vector<difftest::Case> cases;
    difftest::addLinearFedAttentionCases(cases, rng, true);
    ASSERT_EQ(cases.size(), 2u);
    auto run = [](const std::shared_ptr<Model>& model, const std::map<std::string, Tensor>& inputs) {
        SessionOptions opts;
        opts.executor.backend = "cpu-onednn";
        Session fast(model, opts);
        fast.prepare(inputs);
        EXPECT_TRUE(fast.fallbacks().empty());
        return fast.runTensors(inputs).at("Y");
    };
    for (const auto& c : cases) {
        const Tensor fused = run(c.model, c.inputs);
        auto kept = std::make_shared<Model>(*c.model);
        kept->graph.outputs.push_back(kept->graph.outputs[0]);
        kept->graph.outputs.back().name = "o_flat";
        kept->graph.outputs.back().type.dtype = DType::F32;
        const Tensor apart = run(kept, c.inputs);
        ASSERT_EQ(fused.dtype(), DType::U8);
        ASSERT_EQ(fused.shape(), apart.shape());
        EXPECT_EQ(std::memcmp(fused.raw(), apart.raw(), size_t(fused.numel())), 0) << c.label;
        const Tensor want = difftest::referenceSession(c.model).runTensors(c.inputs).at("Y");
        const auto a = want.values<uint8_t>(), b = fused.values<uint8_t>();
        int64_t off = 0;
        for (size_t i = 0; i < a.size(); ++i) {
            ASSERT_LE(std::abs(int(a[i]) - int(b[i])), 2) << c.label << " [" << i << "]";
            off += a[i] != b[i];
        }
        EXPECT_LE(off * 50, int64_t(a.size())) << c.label << ": " << off << " of " << a.size() << " apart";
        const std::set<std::string> ran = nodesInKernels(c);
        for (const auto& n : c.model->graph.nodes)
            if (n.outputs[0] == "Y" || n.outputs[0] == "o_heads") {
                EXPECT_FALSE(ran.count(n.name)) << c.label << ": " << n.name << " ran as a kernel";
            }
    }
}

// fp16 round trips (the quantizer's kept ops) run in the segment, held as float rounded to fp16; an fp16 value
// that leaves the segment is the reference's bits.
TEST(OnednnCoverage, ClaimsHalfRoundTripsAndHandsOutHalfBits) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addHalfRoundTripCases}, 3u * 2u);
    expectFused({difftest::addHalfRoundTripCases}, {{"fp16 round trip before LayerNorm", 3}});  // one row pass
    std::mt19937 rng(11);
    std::map<std::string, Tensor> init{{"k", Tensor::scalar<float>(1000.f)}};
    difftest::Case c = difftest::makeCase("fp16 output", {difftest::makeNode("Mul", {"X", "k"}, {"m"}),
                                                          difftest::makeNode("Cast", {"m"}, {"Y"},
                                                                             {{"to", Attribute::ofInt(10)}})},
                                          {{"X", {3, 37}}}, {"Y"}, init, rng);
    c.model->graph.outputs[0].type.dtype = DType::F16;
    const auto reference = difftest::referenceSession(c.model).runTensors(c.inputs);
    SessionOptions opts;
    opts.executor.backend = "cpu-onednn";
    Session fast(c.model, opts);
    fast.prepare(c.inputs);
    EXPECT_TRUE(fast.fallbacks().empty());
    const auto got = fast.runTensors(c.inputs);
    const Tensor &a = reference.at("Y"), &b = got.at("Y");
    ASSERT_EQ(b.dtype(), DType::F16);
    ASSERT_EQ(a.shape(), b.shape());
    EXPECT_EQ(std::memcmp(a.raw(), b.raw(), size_t(a.numel()) * 2), 0);
}

// Token ids and masks as graph inputs (int64, int32): the embedding Gathers and the mask's Unsqueeze/Cast/1-m run on
// cpu-onednn, and an id outside the table is an error naming the node, never a read past it.
TEST(OnednnCoverage, ClaimsTokenInputsAndRefusesBadIds) {
    if (!onednnBuilt()) GTEST_SKIP() << "cpu-onednn not built";
    expectFamiliesClaimedAndPassed({difftest::addTokenInputCases}, 3u * 2u);
    std::mt19937 rng(7);
    std::vector<difftest::Case> cases;
    difftest::addTokenInputCases(cases, rng);
    difftest::Case& words = cases.front();
    const int64_t vocab = words.model->graph.initializers.at("words").shape()[0];
    SessionOptions opts;
    opts.executor.backend = "cpu-onednn";
    Session session(words.model, opts);
    session.prepare(words.inputs);  // good ids: the plan is made, then a run gets bad ones
    ASSERT_TRUE(session.fallbacks().empty());
    for (int64_t bad : {vocab, -vocab - 1}) {
        std::map<std::string, Tensor> inputs = words.inputs;
        inputs.at("ids").values<int64_t>()[0] = bad;
        try {
            session.runTensors(inputs);
            ADD_FAILURE() << "id " << bad << " ran";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("Gather_w"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find(std::to_string(bad)), std::string::npos) << e.what();
        }
    }
}
