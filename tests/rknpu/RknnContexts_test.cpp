// The rknpu runner's batch buffers (plugins/rknpu/RknnRunner.h, built into this test from the plugin's objects)
// against the stand-in librknnrt.so: each batch slice run by its context gives the output of a single run on that
// slice (offsets i * size / batch, RKNN SDK user guide V2.5.0, 4.1.4), random inputs are seeded and not zeros, .npy
// inputs are used as given, bad files are refused naming the input, and per-layer rows come only from the perf pass.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "RknnRunner.h"
#include "RknpuTestSupport.h"
#include "npuwb/Npy.h"

using namespace npuwb;
using namespace npuwb::rknpu;
using namespace npuwb::rknpu_test;

namespace {

std::vector<float> floats(const std::vector<uint8_t>& bytes, size_t first, size_t count) {
    std::vector<float> out(count);
    std::memcpy(out.data(), bytes.data() + first * sizeof(float), count * sizeof(float));
    return out;
}

/// One slice of a batch input as a .npy file of one run's shape.
std::string sliceFile(const std::vector<uint8_t>& batchInput, int slice, const std::string& name) {
    const std::vector<float> values = floats(batchInput, size_t(slice) * kInputElems, kInputElems);
    const std::string path = workFile(name);
    writeNpy(path, Tensor::fromVector<float>({1, 3, 8, 8}, values));
    return path;
}

}  // namespace

TEST(RknnContexts, EachBatchSliceEqualsASingleRunOnThatSlice) {
    const std::string model = standinModel("rk3588");
    for (const auto& [batch, contexts] : std::vector<std::pair<int, int>>{{3, 3}, {5, 2}}) {
        ModelRunOptions options = standinOptions(2, 1);
        options.batch = batch;
        options.contexts = contexts;
        options.perLayer = false;
        const RknnRunResult run = runRknnModel(model, options);
        ASSERT_EQ(run.contexts.size(), static_cast<size_t>(contexts));
        ASSERT_EQ(run.inputData.size(), 1u);
        ASSERT_EQ(run.inputData[0].size(), size_t(batch) * kInputElems * sizeof(float));
        ASSERT_EQ(run.outputData[0].size(), size_t(batch) * kOutputElems * sizeof(float));
        for (int j = 0; j < batch; ++j) {
            ModelRunOptions single = standinOptions(1, 0);
            single.perLayer = false;
            single.inputFiles["x"] = sliceFile(run.inputData[0], j, "slice.npy");
            const RknnRunResult one = runRknnModel(model, single);
            const std::vector<float> want = floats(one.outputData[0], 0, kOutputElems);
            const std::vector<float> got = floats(run.outputData[0], size_t(j) * kOutputElems, kOutputElems);
            double worst = 0;
            for (int k = 0; k < kOutputElems; ++k) worst = std::max(worst, double(std::fabs(want[k] - got[k])));
            EXPECT_LT(worst, 1e-5) << "batch " << batch << " slice " << j << " (context " << j % contexts << ")";
        }
        // Slices round-robin: context c ran slices c, c + contexts, ...
        for (const auto& s : run.sliceRuns) EXPECT_EQ(s.context, s.slice % contexts);
        EXPECT_EQ(run.sliceRuns.size(), size_t(2 * batch));
        EXPECT_EQ(run.contexts[0].slicesPerPass, (batch + contexts - 1) / contexts);
    }
}

TEST(RknnContexts, RandomInputsAreSeededAndNotZeros) {
    const std::string model = standinModel("rk3588");
    ModelRunOptions options = standinOptions(1, 0);
    options.perLayer = false;
    options.batch = 2;
    options.randomSeed = 5;
    const RknnRunResult a = runRknnModel(model, options);
    const RknnRunResult b = runRknnModel(model, options);
    options.randomSeed = 6;
    const RknnRunResult c = runRknnModel(model, options);
    EXPECT_EQ(a.inputData, b.inputData);
    EXPECT_NE(a.inputData, c.inputData);
    const std::vector<float> values = floats(a.inputData[0], 0, 2 * kInputElems);
    int zeros = 0;
    for (float v : values) {
        zeros += v == 0.0f;
        EXPECT_GE(v, -1.0f);
        EXPECT_LT(v, 1.0f);
    }
    EXPECT_LT(zeros, 2);
    // The two slices differ: every slice gets its own values.
    EXPECT_NE(floats(a.inputData[0], 0, kInputElems), floats(a.inputData[0], kInputElems, kInputElems));
}

TEST(RknnContexts, NpyInputsAreUsedAsGiven) {
    const std::string model = standinModel("rk3588");
    std::vector<float> values(2 * kInputElems);
    for (size_t i = 0; i < values.size(); ++i) values[i] = std::sin(0.1f * float(i));
    const std::string file = workFile("batch2.npy");
    writeNpy(file, Tensor::fromVector<float>({2, 3, 8, 8}, values));
    ModelRunOptions options = standinOptions(1, 0);
    options.perLayer = false;
    options.batch = 2;
    options.inputFiles["x"] = file;
    const RknnRunResult run = runRknnModel(model, options);
    EXPECT_EQ(floats(run.inputData[0], 0, values.size()), values);
}

TEST(RknnContexts, BadInputFilesAreRefusedNamingTheInput) {
    const std::string model = standinModel("rk3588");
    ModelRunOptions options = standinOptions(1, 0);
    options.batch = 2;
    const std::string one = workFile("one-slice.npy");
    writeNpy(one, Tensor::fromVector<float>({1, 3, 8, 8}, std::vector<float>(kInputElems, 0.5f)));
    options.inputFiles["x"] = one;
    Error e = thrownBy([&] { runRknnModel(model, options); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_NE(std::string(e.what()).find(model + ": input 'x': " + one + " holds 192 elements, the model takes 384 (2 "
                                                                         "batch slice(s) of 192)"),
              std::string::npos)
        << e.what();
    const std::string ints = workFile("ints.npy");
    writeNpy(ints, Tensor::fromVector<int32_t>({2, 3, 8, 8}, std::vector<int32_t>(2 * kInputElems, 1)));
    options.inputFiles["x"] = ints;
    e = thrownBy([&] { runRknnModel(model, options); });
    EXPECT_NE(std::string(e.what()).find("input 'x': " + ints + " holds int32, the model takes float32"),
              std::string::npos)
        << e.what();
    options.inputFiles = {{"images", one}};
    e = thrownBy([&] { runRknnModel(model, options); });
    EXPECT_NE(std::string(e.what()).find("--input images=" + one + " names no input of the model (inputs: 'x')"),
              std::string::npos)
        << e.what();
}

TEST(RknnContexts, PerLayerRowsComeOnlyFromThePerfPass) {
    const std::string model = standinModel("rk3588");
    ModelRunOptions options = standinOptions(2, 0);
    options.batch = 2;
    const RknnRunResult with = runRknnModel(model, options);
    EXPECT_TRUE(with.perLayerAsked);
    EXPECT_FALSE(with.perfDetail.empty());
    EXPECT_TRUE(with.noPerfDetail.empty()) << with.noPerfDetail;
    const Report report = reportFromRknnRun(with);
    EXPECT_FALSE(report.layers.empty());
    options.perLayer = false;
    const RknnRunResult without = runRknnModel(model, options);
    EXPECT_FALSE(without.perLayerAsked);
    EXPECT_TRUE(without.perfDetail.empty());
    EXPECT_TRUE(reportFromRknnRun(without).layers.empty());
    // The timed passes are the same in both: 2 passes x 2 slices, timed with PERF_RUN each.
    EXPECT_EQ(with.sliceRuns.size(), 4u);
    EXPECT_EQ(without.sliceRuns.size(), 4u);
    for (const auto& s : without.sliceRuns) EXPECT_GT(s.perfRunUs, 0);
}

TEST(RknnContexts, TheRuntimesOwnMultiBatchModelRunsWhole) {
    // A container converted with rknn_batch_size=3: the runtime reports 3x the sizes and splits each run itself.
    ModelRunOptions options = standinOptions(1, 0);
    options.perLayer = false;
    const RknnRunResult run = runRknnModel(standinModel("rk3588", 3), options);
    ASSERT_EQ(run.inputs.size(), 1u);
    EXPECT_EQ(run.inputs[0].shape[0], "3");
    EXPECT_EQ(run.inputData[0].size(), size_t(3) * kInputElems * sizeof(float));
    EXPECT_EQ(run.contexts.size(), 1u);
}
