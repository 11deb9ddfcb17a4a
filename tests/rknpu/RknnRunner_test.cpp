// The rknpu runner: a clear "not available" answer without librknnrt.so, and the dlopen/query/mapping path against
// a test double of the runtime (FakeRknnRuntime.cpp) that answers with a real published perf-detail text.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "RknnRunner.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"

using namespace npuwb;
using namespace npuwb::rknpu;

namespace {
const std::string kYolo = std::string(NPUWB_SOURCE_DIR) + "/tests/data/rknn-logs/rk3588-yolov8n-1920x1088-perf-detail.txt";

std::string tempFile(const std::string& name, const std::string& contents) {
    auto path = std::filesystem::temp_directory_path() / ("npuwb-rknpu-" + std::to_string(getpid()) + "-" + name);
    writeFileAtomically(path.string(), contents);
    return path.string();
}
}  // namespace

TEST(RknnRunner, MissingRuntimeIsAClearAnswer) {
    const std::string reason = rknnRuntimeUnavailableReason("/nonexistent/librknnrt.so");
    EXPECT_NE(reason.find("librknnrt.so not available on this board"), std::string::npos) << reason;
    EXPECT_NE(reason.find("/nonexistent/librknnrt.so"), std::string::npos) << reason;
    RknnRunOptions options;
    options.library = "/nonexistent/librknnrt.so";
    try {
        runRknnModel("model.rknn", options);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
        EXPECT_NE(std::string(e.what()).find("not available on this board"), std::string::npos) << e.what();
    }
}

TEST(RknnRunner, DefaultLibraryIsAbsentOnThisHost) {
    unsetenv("NPUWB_RKNNRT_LIBRARY");
    EXPECT_EQ(rknnRuntimeLibrary(), "librknnrt.so");
#if defined(__x86_64__)
    EXPECT_NE(rknnRuntimeUnavailableReason().find("not available on this board"), std::string::npos);
#endif
}

TEST(RknnRunner, ProfilesThroughTheRuntimeDouble) {
    setenv("FAKE_RKNNRT_PERF_DETAIL", kYolo.c_str(), 1);
    const std::string model = tempFile("model.rknn", std::string("RKNN") + std::string(60, '\0'));
    RknnRunOptions options;
    options.library = FAKE_RKNNRT_PATH;
    options.runs = 5;
    options.warmup = 2;
    EXPECT_EQ(rknnRuntimeUnavailableReason(options.library), "");
    RknnRunResult result = runRknnModel(model, options);
    EXPECT_EQ(result.runDurationsUs, (std::vector<double>{96300, 96400, 96500, 96600, 96700}));
    EXPECT_EQ(result.perfDetail, readFile(kYolo));
    ASSERT_EQ(result.inputs.size(), 1u);
    EXPECT_EQ(result.inputs[0].name, "images");
    EXPECT_EQ(result.inputs[0].dataType, "uint8");
    EXPECT_EQ(result.inputs[0].shape, (std::vector<std::string>{"1", "1088", "1920", "3"}));

    Report r = reportFromRknnRun(result);
    EXPECT_EQ(r.environment.backend, "rknpu");
    EXPECT_EQ(r.model.path, model);
    ASSERT_EQ(r.layers.size(), 108u);
    double sum = 0;
    for (const auto& l : r.layers) sum += l.timeUs;
    EXPECT_DOUBLE_EQ(sum, 96186);
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

TEST(RknnRunner, RuntimeErrorsNameTheModelAndCall) {
    setenv("FAKE_RKNNRT_PERF_DETAIL", kYolo.c_str(), 1);
    const std::string model = tempFile("not-rknn.rknn", "ONNX but not rknn");
    RknnRunOptions options;
    options.library = FAKE_RKNNRT_PATH;
    try {
        runRknnModel(model, options);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
        EXPECT_NE(std::string(e.what()).find(model + ": rknn_init"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("error -6"), std::string::npos) << e.what();
    }
    std::filesystem::remove(model);
    try {
        runRknnModel("/nonexistent/model.rknn", options);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/model.rknn"), std::string::npos) << e.what();
    }
}

TEST(RknnRunner, NoPerfDetailIsSaid) {
    RknnRunResult result;
    result.modelPath = "m.rknn";
    result.runDurationsUs = {1000};
    try {
        reportFromRknnRun(result);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
        EXPECT_NE(std::string(e.what()).find("m.rknn: the runtime returned no per-layer perf detail"), std::string::npos);
    }
}
