// The rknpu model-runtime plugin through the engine's public API (npuwb/ModelRuntimes.h): loaded with dlopen like
// the backends, a clear "not available" answer without librknnrt.so, and the dlopen/query/mapping path against a
// test double of the runtime (FakeRknnRuntime.cpp) that answers with a real published perf-detail text. Also the
// runtime loader's refusals (missing plugin, another interface version, a name that could escape the folder).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"
#include "npuwb/ModelRuntimes.h"

using namespace npuwb;

namespace {
const std::string kYolo = std::string(NPUWB_SOURCE_DIR) + "/tests/data/rknn-logs/rk3588-yolov8n-1920x1088-perf-detail.txt";

std::string tempFile(const std::string& name, const std::string& contents) {
    auto path = std::filesystem::temp_directory_path() / ("npuwb-rknpu-" + std::to_string(getpid()) + "-" + name);
    writeFileAtomically(path.string(), contents);
    return path.string();
}

template <class F> Error thrownBy(F f) {
    try {
        f();
    } catch (const Error& e) {
        return e;
    }
    ADD_FAILURE() << "no npuwb::Error thrown";
    return Error(ErrorKind::Internal, "");
}

ModelRunOptions withFakeRuntime(int runs = 10, int warmup = 2) {
    ModelRunOptions options;
    options.library = FAKE_RKNNRT_PATH;
    options.runs = runs;
    options.warmup = warmup;
    return options;
}
}  // namespace

TEST(RknpuRuntime, IsListedAmongTheModelRuntimes) {
    const std::vector<std::string> names = availableModelRuntimes();
    EXPECT_NE(std::find(names.begin(), names.end(), "rknpu"), names.end());
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

TEST(RknpuRuntime, DefaultLibraryIsAbsentOnThisHost) {
    unsetenv("NPUWB_RKNNRT_LIBRARY");
    const std::string reason = modelRuntimeUnavailableReason("rknpu");
#if defined(__x86_64__)
    EXPECT_NE(reason.find("not available on this board: cannot load 'librknnrt.so'"), std::string::npos) << reason;
#endif
    setenv("NPUWB_RKNNRT_LIBRARY", FAKE_RKNNRT_PATH, 1);  // the environment names the library when options do not
    EXPECT_EQ(modelRuntimeUnavailableReason("rknpu"), "");
    unsetenv("NPUWB_RKNNRT_LIBRARY");
}

TEST(RknpuRuntime, ProfilesThroughTheRuntimeDouble) {
    setenv("FAKE_RKNNRT_PERF_DETAIL", kYolo.c_str(), 1);
    const std::string model = tempFile("model.rknn", std::string("RKNN") + std::string(60, '\0'));
    const ModelRunOptions options = withFakeRuntime(5, 2);
    EXPECT_EQ(modelRuntimeUnavailableReason("rknpu", options), "");
    const Report r = runModelFile("rknpu", model, options);
    EXPECT_EQ(r.environment.backend, "rknpu");
    EXPECT_EQ(r.model.path, model);
    EXPECT_EQ(r.model.producer, "RKNN runtime fake 0.0.0 (test double)");
    ASSERT_EQ(r.model.inputs.size(), 1u);
    EXPECT_EQ(r.model.inputs[0].name, "images");
    EXPECT_EQ(r.model.inputs[0].dataType, "uint8");
    EXPECT_EQ(r.model.inputs[0].shape, (std::vector<std::string>{"1", "1088", "1920", "3"}));
    ASSERT_EQ(r.layers.size(), 108u);  // the perf-detail text of the last run, row by row
    double sum = 0;
    for (const auto& l : r.layers) sum += l.timeUs;
    EXPECT_DOUBLE_EQ(sum, 96186);
    EXPECT_EQ(r.run.samplesUs, (std::vector<double>{96300, 96400, 96500, 96600, 96700}));  // RKNN_QUERY_PERF_RUN
    EXPECT_EQ(r.run.runs, 5);
    EXPECT_EQ(r.run.warmup, 2);
    EXPECT_DOUBLE_EQ(r.run.medianUs, 96500);
    EXPECT_DOUBLE_EQ(r.run.minUs, 96300);
    EXPECT_DOUBLE_EQ(r.run.maxUs, 96700);
    EXPECT_EQ(r.memory.weightBytes, 3457024);
    EXPECT_EQ(r.memory.arenaBytes, 12582912);
    EXPECT_EQ(r.memory.ioBytes, 1088 * 1920 * 3 + 64 * 240 * 136);
    std::filesystem::remove(model);
}

TEST(RknpuRuntime, RuntimeErrorsNameTheModelAndCall) {
    setenv("FAKE_RKNNRT_PERF_DETAIL", kYolo.c_str(), 1);
    const std::string model = tempFile("not-rknn.rknn", "ONNX but not rknn");
    Error e = thrownBy([&] { runModelFile("rknpu", model, withFakeRuntime()); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    EXPECT_NE(std::string(e.what()).find(model + ": rknn_init"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("error -6"), std::string::npos) << e.what();
    std::filesystem::remove(model);
    e = thrownBy([&] { runModelFile("rknpu", "/nonexistent/model.rknn", withFakeRuntime()); });
    EXPECT_NE(std::string(e.what()).find("/nonexistent/model.rknn"), std::string::npos) << e.what();
    e = thrownBy([&] { runModelFile("rknpu", "/nonexistent/model.rknn", withFakeRuntime(0)); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
}

TEST(RknpuRuntime, NoPerfDetailIsSaid) {
    const std::string empty = tempFile("empty-detail.txt", "");
    setenv("FAKE_RKNNRT_PERF_DETAIL", empty.c_str(), 1);  // the double answers RKNN_QUERY_PERF_DETAIL with no text
    const std::string model = tempFile("m.rknn", std::string("RKNN") + std::string(60, '\0'));
    const Error e = thrownBy([&] { runModelFile("rknpu", model, withFakeRuntime(1, 0)); });
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    EXPECT_NE(std::string(e.what()).find(model + ": the runtime returned no per-layer perf detail"), std::string::npos)
        << e.what();
    std::filesystem::remove(model);
    std::filesystem::remove(empty);
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
