// The agent's wire format (npuwb/AgentProtocol.h): every type survives JSON and back, through text as it crosses
// the SSH channel; bad jobs are refused naming the field; the defaults are the options' own.
#include <gtest/gtest.h>

#include <limits>

#include "npuwb/AgentProtocol.h"

namespace npuwb {
namespace {

/// Through text, as a line crosses the channel.
nlohmann::json overTheWire(const nlohmann::json& j) { return nlohmann::json::parse(j.dump()); }

void expectSameRun(const RunOptions& a, const RunOptions& b) {
    EXPECT_EQ(a.executor, b.executor);
    EXPECT_EQ(a.runs, b.runs);
    EXPECT_EQ(a.warmup, b.warmup);
    EXPECT_EQ(a.seed, b.seed);
    EXPECT_EQ(a.inputShapes, b.inputShapes);
    EXPECT_EQ(a.symbolicDimValue, b.symbolicDimValue);
    EXPECT_EQ(a.layerTimes, b.layerTimes);
    EXPECT_TRUE(b.inputs.empty());
}

RunOptions unusualRun() {
    RunOptions r;
    r.executor = {.backend = "cpu-xnnpack", .threads = 3};
    r.runs = 7;
    r.warmup = 0;
    r.seed = std::numeric_limits<uint64_t>::max() - 4;  // above int64: the seed drift of protocol 1
    r.inputShapes = {{"image", {1, 3, 480, 640}}, {"scale", {}}, {"empty", {0, 4}}};
    r.symbolicDimValue = 5;
    r.layerTimes = false;
    return r;
}

/// Each job text is refused as invalid input, the message naming the source and the field.
template <size_t N>
void expectRefusedNamingSourceAndField(const std::pair<const char*, const char*> (&bad)[N]) {
    for (const auto& [text, field] : bad) {
        try {
            parseAgentJob(text, "'job.json'");
            ADD_FAILURE() << "accepted " << text;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::InvalidInput) << text;
            const std::string message = e.what();
            EXPECT_NE(message.find("'job.json'"), std::string::npos) << message;
            EXPECT_NE(message.find(field), std::string::npos) << message;
        }
    }
}

TEST(AgentProtocol, ExecutorOptionsRoundTrip) {
    for (const ExecutorOptions& e : {ExecutorOptions{}, ExecutorOptions{.backend = kReferenceBackend, .threads = 1},
                                     ExecutorOptions{.backend = "cpu-onednn", .threads = 1024}})
        EXPECT_EQ(executorOptionsFromJson(overTheWire(toJson(e)), "t"), e);
    const ExecutorOptions defaults = executorOptionsFromJson(nlohmann::json::object(), "t");
    EXPECT_EQ(defaults, ExecutorOptions{});
    EXPECT_EQ(defaults.backend, kAutoBackend);  // the fastest backend unless asked otherwise
}

TEST(AgentProtocol, RunOptionsRoundTrip) {
    expectSameRun(unusualRun(), runOptionsFromJson(overTheWire(toJson(unusualRun())), "t"));
    expectSameRun(RunOptions{}, runOptionsFromJson(overTheWire(toJson(RunOptions{})), "t"));
    expectSameRun(RunOptions{}, runOptionsFromJson(nlohmann::json::object(), "t"));
}

TEST(AgentProtocol, RunOptionsWithTensorsHaveNoJsonForm) {
    RunOptions r;
    r.inputs["x"] = Tensor(DType::F32, {1, 2});
    try {
        toJson(r);
        FAIL() << "input tensors were written";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
        EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
    }
}

TEST(AgentProtocol, AgentJobRoundTrip) {
    const AgentJob job{.model = "/home/u/.cache/npuwb/models/ab cd.onnx",
                       .run = unusualRun(),
                       .telemetryIntervalMs = 0,
                       .timeLimitSeconds = 30};
    const nlohmann::json j = toJson(job);
    EXPECT_EQ(j.at("protocol"), kAgentProtocolVersion);
    EXPECT_TRUE(j.at("seed").is_number_unsigned());
    const AgentJob back = parseAgentJob(j.dump(), "'job.json'");
    EXPECT_EQ(back.model, job.model);
    EXPECT_EQ(back.telemetryIntervalMs, 0);
    EXPECT_EQ(back.timeLimitSeconds, 30);
    expectSameRun(job.run, back.run);
}

TEST(AgentProtocol, AgentJobDefaultsAreTheOptionsDefaults) {
    const AgentJob job = parseAgentJob(R"({"model":"m.onnx"})", "t");
    EXPECT_EQ(job.telemetryIntervalMs, AgentJob{}.telemetryIntervalMs);
    EXPECT_EQ(job.timeLimitSeconds, 0);
    expectSameRun(RunOptions{}, job.run);
}

TEST(AgentProtocol, ProtocolOneJobsStillParse) {
    // What a protocol 1 client wrote: no "protocol", the seed as a plain integer.
    const AgentJob job = parseAgentJob(R"({"model":"m.onnx","backend":"auto","runs":3,"warmup":0,"threads":0,
        "seed":1,"inputShapes":{"x":[1,3,8,8]},"telemetryIntervalMs":250})", "t");
    EXPECT_EQ(job.run.runs, 3);
    EXPECT_EQ(job.run.inputShapes.at("x"), (Shape{1, 3, 8, 8}));
}

TEST(AgentProtocol, BadJobsAreRefusedNamingSourceAndField) {
    const std::pair<const char*, const char*> bad[] = {
        {R"({"runs":3})", "model"},
        {R"({"model":""})", "model"},
        {R"({"model":"m","runs":0})", "runs"},
        {R"({"model":"m","runs":"3"})", "runs"},
        {R"({"model":"m","warmup":-1})", "warmup"},
        {R"({"model":"m","threads":-2})", "threads"},
        {R"({"model":"m","threads":5000})", "threads"},
        {R"({"model":"m","backend":7})", "backend"},
        {R"({"model":"m","backend":""})", "backend"},
        {R"({"model":"m","seed":-1})", "seed"},
        {R"({"model":"m","seed":1.5})", "seed"},
        {R"({"model":"m","inputShapes":{"x":[1,-3]}})", "inputShapes['x']"},
        {R"({"model":"m","inputShapes":[1]})", "inputShapes"},
        {R"({"model":"m","symbolicDimValue":0})", "symbolicDimValue"},
        {R"({"model":"m","layerTimes":1})", "layerTimes"},
        {R"({"model":"m","telemetryIntervalMs":-5})", "telemetryIntervalMs"},
        {R"({"model":"m","timeLimitSeconds":-1})", "timeLimitSeconds"},
        {R"({"model":"m","extra":1})", "extra"},
        {R"({"model":"m","protocol":1})", "protocol 1"},
        {"[1]", "JSON object"},
        {"{", "not valid JSON"},
        // fuzz_agent_job's finding: a number too large for a double escaped as out_of_range
        {R"({"model":"o","runs":7777777777777777E7777777777777777777777777777772})", "not valid JSON"},
    };
    expectRefusedNamingSourceAndField(bad);
}

TEST(AgentProtocol, VersionRoundTrip) {
    const AgentVersion v{.version = "0.1.0", .arch = "aarch64"};
    EXPECT_EQ(agentVersionFromJson(overTheWire(toJson(v)), "t"), v);
    EXPECT_EQ(v.agent, kAgentName);
    EXPECT_EQ(v.protocol, kAgentProtocolVersion);
    EXPECT_THROW(agentVersionFromJson(nlohmann::json{{"protocol", "2"}}, "t"), Error);
}

template <class E>
E roundTrip(const E& event) {
    const std::optional<AgentEvent> back = agentEventFromJson(overTheWire(toJson(AgentEvent{event})));
    EXPECT_TRUE(back && std::holds_alternative<E>(*back));
    return back && std::holds_alternative<E>(*back) ? std::get<E>(*back) : E{};
}

TEST(AgentProtocol, EventsRoundTrip) {
    EXPECT_EQ(roundTrip(AgentStarted{.pid = 4242}), AgentStarted{.pid = 4242});
    const AgentProgress progress{.phase = "warm-up", .done = 1, .total = 2};
    EXPECT_EQ(roundTrip(progress), progress);
    const AgentTelemetry full{.tMs = 250.5,
                              .npuLoad = std::vector<int>{37, 0, 5},
                              .cpuFreqKHz = {1800000, std::nullopt, 2400000},
                              .npuFreqHz = 1000000000,
                              .ddrFreqHz = 2112000000,
                              .rssBytes = 123456789};
    EXPECT_EQ(roundTrip(full), full);
    const AgentTelemetry bare{.tMs = 0.0, .rssBytes = 1};  // a board without NPU load, clocks or cpufreq
    EXPECT_EQ(roundTrip(bare), bare);
    const AgentError error{.kind = "PermissionDenied", .message = "cannot write /sys/…/governor"};
    EXPECT_EQ(roundTrip(error), error);

    AgentReport report;
    report.report.kind = "profile";
    report.report.model.path = "m.onnx";
    report.report.model.name = "m";
    report.report.run.runs = 3;
    report.report.run.medianUs = report.report.run.minUs = 12.5;
    report.report.environment.backend = "cpu-xnnpack";
    report.report.environment.threads = 4;
    const Report back = roundTrip(report).report;
    EXPECT_EQ(back.model.path, "m.onnx");
    EXPECT_EQ(back.run.runs, 3);
    EXPECT_DOUBLE_EQ(back.run.medianUs, 12.5);
    EXPECT_EQ(back.environment.backend, "cpu-xnnpack");
    EXPECT_EQ(back.environment.threads, 4);
}

TEST(AgentProtocol, NonEventLinesAndMalformedEvents) {
    EXPECT_FALSE(agentEventFromJson(toJson(AgentVersion{})));  // the version line is no event
    EXPECT_FALSE(agentEventFromJson(nlohmann::json{{"event", "from-the-future"}}));
    EXPECT_FALSE(agentEventFromJson(nlohmann::json::array()));
    EXPECT_THROW(agentEventFromJson(nlohmann::json{{"event", "progress"}, {"done", "1"}}), Error);
    EXPECT_THROW(agentEventFromJson(nlohmann::json{{"event", "telemetry"}, {"npuLoad", {"x"}}}), Error);
    EXPECT_THROW(agentEventFromJson(nlohmann::json{{"event", "report"}}), Error);
    // Fields an event does not know are left alone (a newer agent may add some).
    const auto progress = agentEventFromJson(nlohmann::json{{"event", "progress"}, {"phase", "run"}, {"eta", 3}});
    ASSERT_TRUE(progress);
    EXPECT_EQ(std::get<AgentProgress>(*progress).phase, "run");
}

TEST(AgentProtocol, ErrorKindNamesRoundTrip) {
    for (ErrorKind kind : {ErrorKind::InvalidInput, ErrorKind::Unsupported, ErrorKind::Io, ErrorKind::Cancelled,
                           ErrorKind::Internal})
        EXPECT_EQ(errorKindFromName(errorKindName(kind)), kind);
    EXPECT_EQ(errorKindFromName("PermissionDenied"), ErrorKind::Io);
}


TEST(AgentProtocol, RuntimeJobRoundTrip) {
    AgentJob job;
    job.model = "/home/u/.cache/npuwb/models/ab.rknn";
    job.runtime = "rknpu";
    job.modelRun.runs = 7;
    job.modelRun.warmup = 0;
    job.modelRun.coreMask = NpuCoreMask::Cores01;
    job.modelRun.contextCoreMasks = {NpuCoreMask::Core0, NpuCoreMask::Core2};
    job.modelRun.contexts = 2;
    job.modelRun.batch = 4;
    job.modelRun.inputFiles = {{"images", "/c/models/x y.npy"}};
    job.modelRun.randomSeed = 18446744073709551615ull;
    job.modelRun.perLayer = false;
    const nlohmann::json j = toJson(job);
    EXPECT_FALSE(j.contains("backend")) << j.dump();  // ONNX run fields are not sent with a runtime job
    EXPECT_EQ(j.at("modelRun").at("coreMask"), "0_1");
    const AgentJob back = parseAgentJob(j.dump(), "'job.json'");
    EXPECT_EQ(back.runtime, "rknpu");
    EXPECT_EQ(back.modelRun.runs, 7);
    EXPECT_EQ(back.modelRun.warmup, 0);
    EXPECT_EQ(back.modelRun.coreMask, NpuCoreMask::Cores01);
    EXPECT_EQ(back.modelRun.contextCoreMasks, job.modelRun.contextCoreMasks);
    EXPECT_EQ(back.modelRun.contexts, 2);
    EXPECT_EQ(back.modelRun.batch, 4);
    EXPECT_EQ(back.modelRun.inputFiles, job.modelRun.inputFiles);
    EXPECT_EQ(back.modelRun.randomSeed, job.modelRun.randomSeed);
    EXPECT_FALSE(back.modelRun.perLayer);
    // A runtime job without modelRun takes ModelRunOptions' defaults.
    const AgentJob plain = parseAgentJob(R"({"model":"m.rknn","runtime":"rknpu"})", "t");
    EXPECT_EQ(plain.modelRun.runs, ModelRunOptions{}.runs);
    EXPECT_EQ(plain.modelRun.coreMask, NpuCoreMask::Auto);
    EXPECT_TRUE(plain.modelRun.perLayer);
}

TEST(AgentProtocol, BadRuntimeJobsAreRefusedNamingTheField) {
    const std::pair<const char*, const char*> bad[] = {
        {R"({"model":"m","runtime":""})", "'runtime'"},
        {R"({"model":"m","modelRun":{}})", "needs a 'runtime'"},
        {R"({"model":"m","runtime":"rknpu","backend":"auto"})", "'backend' is an ONNX run field"},
        {R"({"model":"m","runtime":"rknpu","modelRun":{"coreMask":"3"}})", "coreMask"},
        {R"({"model":"m","runtime":"rknpu","modelRun":{"contextCoreMasks":["0","x"]}})", "contextCoreMasks[1]"},
        {R"({"model":"m","runtime":"rknpu","modelRun":{"batch":0}})", "batch"},
        {R"({"model":"m","runtime":"rknpu","modelRun":{"contexts":-1}})", "contexts"},
        {R"({"model":"m","runtime":"rknpu","modelRun":{"runs":0}})", "runs"},
        {R"({"model":"m","runtime":"rknpu","modelRun":{"inputFiles":{"x":""}}})", "inputFiles['x']"},
        {R"({"model":"m","runtime":"rknpu","modelRun":{"library":"/x.so"}})", "library"},
        {R"({"model":"m","runtime":"rknpu","modelRun":[]})", "modelRun"},
    };
    expectRefusedNamingSourceAndField(bad);
    ModelRunOptions withLibrary;
    withLibrary.library = "/opt/librknnrt.so";
    EXPECT_THROW(toJson(withLibrary), Error);
}

}  // namespace
}  // namespace npuwb
