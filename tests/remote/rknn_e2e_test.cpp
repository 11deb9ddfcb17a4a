// A compiled model through the whole chain with the events a GUI sees: AgentClient -> a real sshd on loopback ->
// npuwb-agent -> the rknpu runtime plugin -> the librknnrt.so test double, on a fake RK3588 sysfs tree so the
// telemetry has NPU load and clocks. The "board" environment (NPUWB_RKNNRT_LIBRARY, NPUWB_SYSFS_ROOT) comes from
// the test sshd's SetEnv, as a real board's would come from its own setup.
#include <gtest/gtest.h>

#include <fstream>

#include "RemoteTestSupport.h"
#include "npuwb/Error.h"

using namespace npuwb::remote;
using namespace npuwb::remote::testing;

namespace {
struct RknnBoard {
    RknnBoard() : sshd(makeTempFolder("rknn-e2e")) {
        runLocal("/usr/bin/python3 -c " +
                 shellQuote("import sys; sys.path.insert(0, '" + sourcePath("tests/agent") +
                            "'); import fake_board; fake_board.make_rk3588('" + sshd.path("sysfs") + "')"));
        std::ofstream(sshd.path("sshd_config"), std::ios::app)
            << "SetEnv NPUWB_RKNNRT_LIBRARY=" << FAKE_RKNNRT_PATH
            << " FAKE_RKNNRT_PERF_DETAIL=" << sourcePath("tests/data/rknn-logs/rk3588-yolov8n-1920x1088-perf-detail.txt")
            << " NPUWB_SYSFS_ROOT=" << sshd.path("sysfs") << "\n";
        sshd.start();
        std::ofstream(sshd.path("model.rknn"), std::ios::binary) << std::string("RKNN\0\0\0\0", 8);
    }
    ~RknnBoard() {
        sshd.stop();
        runLocal("rm -rf " + shellQuote(sshd.folder()));
    }
    TestSshd sshd;
};
}  // namespace

TEST(RemoteE2E, CompiledModelRunsOnTheBoardsRuntimeWithTheTelemetryOfThatRun) {
    if (std::string(FAKE_RKNNRT_PATH).empty()) GTEST_SKIP() << "the rknpu runtime plugin is not built here";
    RknnBoard board;
    ConnectedBoard c(board.sshd);
    AgentClient agent(c.session, c.deployer.deployAgent());
    npuwb::AgentJob job;
    job.model = c.deployer.deployModel(board.sshd.path("model.rknn")).remotePath;
    ASSERT_TRUE(job.model.ends_with(".rknn")) << job.model;
    job.runtime = "rknpu";
    job.modelRun.runs = 4;
    job.modelRun.warmup = 1;
    job.modelRun.coreMask = npuwb::NpuCoreMask::Cores012;
    job.telemetryIntervalMs = 5;
    std::vector<npuwb::AgentTelemetry> samples;
    std::vector<npuwb::AgentProgress> progress;
    AgentEvents events;
    events.telemetry = [&](const npuwb::AgentTelemetry& t) { samples.push_back(t); };
    events.progress = [&](const npuwb::AgentProgress& p) { progress.push_back(p); };
    const npuwb::Report report = agent.run(job, events, 120);

    EXPECT_EQ(report.layers.size(), 108u);  // the perf-detail table the runtime returned
    ASSERT_FALSE(report.layers.empty());
    EXPECT_TRUE(report.layers.front().cyclesTotal.has_value());
    EXPECT_EQ(report.run.runs, 4);
    EXPECT_GT(report.run.medianUs, 0.0);
    EXPECT_GT(report.memory.weightBytes, 0);  // RKNN_QUERY_MEM_SIZE
    ASSERT_EQ(report.model.inputs.size(), 1u);
    EXPECT_EQ(report.model.inputs[0].name, "images");
    EXPECT_EQ(report.environment.npuDriver.value_or(""), "0.9.6");  // the board's sysfs, not the runtime's text
    ASSERT_GE(samples.size(), 2u);  // at least the first and the last sample of the run
    ASSERT_TRUE(samples.front().npuLoad.has_value());
    EXPECT_EQ(samples.front().npuLoad->size(), 3u);  // three NPU cores on the RK3588 tree
    EXPECT_TRUE(samples.front().npuFreqHz.has_value());
    ASSERT_EQ(progress.size(), 2u);
    EXPECT_EQ(progress.back().done, 5);  // warm-up + runs

    // The same board refuses a runtime that is not deployed, naming it.
    job.runtime = "nosuchruntime";
    try {
        agent.run(job, {}, 60);
        ADD_FAILURE() << "an unknown runtime ran";
    } catch (const npuwb::Error& e) {
        EXPECT_NE(std::string(e.what()).find("nosuchruntime"), std::string::npos) << e.what();
    }
}
