// Execution contexts (Session::newContext, npuwb/ContextProfile.h): a context compiles its own
// plan on the same backend instance, reuses the weights that instance packed (weight bytes allocated once; the
// process grows by the new context's scratch, not by another copy of the weights), runs concurrently with the other
// contexts and gives the same results as a run alone.
#include <gtest/gtest.h>
#include <malloc.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>
#include <span>
#include <thread>
#include <utility>

#include "DifferentialHarness.h"
#include "npuwb/ContextProfile.h"
#include "npuwb/Error.h"
#include "npuwb/Npy.h"
#include "npuwb/Session.h"

using namespace npuwb;
using namespace npuwb::difftest;

namespace {

/// X[1,64,16,16] -> Conv 3x3 (64) -> Relu -> Flatten -> Gemm (transB, 16384 -> 512) -> Y: 16.9 MB of float weights,
/// read in place by the packers (no temporary copy), against activations of a few hundred kilobytes.
Case heavyWeights() {
    std::mt19937 rng(5);
    std::vector<Node> nodes{
        makeNode("Conv", {"X", "W", "B"}, {"c"},
                 {{"kernel_shape", Attribute::ofInts({3, 3})}, {"pads", Attribute::ofInts({1, 1, 1, 1})}}),
        makeNode("Relu", {"c"}, {"r"}), makeNode("Flatten", {"r"}, {"f"}),
        makeNode("Gemm", {"f", "G", "C"}, {"Y"}, {{"transB", Attribute::ofInt(1)}})};
    std::map<std::string, Tensor> init{{"W", randomTensor({64, 64, 3, 3}, rng)}, {"B", randomTensor({64}, rng)},
                                       {"G", randomTensor({512, 64 * 16 * 16}, rng, -0.01f, 0.01f)},
                                       {"C", randomTensor({512}, rng)}};
    return makeCase("heavy weights", nodes, {{"X", {1, 64, 16, 16}}}, {"Y"}, init, rng);
}

/// Resident bytes after handing free heap pages back (malloc_trim), so that memory a step allocates shows as growth
/// even where it reuses blocks an earlier step freed.
int64_t residentBytes() {
    malloc_trim(0);
    std::ifstream statm("/proc/self/statm");
    int64_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * sysconf(_SC_PAGESIZE);
}

/// The backends whose contexts share packed weights, asked of a one-Conv model (this runs at test registration, in
/// every test process: it must stay cheap, also under qemu).
std::vector<std::string> sharingBackends() {
    std::mt19937 rng(1);
    const Case tiny = makeCase("probe", {makeNode("Conv", {"X", "W"}, {"Y"}, {{"kernel_shape", Attribute::ofInts({1, 1})}})},
                               {{"X", {1, 4, 2, 2}}}, {"Y"}, {{"W", randomTensor({4, 4, 1, 1}, rng)}}, rng);
    std::vector<std::string> names;
    for (const auto& b : availableBackends()) {
        Session probe(tiny.model, {.executor = {.backend = b, .threads = 1}});
        probe.prepare(tiny.inputs);
        if (probe.memory().weightsShared) names.push_back(b);
    }
    return names;
}

class SharedWeights : public ::testing::TestWithParam<std::string> {};

TEST_P(SharedWeights, ASecondContextAllocatesNoWeights) {
    const Case c = heavyWeights();
    Session first(c.model, {.executor = {.backend = GetParam(), .threads = 1}});
    first.prepare(c.inputs);
    const SessionMemory one = first.memory();
    ASSERT_TRUE(one.weightsShared);
    ASSERT_GT(one.weightBytes, int64_t{16} << 20) << "the Conv and Gemm weights, packed";
    ASSERT_GT(one.scratchBytes, 0);

    const int64_t before = residentBytes();
    Session second = first.newContext(1);
    second.prepare(c.inputs);
    const int64_t grewBy = residentBytes() - before;
    const SessionMemory two = second.memory();
    EXPECT_EQ(two.weightBytes, one.weightBytes) << "the instance packed nothing new";
    EXPECT_GT(two.scratchBytes, 0) << "the context has its own arena";
    EXPECT_LT(grewBy, one.weightBytes / 2) << "the process grew by " << grewBy << " bytes for a context";

    // The control: a separate session (its own backend instance) packs its own copy.
    const int64_t beforeSeparate = residentBytes();
    Session separate(c.model, {.executor = {.backend = GetParam(), .threads = 1}});
    separate.prepare(c.inputs);
    EXPECT_GT(residentBytes() - beforeSeparate, one.weightBytes * 8 / 10);
    EXPECT_EQ(first.memory().weightBytes, one.weightBytes);
}

TEST_P(SharedWeights, ContextsRunConcurrentlyWithTheResultsOfARunAlone) {
    const Case c = heavyWeights();
    Session first(c.model, {.executor = {.backend = GetParam(), .threads = 1}});
    std::mt19937 rng(9);
    std::vector<std::map<std::string, Tensor>> inputs{c.inputs, {{"X", randomTensor({1, 64, 16, 16}, rng)}}};
    std::vector<std::map<std::string, Tensor>> alone;
    for (const auto& in : inputs) alone.push_back(first.runTensors(in));
    std::vector<std::thread> threads;
    std::vector<int> mismatches(2, 0);
    for (size_t t = 0; t < 2; ++t)
        threads.emplace_back([&, t] {
            // Compiled, run and destroyed on this thread, as profileContexts does (oneDNN's library scratchpad is
            // per thread).
            const Session context = first.newContext(1);
            for (int run = 0; run < 20; ++run) {
                const Tensor y = context.runTensors(inputs[t]).at("Y");
                const std::span<const float> got = y.values<float>();
                const std::span<const float> want = std::as_const(alone[t]).at("Y").values<float>();
                if (!std::equal(got.begin(), got.end(), want.begin(), want.end())) ++mismatches[t];
            }
        });
    for (auto& th : threads) th.join();
    EXPECT_EQ(mismatches[0], 0);
    EXPECT_EQ(mismatches[1], 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, SharedWeights, ::testing::ValuesIn(sharingBackends()), [](const auto& info) {
    std::string n = info.param;
    std::replace(n.begin(), n.end(), '-', '_');
    return n;
});
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SharedWeights);

std::vector<std::string> executors() {
    std::vector<std::string> names{"reference"};
    for (const auto& b : availableBackends()) names.push_back(b);
    return names;
}

class ContextProfile : public ::testing::TestWithParam<std::string> {};

TEST_P(ContextProfile, ReportsEveryContextTheWeightsOnceAndEverySlice) {
    const Case c = heavyWeights();
    ModelRunOptions options;
    options.runs = 3;
    options.warmup = 1;
    options.batch = 4;
    options.contexts = 2;
    options.perLayer = false;
    const Report r = profileContexts(c.model, {.backend = GetParam(), .threads = 2}, options);
    ASSERT_TRUE(r.runtime);
    const RuntimeSection& rt = *r.runtime;
    EXPECT_EQ(rt.runtime, GetParam());
    EXPECT_EQ(rt.batch, 4);
    ASSERT_EQ(rt.contexts.size(), 2u);
    int64_t scratch = 0;
    for (const auto& ctx : rt.contexts) {
        EXPECT_EQ(ctx.slicesPerPass, 2);
        scratch += ctx.internalBytes;
    }
    Session alone(c.model, {.executor = {.backend = GetParam(), .threads = 1}});
    alone.prepare(c.inputs);
    const SessionMemory m = alone.memory();
    EXPECT_EQ(rt.weightBytes, m.weightsShared ? m.weightBytes : 2 * m.weightBytes);
    EXPECT_EQ(rt.totalBytes, rt.weightBytes + scratch);
    EXPECT_GT(rt.samplesPerSecond, 0.0);
    EXPECT_EQ(r.run.samplesUs.size(), 3u);
    ASSERT_EQ(r.traces.size(), 1u);
    EXPECT_EQ(r.traces[0].events.size(), 3u * 4u) << "one bar per slice of every timed pass";
    for (const auto& e : r.traces[0].events) EXPECT_LE(e.startUs, e.endUs);
}

TEST_P(ContextProfile, RefusesMoreContextsThanSlicesAndNamesAStackedInputThatDoesNotFit) {
    const Case c = heavyWeights();
    ModelRunOptions options;
    options.batch = 2;
    options.contexts = 3;
    EXPECT_THROW(profileContexts(c.model, {.backend = GetParam()}, options), Error);
    options.contexts = 2;
    options.perLayer = false;
    const std::string path = ::testing::TempDir() + "/contexts_bad_input.npy";
    std::mt19937 rng(1);
    writeNpy(path, randomTensor({3, 64, 16, 16}, rng));  // neither one slice nor two stacked
    options.inputFiles["X"] = path;
    try {
        profileContexts(c.model, {.backend = GetParam()}, options);
        FAIL() << "a 3-slice file for a batch of 2 was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(Executors, ContextProfile, ::testing::ValuesIn(executors()), [](const auto& info) {
    std::string n = info.param;
    std::replace(n.begin(), n.end(), '-', '_');
    return n;
});

TEST(CoreMasks, MapToTheCpusThisProcessMayUse) {
    EXPECT_TRUE(cpusOfCoreMask(NpuCoreMask::Auto).empty());
    EXPECT_FALSE(cpusOfCoreMask(NpuCoreMask::All).empty());
    cpu_set_t saved;
    ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
    if (!CPU_ISSET(0, &saved)) GTEST_SKIP() << "CPU 0 is not ours to use";
    cpu_set_t only0;
    CPU_ZERO(&only0);
    CPU_SET(0, &only0);
    ASSERT_EQ(sched_setaffinity(0, sizeof only0, &only0), 0);
    EXPECT_EQ(cpusOfCoreMask(NpuCoreMask::Core0), std::vector<int>{0});
    EXPECT_EQ(cpusOfCoreMask(NpuCoreMask::All), std::vector<int>{0});
    try {
        cpusOfCoreMask(NpuCoreMask::Cores01);
        ADD_FAILURE() << "core mask 0_1 accepted with CPU 1 out of reach";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("CPU 1"), std::string::npos) << e.what();
    }
    sched_setaffinity(0, sizeof saved, &saved);
}

}  // namespace
