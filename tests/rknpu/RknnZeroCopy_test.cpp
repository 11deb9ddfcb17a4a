// The rknpu runner's zero-copy I/O path (plugins/rknpu/RknnZeroCopy.h) against the stand-in librknnmrt.so (the
// RV1106/RV1103 mini runtime: no rknn_inputs_set, rknn_outputs_get, rknn_dup_context or rknn_set_core_mask; its
// native input rows padded to a w_stride of 16 for the 8-wide test model): outputs equal to the rknn_inputs_set path
// of the full stand-in for the same seeded or .npy inputs and batch, the report naming the path and what the mini
// runtime lacks, and a failing rknn_create_mem reported naming the call and the model with no buffer left behind.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "RknnRunner.h"
#include "RknpuTestSupport.h"
#include "npuwb/Npy.h"

using namespace npuwb;
using namespace npuwb::rknpu;
using namespace npuwb::rknpu_test;

namespace {

ModelRunOptions miniOptions(int runs = 2, int warmup = 1) {
    ModelRunOptions options = standinOptions(runs, warmup);
    options.library = STANDIN_RKNNMRT_PATH;
    return options;
}

/// Buffers the mini stand-in made with rknn_create_mem and has not destroyed (its test-only counter).
uint64_t liveMiniBuffers() {
    void* handle = dlopen(STANDIN_RKNNMRT_PATH, RTLD_NOW | RTLD_LOCAL);  // the plugin's handle, counted once more
    if (!handle) return ~uint64_t{0};
    auto count = reinterpret_cast<uint64_t (*)()>(dlsym(handle, "npuwb_standin_live_mems"));
    const uint64_t live = count ? count() : ~uint64_t{0};
    dlclose(handle);
    return live;
}

void expectSameOutputs(const RknnRunResult& zeroCopy, const RknnRunResult& inputsSet) {
    ASSERT_EQ(zeroCopy.inputData, inputsSet.inputData);  // the same seeded or file inputs
    ASSERT_EQ(zeroCopy.outputData.size(), inputsSet.outputData.size());
    for (size_t k = 0; k < zeroCopy.outputData.size(); ++k) {
        const auto& a = zeroCopy.outputData[k];
        const auto& b = inputsSet.outputData[k];
        ASSERT_EQ(a.size(), b.size());
        std::vector<float> fa(a.size() / 4), fb(b.size() / 4);
        std::memcpy(fa.data(), a.data(), a.size());
        std::memcpy(fb.data(), b.data(), b.size());
        double worst = 0;
        int zeros = 0;
        for (size_t i = 0; i < fa.size(); ++i) {
            worst = std::max(worst, double(std::fabs(fa[i] - fb[i])));
            zeros += fa[i] == 0.0f;
        }
        EXPECT_LT(worst, 1e-6) << "output " << k;
        EXPECT_LT(zeros, int(fa.size())) << "output " << k << " is all zeros";
    }
}

}  // namespace

TEST(RknnZeroCopy, MiniRuntimeOutputsEqualTheInputsSetPathForTheSameSeed) {
    const std::string model = standinModel("rv1106");
    for (int batch : {1, 3}) {
        ModelRunOptions mini = miniOptions();
        mini.batch = batch;
        mini.contexts = 1;  // the mini runtime has one context
        mini.randomSeed = 11;
        ModelRunOptions full = mini;
        full.library = STANDIN_RKNNRT_PATH;
        const RknnRunResult zeroCopy = runRknnModel(model, mini);
        const RknnRunResult inputsSet = runRknnModel(model, full);
        EXPECT_TRUE(zeroCopy.zeroCopyIo);
        EXPECT_TRUE(zeroCopy.miniRuntime);
        EXPECT_FALSE(inputsSet.zeroCopyIo);
        expectSameOutputs(zeroCopy, inputsSet);
        EXPECT_EQ(zeroCopy.sliceRuns.size(), size_t(2 * batch));
        for (const auto& s : zeroCopy.sliceRuns) EXPECT_GT(s.runUs, 0);
    }
    EXPECT_EQ(liveMiniBuffers(), 0u);
}

TEST(RknnZeroCopy, NpyInputsGoThroughTheBuffersAsGiven) {
    const std::string model = standinModel("rv1106");
    std::vector<float> values(2 * kInputElems);
    for (size_t i = 0; i < values.size(); ++i) values[i] = std::cos(0.07f * float(i));
    const std::string file = workFile("zero-copy-batch2.npy");
    writeNpy(file, Tensor::fromVector<float>({2, 3, 8, 8}, values));
    ModelRunOptions mini = miniOptions(1, 0);
    mini.batch = 2;
    mini.contexts = 1;
    mini.inputFiles["x"] = file;
    ModelRunOptions full = mini;
    full.library = STANDIN_RKNNRT_PATH;
    expectSameOutputs(runRknnModel(model, mini), runRknnModel(model, full));
}

TEST(RknnZeroCopy, TheReportNamesTheIoPathAndWhatTheMiniRuntimeLacks) {
    const RknnRunResult run = runRknnModel(standinModel("rv1106"), miniOptions());
    const Report report = reportFromRknnRun(run);
    ASSERT_TRUE(report.runtime.has_value());
    const RuntimeSection& rt = *report.runtime;
    EXPECT_NE(rt.timing.find("I/O path: zero-copy (rknn_create_mem + rknn_set_io_mem buffers)"), std::string::npos)
        << rt.timing;
    EXPECT_NE(rt.timing.find("the input copies into the buffers, rknn_run and the output reads"), std::string::npos)
        << rt.timing;
    EXPECT_TRUE(report.layers.empty());  // no per-layer perf detail on the mini runtime
    std::string notes;
    for (const auto& n : rt.notes) notes += n + "\n";
    EXPECT_NE(notes.find("no rknn_inputs_set / rknn_outputs_get"), std::string::npos) << notes;
    EXPECT_NE(notes.find("no rknn_dup_context"), std::string::npos) << notes;
    EXPECT_NE(notes.find("no per-layer perf detail"), std::string::npos) << notes;
    // Input x [1,3,8,8] float32 natively NHWC with rows of 16 pixels: 8*16*3*4 bytes; output y [1,4,8,8] unpadded.
    EXPECT_NE(notes.find("zero-copy buffers: " + std::to_string(8 * 16 * 3 * 4 + kOutputElems * 4) +
                         " bytes per context"),
              std::string::npos)
        << notes;
    ASSERT_TRUE(report.run.breakdown.has_value());
    EXPECT_GT(report.run.breakdown->inputCopyUs, 0);
    EXPECT_GT(report.run.breakdown->inferenceUs, 0);
    EXPECT_GT(report.run.breakdown->outputCopyUs, 0);
    // The full runtime keeps rknn_inputs_set.
    const Report full = reportFromRknnRun(runRknnModel(standinModel("rv1106"), standinOptions(1, 0)));
    EXPECT_NE(full.runtime->timing.find("I/O path: rknn_inputs_set / rknn_outputs_get"), std::string::npos)
        << full.runtime->timing;
}

TEST(RknnZeroCopy, AFailingCreateMemIsReportedNamingTheCallAndTheModelAndLeavesNoBuffer) {
    const std::string model = standinModel("rv1106");
    // Call 1 fails before any buffer exists; call 2 (the output's) after the input's buffer was made and bound.
    for (const char* failing : {"1", "2"}) {
        setenv("NPUWB_STANDIN_FAIL_CREATE_MEM", failing, 1);
        testing::internal::CaptureStderr();
        const Error e = thrownBy([&] { runRknnModel(model, miniOptions(1, 0)); });
        const std::string said = testing::internal::GetCapturedStderr();
        unsetenv("NPUWB_STANDIN_FAIL_CREATE_MEM");
        EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
        const std::string what = e.what();
        EXPECT_NE(what.find(model + ": rknn_create_mem("), std::string::npos) << what;
        EXPECT_NE(what.find(std::string(failing) == "1" ? "for input 'x' returned no buffer"
                                                         : "for output 'y' returned no buffer"),
                  std::string::npos)
            << what;
        EXPECT_NE(said.find("NPUWB_STANDIN_FAIL_CREATE_MEM"), std::string::npos) << said;
        EXPECT_EQ(liveMiniBuffers(), 0u) << "after failing call " << failing;
    }
    // A run after the failures works and also leaves nothing behind.
    EXPECT_NO_THROW(runRknnModel(model, miniOptions(1, 0)));
    EXPECT_EQ(liveMiniBuffers(), 0u);
}

TEST(RknnZeroCopy, WhatTheMiniRuntimeLacksIsRefusedNamingTheFunction) {
    const std::string model = standinModel("rv1106");
    ModelRunOptions options = miniOptions(1, 0);
    options.batch = 2;
    options.contexts = 2;
    Error e = thrownBy([&] { runRknnModel(model, options); });
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("2 contexts need rknn_dup_context"), std::string::npos) << e.what();
    options = miniOptions(1, 0);
    options.coreMask = NpuCoreMask::Core0;
    e = thrownBy([&] { runRknnModel(model, options); });
    EXPECT_NE(std::string(e.what()).find("needs rknn_set_core_mask"), std::string::npos) << e.what();
    EXPECT_EQ(rknnRuntimeUnavailableReason(STANDIN_RKNNMRT_PATH), "");
}
