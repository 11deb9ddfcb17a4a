// cpu-xnnpack's qs8 path (plugins/cpu-xnnpack/Int8Ops.cpp) against the reference executor: the shared seeded QDQ case
// set (Int8Cases.h) by the 1-LSB rule with the fused-kernel check, and a real QDQ resnet18 (made by CTest's
// make_qdq_models fixture with tests/tools/make_qdq.py) by cosine, top-1 and output steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "Int8Cases.h"
#include "npuwb/sdk/Backend.h"
#include "npuwb/ModelIO.h"
#include "npuwb/ExecutionObserver.h"
#include "npuwb/Profiler.h"
#include "npuwb/Session.h"

using namespace npuwb;
using namespace npuwb::int8test;

namespace {

const char* kBackend = "cpu-xnnpack";

bool xnnpackAvailable() {
    const auto names = availableBackends();
    return std::find(names.begin(), names.end(), kBackend) != names.end();
}

/// Execution positions each backend kernel covered.
class KernelCoverage : public ExecutionObserver {
public:
    bool wantsKernelTimes() const override { return true; }
    void kernelTimed(const std::vector<size_t>& steps, double) override { kernels.push_back(steps); }
    std::vector<std::vector<size_t>> kernels;
};

}  // namespace

TEST(XnnpackInt8, SharedQdqCasesWithinOneStep) {
    if (!xnnpackAvailable()) GTEST_SKIP() << "cpu-xnnpack plugin not built";
    const auto cases = int8Cases(20261129);
    ASSERT_GT(cases.size(), 50u);
    // Families cpu-xnnpack runs only in part, and why; they must still match the reference within 1 LSB.
    const std::map<std::string, std::string> partial = {
        {"QDQ shuffle", "Transpose and Slice have no cpu-xnnpack kernel (reference fallback)"},
        {"QDQ table+Mul", "int8 tables and products are cpu-onednn's; cpu-xnnpack runs them in float"},
        {"QDQ Conv+SiLU", "cpu-xnnpack's int8 convolution takes no SiLU: the SiLU runs in float before the Q"},
        {"QDQ batched", "cpu-xnnpack's int8 MatMul takes a 2-D A only: a 3-D or 4-D one runs in float"},
        {"QDQ LayerNorm", "LayerNormalization and Cast have no cpu-xnnpack kernel (reference fallback)"},
        {"QDQ GELU", "Erf, Tanh and Cast have no cpu-xnnpack kernel (reference fallback)"},
        {"QDQ heads", "cpu-xnnpack's int8 MatMul takes a 2-D A only, and Transpose has no cpu-xnnpack kernel"},
        {"QDQ float", "cpu-xnnpack dequantizes each input of a sum read in float, then adds (the same values)"},
        {"QDQ fused", "cpu-xnnpack's int8 MatMul takes a 2-D A only, and Slice has no cpu-xnnpack kernel"}};
    Int8Tally tally;
    for (const auto& k : cases) {
        const Int8Outcome o = runInt8Case(k, kBackend);
        EXPECT_TRUE(o.passed) << k.c.label << ": " << o.message;
        if (!partial.count(familyOf(k.c.label))) {
            EXPECT_TRUE(o.claimed && o.fused) << k.c.label << ": " << o.message;
        }
        tally.add(k, o);
    }
    tally.print(kBackend);
    for (const auto& [family, why] : partial) std::printf("  (%s: %s)\n", family.c_str(), why.c_str());
    EXPECT_LT(tally.offByOne * 100, tally.elements) << "more than 1% of elements differ by a step";
}

TEST(XnnpackInt8, QdqResnet18MatchesReference) {
    if (!xnnpackAvailable()) GTEST_SKIP() << "cpu-xnnpack plugin not built";
    const char* dir = std::getenv("NPUWB_TEST_QDQ_DIR");
    const std::filesystem::path path = std::filesystem::path(dir ? dir : NPUWB_TEST_QDQ_DIR) / "resnet18_qdq.onnx";
    if (!std::filesystem::exists(path))
        GTEST_SKIP() << path << " not made (ctest -R XnnpackInt8 makes it, or tests/tools/make_qdq_models.sh)";
    auto model = std::make_shared<const Model>(loadModel(path.string()));
    Session reference(model);
    const std::map<std::string, Tensor> inputs = makeInputs(reference, 11);
    const auto want = reference.runTensors(inputs);
    SessionOptions options;
    options.executor.backend = kBackend;
    options.executor.threads = 2;
    options.profileKernels = true;
    Session fast(model, options);
    fast.prepare(inputs);
    KernelCoverage coverage;
    RunControl control;
    control.observer = &coverage;
    const auto got = fast.runTensors(inputs, control);

    for (const FallbackRow& f : fast.fallbacks())
        ADD_FAILURE() << "fallback " << f.node << " (" << f.opType << "): " << f.reason;
    // Every Conv/Gemm runs as one int8 kernel together with its QuantizeLinear.
    std::set<size_t> int8Anchors;
    const auto& order = fast.executionOrder();
    size_t anchors = 0;
    for (size_t pos = 0; pos < order.size(); ++pos) {
        const std::string& op = model->graph.nodes[order[pos]].opType;
        if (op == "Conv" || op == "Gemm") ++anchors;
    }
    for (const auto& kernel : coverage.kernels) {
        bool hasQ = false;
        for (size_t pos : kernel) hasQ = hasQ || model->graph.nodes[order[pos]].opType == "QuantizeLinear";
        for (size_t pos : kernel) {
            const std::string& op = model->graph.nodes[order[pos]].opType;
            if (hasQ && (op == "Conv" || op == "Gemm")) int8Anchors.insert(pos);
        }
    }
    EXPECT_EQ(int8Anchors.size(), anchors) << "Conv/Gemm nodes not run as one int8 kernel with their QuantizeLinear";

    ASSERT_EQ(want.size(), 1u);
    const auto& [name, ref] = *want.begin();
    const std::vector<float> a = ref.toFloatVector(), b = got.at(name).toFloatVector();
    ASSERT_EQ(a.size(), b.size());
    double dot = 0, na = 0, nb = 0, worst = 0;
    size_t argA = 0, argB = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        dot += double(a[i]) * b[i], na += double(a[i]) * a[i], nb += double(b[i]) * b[i];
        worst = std::max(worst, std::abs(double(a[i]) - b[i]));
        if (a[i] > a[argA]) argA = i;
        if (b[i] > b[argB]) argB = i;
    }
    const double cosine = dot / std::sqrt(std::max(na * nb, 1e-30));
    std::printf("resnet18 QDQ on cpu-xnnpack vs reference: cosine %.6f, top-1 %zu vs %zu, max |diff| %.4g, %zu of %zu "
                "Conv/Gemm as int8 kernels\n", cosine, argB, argA, worst, int8Anchors.size(), anchors);
    EXPECT_GE(cosine, 0.999);
    EXPECT_EQ(argA, argB);
}
