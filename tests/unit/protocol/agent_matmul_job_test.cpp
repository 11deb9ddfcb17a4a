// Matmul jobs and their answer in the agent's wire format (npuwb/AgentProtocol.h, protocol 4): the sweep and the
// chip profile survive JSON and back, bad matmul jobs are refused naming the field, and a board's MatmulBenchResult
// survives the matmulBench event (matmulBenchJson / matmulBenchResultFromJson).
#include <gtest/gtest.h>

#include "npuwb/AgentProtocol.h"

namespace npuwb {
namespace {

std::string refusal(const std::string& text) {
    try {
        parseAgentJob(text, "'job.json'");
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
        return e.what();
    }
    return "accepted";
}

TEST(AgentMatmulJob, RoundTrip) {
    AgentJob job;
    job.runtime = "rknpu";
    MatmulBenchOptions bench;
    bench.type = MatmulType::Fp16xInt4ToFp16;
    bench.bLayout = MatmulLayout::TpNorm;
    bench.acLayout = MatmulLayout::Native;
    bench.mValues = {1, 7};
    bench.kValues = {64, 128};
    bench.nValues = {32};
    bench.runs = 4;
    bench.warmup = 0;
    bench.npuCores = 2;
    bench.coreMask = NpuCoreMask::Cores01;
    bench.seed = 18446744073709551615ull;
    job.matmul = AgentMatmulJob{.chip = "RK3588", .chipProfile = {{"name", "RK3588"}}, .bench = bench};
    const nlohmann::json j = toJson(job);
    EXPECT_FALSE(j.contains("model")) << j.dump();
    EXPECT_FALSE(j.contains("modelRun")) << j.dump();
    EXPECT_EQ(j.at("protocol"), 4);
    const AgentJob back = parseAgentJob(j.dump(), "'job.json'");
    ASSERT_TRUE(back.matmul);
    EXPECT_EQ(back.runtime, "rknpu");
    EXPECT_EQ(back.matmul->chip, "RK3588");
    EXPECT_EQ(back.matmul->chipProfile, job.matmul->chipProfile);
    const MatmulBenchOptions& b = back.matmul->bench;
    EXPECT_EQ(b.type, bench.type);
    EXPECT_EQ(b.bLayout, MatmulLayout::TpNorm);
    EXPECT_EQ(b.acLayout, MatmulLayout::Native);
    EXPECT_EQ(b.mValues, bench.mValues);
    EXPECT_EQ(b.kValues, bench.kValues);
    EXPECT_EQ(b.nValues, bench.nValues);
    EXPECT_EQ(b.runs, 4);
    EXPECT_EQ(b.warmup, 0);
    EXPECT_EQ(b.npuCores, 2);
    EXPECT_EQ(b.coreMask, NpuCoreMask::Cores01);
    EXPECT_EQ(b.seed, bench.seed);
}

TEST(AgentMatmulJob, BadJobsAreRefusedNamingTheField) {
    EXPECT_NE(refusal(R"({"matmul":{"chip":"RK3588"}})").find("'matmul' needs a 'runtime'"), std::string::npos);
    EXPECT_NE(refusal(R"({"runtime":"rknpu","matmul":{}})").find("'chip'"), std::string::npos);
    EXPECT_NE(refusal(R"({"runtime":"rknpu","matmul":{"chip":"RK3588","M":[]}})").find("field 'M' needs"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"runtime":"rknpu","matmul":{"chip":"RK3588","runs":0}})").find("'runs' must be at least 1"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"runtime":"rknpu","matmul":{"chip":"RK3588","coreMask":"3"}})").find("'coreMask'"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"runtime":"rknpu","matmul":{"chip":"RK3588","sizes":1}})").find("unknown field 'sizes'"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"runtime":"rknpu","model":"m","matmul":{"chip":"RK3588"}})").find("no 'model'"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"runtime":"rknpu","modelRun":{},"matmul":{"chip":"RK3588"}})").find("no 'modelRun'"),
              std::string::npos);
    EXPECT_NE(refusal(R"({"runtime":"rknpu","matmul":{"chip":"RK3588","M":"1"}})").find("'M' has the wrong type"),
              std::string::npos);
}

TEST(AgentMatmulJob, ResultEventRoundTrip) {
    MatmulBenchResult r;
    r.chip = "RK3566";
    r.type = MatmulType::Fp16xFp16ToFp32;
    r.bLayout = MatmulLayout::Native;
    r.acLayout = MatmulLayout::Native;
    r.threads = 4;
    r.npuCores = 1;
    r.coreMask = NpuCoreMask::Core0;
    r.peakGops = 1024;
    r.measuredOn = "radxa";
    MatmulBenchPoint p;
    p.M = 8, p.K = 128, p.N = 64;
    p.medianUs = 40, p.minUs = 38, p.gops = 3.3, p.bToNativeUs = 12, p.acToNativeUs = 2;
    p.backend = "rknpu";
    p.aLayout = "[K/4,M,4] = [32,8,4]";
    p.bLayout = "b", p.cLayout = "c";
    p.estimate.timeUs = 10, p.estimate.npuCycles = 5000, p.estimate.paddedMacs = 65536, p.estimate.bytesMoved = 99;
    r.points = {p};
    const nlohmann::json line = toJson(AgentEvent{AgentMatmulBench{r}});
    EXPECT_EQ(line.at("event"), "matmulBench");
    EXPECT_EQ(line.at("result").at("points").at(0).at("predictedOverMeasured"), 0.25);
    const auto event = agentEventFromJson(nlohmann::json::parse(line.dump()));
    ASSERT_TRUE(event && std::holds_alternative<AgentMatmulBench>(*event));
    const MatmulBenchResult& back = std::get<AgentMatmulBench>(*event).result;
    EXPECT_EQ(back.chip, "RK3566");
    EXPECT_EQ(back.type, r.type);
    EXPECT_EQ(back.acLayout, MatmulLayout::Native);
    EXPECT_EQ(back.coreMask, NpuCoreMask::Core0);
    EXPECT_EQ(back.measuredOn, "radxa");
    ASSERT_EQ(back.points.size(), 1u);
    EXPECT_EQ(back.points[0].M, 8);
    EXPECT_EQ(back.points[0].medianUs, 40);
    EXPECT_EQ(back.points[0].backend, "rknpu");
    EXPECT_EQ(back.points[0].aLayout, p.aLayout);
    EXPECT_EQ(back.points[0].estimate.paddedMacs, 65536);
    EXPECT_EQ(matmulBenchJson(back).dump(), matmulBenchJson(r).dump());
    // Another schema version is refused naming it.
    nlohmann::json old = matmulBenchJson(r);
    old["schemaVersion"] = 1;
    try {
        matmulBenchResultFromJson(old, "board result");
        ADD_FAILURE() << "version 1 accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("schemaVersion 1"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace npuwb
