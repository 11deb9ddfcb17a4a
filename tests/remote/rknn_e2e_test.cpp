// A compiled model through the whole chain with the events a GUI sees: AgentClient -> a real sshd on loopback ->
// npuwb-agent -> the rknpu runtime plugin -> the stand-in librknnrt.so (tests/rknpu/standin) running a test
// container of the sample model, on a fake RK3588 sysfs tree so the telemetry has NPU load and clocks. The "board"
// environment (NPUWB_RKNNRT_LIBRARY, NPUWB_SYSFS_ROOT) comes from the test sshd's SetEnv, as a real board's would
// come from its own setup (librknnrt.so on the library path).
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
            << "SetEnv NPUWB_RKNNRT_LIBRARY=" << STANDIN_RKNNRT_PATH << " NPUWB_SYSFS_ROOT=" << sshd.path("sysfs")
            << " NPUWB_CHIPS_DIR=" << sourcePath("resources/chips") << "\n";  // the stand-in reads the target chip
        sshd.start();
        runLocal("/usr/bin/python3 " + shellQuote(sourcePath("tests/rknpu/standin/make_standin_rknn.py")) + " " +
                 shellQuote(tinyModel()) + " --target rk3588 -o " + shellQuote(sshd.path("model.rknn")));
    }
    ~RknnBoard() {
        sshd.stop();
        runLocal("rm -rf " + shellQuote(sshd.folder()));
    }
    TestSshd sshd;
};
}  // namespace

TEST(RemoteE2E, CompiledModelRunsOnTheBoardsRuntimeWithTheTelemetryOfThatRun) {
    if (std::string(STANDIN_RKNNRT_PATH).empty()) GTEST_SKIP() << "the rknpu runtime plugin is not built here";
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
    ASSERT_FALSE(report.layers.empty());

    // The perf-detail rows are the sample model's executed nodes (the stand-in's table).
    EXPECT_GT(report.layers.size(), 20u);
    EXPECT_EQ(report.environment.backend, "rknpu");
    EXPECT_NE(report.model.producer.find("stand-in"), std::string::npos) << report.model.producer;
    EXPECT_EQ(report.run.runs, 4);
    EXPECT_GT(report.run.medianUs, 0.0);
    EXPECT_GT(report.memory.weightBytes, 0);  // RKNN_QUERY_MEM_SIZE
    ASSERT_EQ(report.model.inputs.size(), 1u);
    EXPECT_EQ(report.model.inputs[0].name, "image");
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
