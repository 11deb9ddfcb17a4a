// The rknpu model-runtime plugin through the engine's public API (npuwb/ModelRuntimes.h), against the stand-in
// librknnrt.so (standin/): loaded with dlopen like the backends, a clear "not available" answer without a runtime,
// the per-layer pass apart from the timed passes, contexts derived from the batch sharing weights, core masks the chip
// accepts or refuses, the report's runtime section and timeline. Also the runtime loader's refusals (missing plugin,
// another interface version, a name that could escape the folder).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "RknpuTestSupport.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/ModelRuntimes.h"

using namespace npuwb;
using namespace npuwb::rknpu_test;

TEST(RknpuRuntime, IsListedAndClaimsRknnFiles) {
    const std::vector<std::string> names = availableModelRuntimes();
    EXPECT_NE(std::find(names.begin(), names.end(), "rknpu"), names.end());
    EXPECT_EQ(modelRuntimeForFile("/x/model.rknn"), "rknpu");
    EXPECT_EQ(modelRuntimeForFile("MODEL.RKNN"), "rknpu");
    EXPECT_EQ(modelRuntimeForFile("model.onnx"), "");
    EXPECT_EQ(modelRuntimeForFile("rknn"), "");
}

TEST(RknpuRuntime, MissingRuntimeIsAClearAnswer) {
    ModelRunOptions options;
    options.library = "/nonexistent/librknnrt.so";
    const std::string reason = modelRuntimeUnavailableReason("rknpu", options);
    EXPECT_NE(reason.find("librknnrt.so not available on this board"), std::string::npos) << reason;
    EXPECT_NE(reason.find("/nonexistent/librknnrt.so"), std::string::npos) << reason;
    const Error e = thrownBy([&] { runModelFile("rknpu", "model.rknn", options); });
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find("not available on this board"), std::string::npos) << e.what();
}

TEST(RknpuRuntime, DefaultLibrariesAreAbsentOnThisHost) {
    unsetenv("NPUWB_RKNNRT_LIBRARY");
    const std::string reason = modelRuntimeUnavailableReason("rknpu");
#if defined(__x86_64__)
    // The full runtime first, then the RV1106/RV1103 mini runtime; both named.
    EXPECT_NE(reason.find("not available on this board: cannot load 'librknnrt.so'"), std::string::npos) << reason;
    EXPECT_NE(reason.find("cannot load 'librknnmrt.so'"), std::string::npos) << reason;
#endif
    setenv("NPUWB_RKNNRT_LIBRARY", STANDIN_RKNNRT_PATH, 1);  // the environment names the library when options do not
    EXPECT_EQ(modelRuntimeUnavailableReason("rknpu"), "");
    unsetenv("NPUWB_RKNNRT_LIBRARY");
}

TEST(RknpuRuntime, PerLayerPassAndTimedPassesAreLabelledApart) {
    const std::string model = standinModel("rk3588");
    const Report r = runModelFile("rknpu", model, standinOptions(4, 1));
    EXPECT_EQ(r.environment.backend, "rknpu");
    EXPECT_EQ(r.model.path, model);
    EXPECT_NE(r.model.producer.find("RKNN runtime"), std::string::npos) << r.model.producer;
    ASSERT_EQ(r.model.inputs.size(), 1u);
    EXPECT_EQ(r.model.inputs[0].name, "x");
    EXPECT_EQ(r.model.inputs[0].dataType, "float32");
    EXPECT_EQ(r.model.inputs[0].shape, (std::vector<std::string>{"1", "3", "8", "8"}));
    EXPECT_FALSE(r.layers.empty());  // from the perf-detail pass
    ASSERT_TRUE(r.runtime.has_value());
    EXPECT_NE(r.runtime->layerTiming.find("RKNN_FLAG_COLLECT_PERF_MASK"), std::string::npos);
    EXPECT_NE(r.runtime->timing.find("without RKNN_FLAG_COLLECT_PERF_MASK"), std::string::npos);
    EXPECT_EQ(r.run.runs, 4);
    EXPECT_EQ(r.run.warmup, 1);
    ASSERT_EQ(r.run.samplesUs.size(), 4u);
    for (double s : r.run.samplesUs) EXPECT_GT(s, 0);
    EXPECT_LE(r.run.minUs, r.run.medianUs);
    ASSERT_TRUE(r.runtime->perfRunMedianUs.has_value());  // the stand-in answers RKNN_QUERY_PERF_RUN
    EXPECT_GT(*r.runtime->perfRunMedianUs, 0);
    EXPECT_GT(r.runtime->samplesPerSecond, 0);
    ASSERT_TRUE(r.run.breakdown.has_value());
    EXPECT_GT(r.run.breakdown->inferenceUs, 0);

    ModelRunOptions noLayers = standinOptions(2, 0);
    noLayers.perLayer = false;
    const Report plain = runModelFile("rknpu", model, noLayers);
    EXPECT_TRUE(plain.layers.empty());
    EXPECT_TRUE(plain.runtime->layerTiming.empty());
    EXPECT_EQ(plain.run.runs, 2);
}

TEST(RknpuRuntime, ContextsFollowTheBatchAndShareWeights) {
    const std::string model = standinModel("rk3588");
    int64_t internalOfOne = 0;
    for (const auto& [batch, contexts] : std::vector<std::pair<int, size_t>>{{1, 1}, {2, 2}, {3, 3}, {5, 3}}) {
        ModelRunOptions options = standinOptions(2, 0);
        options.batch = batch;
        options.perLayer = false;
        const Report r = runModelFile("rknpu", model, options);
        ASSERT_TRUE(r.runtime.has_value());
        const RuntimeSection& rt = *r.runtime;
        ASSERT_EQ(rt.contexts.size(), contexts) << "batch " << batch;
        EXPECT_EQ(rt.batch, batch);
        EXPECT_EQ(rt.weightBytes, kWeightBytes) << "weights once, whatever the contexts";
        EXPECT_EQ(r.memory.weightBytes, kWeightBytes);
        int64_t internal = 0, slices = 0;
        for (const auto& c : rt.contexts) {
            EXPECT_GT(c.internalBytes, 0);
            if (internalOfOne == 0) internalOfOne = c.internalBytes;
            EXPECT_EQ(c.internalBytes, internalOfOne) << "every copy has its own internal memory";
            internal += c.internalBytes;
            slices += c.slicesPerPass;
        }
        EXPECT_EQ(slices, batch);
        EXPECT_EQ(rt.totalBytes, kWeightBytes + internal);
        EXPECT_EQ(r.memory.arenaBytes, internal);
        // The timeline: one lane per context, one bar per slice and timed pass, slice j on context j % contexts.
        ASSERT_EQ(r.traces.size(), 1u);
        EXPECT_EQ(r.traces[0].lanes.size(), contexts);
        ASSERT_EQ(r.traces[0].events.size(), static_cast<size_t>(2 * batch));
        for (const auto& e : r.traces[0].events) {
            const int slice = std::stoi(e.name.substr(e.name.find(' ') + 1));
            EXPECT_EQ(e.lane, "context " + std::to_string(slice % static_cast<int>(contexts)));
            EXPECT_LT(e.startUs, e.endUs);
        }
    }
}

TEST(RknpuRuntime, CoreMasksTheChipHasAreAcceptedOthersRefused) {
    ModelRunOptions options = standinOptions(1, 0);
    options.batch = 3;
    options.perLayer = false;
    options.contextCoreMasks = {NpuCoreMask::Core0, NpuCoreMask::Core1, NpuCoreMask::Core2};
    const Report r = runModelFile("rknpu", standinModel("rk3588"), options);  // three NPU cores
    ASSERT_EQ(r.runtime->contexts.size(), 3u);
    EXPECT_EQ(r.runtime->contexts[0].coreMask, "0");
    EXPECT_EQ(r.runtime->contexts[1].coreMask, "1");
    EXPECT_EQ(r.runtime->contexts[2].coreMask, "2");
    options.contextCoreMasks.clear();
    options.coreMask = NpuCoreMask::Cores012;
    EXPECT_EQ(runModelFile("rknpu", standinModel("rk3588"), options).runtime->contexts[2].coreMask, "0_1_2");

    const std::string single = standinModel("rk3566");  // one NPU core
    options.batch = 1;
    options.coreMask = NpuCoreMask::Core1;
    const Error e = thrownBy([&] { runModelFile("rknpu", single, options); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    const std::string msg = e.what();
    EXPECT_NE(msg.find(single + ": rknn_set_core_mask(context 0, '1') failed with RKNN error -5"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("need a multi-core NPU"), std::string::npos) << msg;
    options.coreMask = NpuCoreMask::Auto;
    EXPECT_EQ(runModelFile("rknpu", single, options).runtime->contexts[0].coreMask, "auto");
}

TEST(RknpuRuntime, ReportRoundTripsWithItsRuntimeSection) {
    ModelRunOptions options = standinOptions(2, 0);
    options.batch = 2;
    const Report r = runModelFile("rknpu", standinModel("rk3588"), options);
    const std::string path = workFile("report.json");
    saveReport(r, path);
    const Report back = loadReport(path);
    ASSERT_TRUE(back.runtime.has_value());
    EXPECT_EQ(back.runtime->contexts.size(), 2u);
    EXPECT_EQ(back.runtime->weightBytes, r.runtime->weightBytes);
    EXPECT_EQ(back.runtime->totalBytes, r.runtime->totalBytes);
    EXPECT_EQ(back.runtime->timing, r.runtime->timing);
    EXPECT_DOUBLE_EQ(back.runtime->samplesPerSecond, r.runtime->samplesPerSecond);
    EXPECT_EQ(back.traces.size(), 1u);
}

TEST(RknpuRuntime, RuntimeErrorsNameTheModelAndCall) {
    const std::string model = workFile("real.rknn");
    writeFileAtomically(model, std::string("RKNN") + std::string(60, '\0'));  // a real .rknn header: the stand-in refuses
    Error e = thrownBy([&] { runModelFile("rknpu", model, standinOptions()); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_NE(std::string(e.what()).find(model + ": rknn_init"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("error -6"), std::string::npos) << e.what();
    e = thrownBy([&] { runModelFile("rknpu", "/nonexistent/model.rknn", standinOptions()); });
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model.rknn"), std::string::npos) << e.what();
    e = thrownBy([&] { runModelFile("rknpu", "/nonexistent/model.rknn", standinOptions(0)); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    ModelRunOptions tooMany = standinOptions();
    tooMany.batch = 2;
    tooMany.contexts = 3;
    e = thrownBy([&] { runModelFile("rknpu", standinModel("rk3588"), tooMany); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_NE(std::string(e.what()).find("3 contexts for a batch of 2"), std::string::npos) << e.what();
}

TEST(ModelRuntimeLoader, MissingPluginNamesEveryFolderSearched) {
    setenv("NPUWB_PLUGIN_PATH", "/nonexistent/one:/nonexistent/two", 1);
    const Error e = thrownBy([] { runModelFile("no-such-runtime", "m.bin", {}); });
    unsetenv("NPUWB_PLUGIN_PATH");
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("libnpuwb-runtime-no-such-runtime.so"), std::string::npos) << msg;
    EXPECT_NE(msg.find("/nonexistent/one"), std::string::npos) << msg;
    EXPECT_NE(msg.find("/nonexistent/two"), std::string::npos) << msg;
    EXPECT_NE(modelRuntimeUnavailableReason("no-such-runtime").find("not found"), std::string::npos);
}

TEST(ModelRuntimeLoader, PluginOfAnotherInterfaceVersionIsRefused) {
    setenv("NPUWB_PLUGIN_PATH", NPUWB_FAKE_RUNTIME_DIR, 1);
    const Error e = thrownBy([] { runModelFile("fake-old", "m.bin", {}); });
    const std::vector<std::string> names = availableModelRuntimes();
    unsetenv("NPUWB_PLUGIN_PATH");
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("interface version " + std::to_string(kModelRuntimeApiVersion + 41)), std::string::npos) << msg;
    EXPECT_NE(msg.find("needs version " + std::to_string(kModelRuntimeApiVersion)), std::string::npos) << msg;
    EXPECT_NE(std::find(names.begin(), names.end(), "fake-old"), names.end());
}

TEST(ModelRuntimeLoader, RejectsNamesThatCouldEscapeThePluginFolder) {
    EXPECT_EQ(thrownBy([] { runModelFile("../../evil", "m.bin", {}); }).kind(), ErrorKind::Unsupported);
}
