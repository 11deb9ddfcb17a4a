#include "npuwb/AgentProtocol.h"
#include "util/JsonText.h"

#include <algorithm>
#include <limits>

namespace npuwb {

using nlohmann::json;

namespace {

// Field readers: a missing field keeps the caller's value; a present one must have the right type and range, else
// InvalidInput names where it came from and the field.
[[noreturn]] void badField(const std::string& source, const std::string& field, const std::string& expected,
                           const json& got) {
    failInput(source + ": '" + field + "' must be " + expected + ", got " + got.dump());
}

int64_t readInteger(const json& j, const char* key, int64_t fallback, int64_t minimum, int64_t maximum,
                    const std::string& source) {
    if (!j.contains(key)) return fallback;
    const json& v = j.at(key);
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(maximum)) ||
        v.get<int64_t>() < minimum || v.get<int64_t>() > maximum)
        badField(source, key, "an integer from " + std::to_string(minimum) + " to " + std::to_string(maximum), v);
    return v.get<int64_t>();
}

int readInt(const json& j, const char* key, int fallback, int minimum, const std::string& source) {
    return static_cast<int>(readInteger(j, key, fallback, minimum, 1'000'000'000, source));
}

std::string readString(const json& j, const char* key, const std::string& fallback, const std::string& source) {
    if (!j.contains(key)) return fallback;
    if (!j.at(key).is_string()) badField(source, key, "a string", j.at(key));
    return j.at(key).get<std::string>();
}

bool readBool(const json& j, const char* key, bool fallback, const std::string& source) {
    if (!j.contains(key)) return fallback;
    if (!j.at(key).is_boolean()) badField(source, key, "true or false", j.at(key));
    return j.at(key).get<bool>();
}

template <class T>
std::optional<T> readOptional(const json& j, const char* key, const std::string& source) {
    if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
    const json& v = j.at(key);
    if constexpr (std::is_same_v<T, int64_t>) {
        if (!v.is_number_integer()) badField(source, key, "an integer or null", v);
    } else if (!v.is_number()) {
        badField(source, key, "a number or null", v);
    }
    return v.get<T>();
}

void requireObject(const json& j, const std::string& source) {
    if (!j.is_object()) failInput(source + " must be a JSON object, got " + j.dump());
}

void refuseUnknownFields(const json& j, const std::vector<std::string_view>& known, const std::string& source) {
    for (const auto& [key, value] : j.items())
        if (std::find(known.begin(), known.end(), key) == known.end())
            failInput(source + ": unknown field '" + key + "'");
}

const std::vector<std::string_view> kExecutorFields = {"backend", "threads"};
const std::vector<std::string_view> kRunFields = {"runs", "warmup", "seed", "inputShapes", "symbolicDimValue",
                                                  "layerTimes"};
const std::vector<std::string_view> kModelRunFields = {"runs",       "warmup", "coreMask", "contextCoreMasks",
                                                       "contexts",   "batch",  "inputFiles", "seed",
                                                       "perLayer"};

NpuCoreMask readCoreMask(const json& v, const std::string& source, const std::string& field) {
    NpuCoreMask mask = NpuCoreMask::Auto;
    if (!v.is_string() || !parseCoreMask(v.get<std::string>(), mask))
        badField(source, field, "a core mask (auto, 0, 1, 2, 0_1, 0_1_2, all)", v);
    return mask;
}

// Events are read leniently about fields they do not know (a newer agent may add some), strictly about types.
const std::string kEventSource = "agent event";

template <class... F>
struct Overloaded : F... {
    using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;  // clang 14 (the fuzz preset) deduces no aggregate's arguments without it

}  // namespace

json toJson(const ExecutorOptions& executor) {
    return {{"backend", executor.backend}, {"threads", executor.threads}};
}

ExecutorOptions executorOptionsFromJson(const json& j, const std::string& source) {
    requireObject(j, source);
    ExecutorOptions e;
    e.backend = readString(j, "backend", e.backend, source);
    if (e.backend.empty()) badField(source, "backend", "a backend name", j.at("backend"));
    e.threads = static_cast<int>(readInteger(j, "threads", e.threads, 0, 1024, source));
    return e;
}

json toJson(const RunOptions& run) {
    if (!run.inputs.empty())
        failInput("input tensors ('" + run.inputs.begin()->first + "') have no JSON form: give input shapes and a "
                  "seed instead");
    json j = toJson(run.executor);
    j["runs"] = run.runs;
    j["warmup"] = run.warmup;
    j["seed"] = run.seed;
    j["inputShapes"] = json::object();
    for (const auto& [name, dims] : run.inputShapes) j["inputShapes"][name] = dims;
    j["symbolicDimValue"] = run.symbolicDimValue;
    j["layerTimes"] = run.layerTimes;
    return j;
}

RunOptions runOptionsFromJson(const json& j, const std::string& source) {
    RunOptions r;
    r.executor = executorOptionsFromJson(j, source);
    r.runs = readInt(j, "runs", r.runs, 1, source);
    r.warmup = readInt(j, "warmup", r.warmup, 0, source);
    if (j.contains("seed")) {
        const json& seed = j.at("seed");
        if (!seed.is_number_unsigned()) badField(source, "seed", "an integer from 0 to 2^64-1", seed);
        r.seed = seed.get<uint64_t>();
    }
    if (j.contains("inputShapes")) {
        const json& shapes = j.at("inputShapes");
        if (!shapes.is_object()) badField(source, "inputShapes", "an object {input: [dims]}", shapes);
        for (const auto& [name, dims] : shapes.items()) {
            Shape shape;
            bool ok = dims.is_array();
            for (const auto& d : ok ? dims : json::array()) {
                ok = ok && d.is_number_integer() && d.get<int64_t>() >= 0;
                if (ok) shape.push_back(d.get<int64_t>());
            }
            if (!ok) badField(source, "inputShapes['" + name + "']", "a list of non-negative integers", dims);
            r.inputShapes[name] = shape;
        }
    }
    r.symbolicDimValue = readInteger(j, "symbolicDimValue", r.symbolicDimValue, 1, 1'000'000'000, source);
    r.layerTimes = readBool(j, "layerTimes", r.layerTimes, source);
    return r;
}

json toJson(const ModelRunOptions& run) {
    if (!run.library.empty())
        failInput("the runtime library ('" + run.library + "') is the board's to find: it has no JSON form");
    json masks = json::array();
    for (NpuCoreMask m : run.contextCoreMasks) masks.push_back(coreMaskName(m));
    json files = json::object();
    for (const auto& [name, path] : run.inputFiles) files[name] = path;
    return {{"runs", run.runs},
            {"warmup", run.warmup},
            {"coreMask", coreMaskName(run.coreMask)},
            {"contextCoreMasks", masks},
            {"contexts", run.contexts},
            {"batch", run.batch},
            {"inputFiles", files},
            {"seed", run.randomSeed},
            {"perLayer", run.perLayer}};
}

ModelRunOptions modelRunOptionsFromJson(const json& j, const std::string& source) {
    requireObject(j, source);
    refuseUnknownFields(j, kModelRunFields, source);
    ModelRunOptions r;
    r.runs = readInt(j, "runs", r.runs, 1, source);
    r.warmup = readInt(j, "warmup", r.warmup, 0, source);
    if (j.contains("coreMask")) r.coreMask = readCoreMask(j.at("coreMask"), source, "coreMask");
    if (j.contains("contextCoreMasks")) {
        const json& masks = j.at("contextCoreMasks");
        if (!masks.is_array()) badField(source, "contextCoreMasks", "a list of core masks", masks);
        for (size_t i = 0; i < masks.size(); ++i)
            r.contextCoreMasks.push_back(
                readCoreMask(masks[i], source, "contextCoreMasks[" + std::to_string(i) + "]"));
    }
    r.contexts = static_cast<int>(readInteger(j, "contexts", r.contexts, 0, 64, source));
    r.batch = static_cast<int>(readInteger(j, "batch", r.batch, 1, 1 << 20, source));
    if (j.contains("inputFiles")) {
        const json& files = j.at("inputFiles");
        if (!files.is_object()) badField(source, "inputFiles", "an object {input: file}", files);
        for (const auto& [name, path] : files.items()) {
            if (!path.is_string() || path.get<std::string>().empty())
                badField(source, "inputFiles['" + name + "']", "a file path", path);
            r.inputFiles[name] = path.get<std::string>();
        }
    }
    if (j.contains("seed")) {
        const json& seed = j.at("seed");
        if (!seed.is_number_unsigned()) badField(source, "seed", "an integer from 0 to 2^64-1", seed);
        r.randomSeed = seed.get<uint64_t>();
    }
    r.perLayer = readBool(j, "perLayer", r.perLayer, source);
    return r;
}

json toJson(const AgentJob& job) {
    json j = job.runtime.empty() ? toJson(job.run) : json{{"runtime", job.runtime}, {"modelRun", toJson(job.modelRun)}};
    if (job.matmul) {
        j = {{"runtime", job.runtime}, {"matmul", matmulBenchOptionsJson(job.matmul->bench)}};
        j["matmul"]["chip"] = job.matmul->chip;
        if (!job.matmul->chipProfile.is_null()) j["matmul"]["chipProfile"] = job.matmul->chipProfile;
    }
    j["protocol"] = kAgentProtocolVersion;
    if (!job.matmul) j["model"] = job.model;
    j["telemetryIntervalMs"] = job.telemetryIntervalMs;
    if (job.timeLimitSeconds > 0) j["timeLimitSeconds"] = job.timeLimitSeconds;
    return j;
}

AgentJob agentJobFromJson(const json& j, const std::string& source) {
    const std::string where = "job " + source;
    requireObject(j, where);
    const std::string runtime = readString(j, "runtime", "", where);
    // A runtime job carries its options in "modelRun"; an ONNX job's run fields sit at the top level.
    std::vector<std::string_view> known = {"protocol", "model", "telemetryIntervalMs", "timeLimitSeconds"};
    if (runtime.empty()) {
        known.insert(known.end(), kExecutorFields.begin(), kExecutorFields.end());
        known.insert(known.end(), kRunFields.begin(), kRunFields.end());
    } else {
        known.insert(known.end(), {"runtime", j.contains("matmul") ? "matmul" : "modelRun"});
    }
    for (const auto& [key, value] : j.items())
        if (std::find(known.begin(), known.end(), key) == known.end())
            failInput(where + ": " +
                      (key == "runtime" ? std::string("'runtime' must name a runtime plugin, got \"\"")
                       : key == "modelRun" && j.contains("matmul") ? std::string("a matmul job has no 'modelRun'")
                       : key == "modelRun" || key == "matmul" ? "'" + key + "' needs a 'runtime'"
                       : !runtime.empty() && (std::find(kRunFields.begin(), kRunFields.end(), key) != kRunFields.end() ||
                                              std::find(kExecutorFields.begin(), kExecutorFields.end(), key) !=
                                                  kExecutorFields.end())
                           ? "'" + key + "' is an ONNX run field; a job for runtime '" + runtime +
                                 "' takes its options in 'modelRun'"
                           : "unknown field '" + key + "'"));
    const int protocol = readInt(j, "protocol", kAgentProtocolVersion, 1, where);
    if (protocol != kAgentProtocolVersion)
        failInput(where + " is written in agent protocol " + std::to_string(protocol) + ", this agent speaks " +
                  std::to_string(kAgentProtocolVersion) + "; deploy the agent again");
    AgentJob job;
    job.runtime = runtime;
    if (!runtime.empty() && j.contains("matmul")) {  // a matmul sweep: no model
        const json& matmul = j.at("matmul");
        json sweep = matmul.is_object() ? matmul : json();
        if (sweep.is_object()) sweep.erase("chip"), sweep.erase("chipProfile");
        job.matmul = AgentMatmulJob{.chip = matmul.is_object() ? readString(matmul, "chip", "", where + " matmul") : "",
                                    .chipProfile = sweep.is_object() ? matmul.value("chipProfile", json()) : json(),
                                    .bench = matmulBenchOptionsFromJson(sweep, where + " matmul")};
        if (!job.matmul->chipProfile.is_null() && !job.matmul->chipProfile.is_object())
            failInput(where + " matmul: 'chipProfile' must be a chip profile object");
        if (job.matmul->chip.empty()) failInput(where + " matmul: 'chip' (the board's chip profile) is missing");
        if (j.contains("model")) failInput(where + ": a matmul job has no 'model'");
        job.telemetryIntervalMs = readInt(j, "telemetryIntervalMs", job.telemetryIntervalMs, 0, where);
        job.timeLimitSeconds = readInt(j, "timeLimitSeconds", job.timeLimitSeconds, 0, where);
        return job;
    }
    job.model = readString(j, "model", "", where);
    if (job.model.empty()) failInput(where + ": 'model' (the model file path) is missing or empty");
    if (runtime.empty()) job.run = runOptionsFromJson(j, where);
    else if (j.contains("modelRun")) job.modelRun = modelRunOptionsFromJson(j.at("modelRun"), where + " modelRun");
    job.telemetryIntervalMs = readInt(j, "telemetryIntervalMs", job.telemetryIntervalMs, 0, where);
    job.timeLimitSeconds = readInt(j, "timeLimitSeconds", job.timeLimitSeconds, 0, where);
    return job;
}

AgentJob parseAgentJob(const std::string& text, const std::string& source) {
    json j;
    try {
        j = parseJsonText(text);
    } catch (const json::exception& e) {  // parse_error, and out_of_range for numbers too large
        failInput("job " + source + " is not valid JSON: " + e.what());
    }
    return agentJobFromJson(j, source);
}

json toJson(const AgentVersion& v) {
    return {{"agent", v.agent}, {"version", v.version}, {"protocol", v.protocol}, {"arch", v.arch}};
}

AgentVersion agentVersionFromJson(const json& j, const std::string& source) {
    requireObject(j, source);
    AgentVersion v;
    v.agent = readString(j, "agent", "", source);
    v.version = readString(j, "version", "", source);
    v.protocol = readInt(j, "protocol", 0, 0, source);
    v.arch = readString(j, "arch", "", source);
    return v;
}

json toJson(const AgentEvent& event) {
    return std::visit(
        Overloaded{
            [](const AgentStarted& e) -> json { return {{"event", "started"}, {"pid", e.pid}}; },
            [](const AgentProgress& e) -> json {
                return {{"event", "progress"}, {"phase", e.phase}, {"done", e.done}, {"total", e.total}};
            },
            [](const AgentTelemetry& e) -> json {
                json cpu = json::array();
                for (const auto& khz : e.cpuFreqKHz) cpu.push_back(khz ? json(*khz) : json(nullptr));
                return {{"event", "telemetry"},
                        {"tMs", e.tMs},
                        {"npuLoad", e.npuLoad ? json(*e.npuLoad) : json(nullptr)},
                        {"cpuFreqKHz", cpu},
                        {"npuFreqHz", e.npuFreqHz ? json(*e.npuFreqHz) : json(nullptr)},
                        {"ddrFreqHz", e.ddrFreqHz ? json(*e.ddrFreqHz) : json(nullptr)},
                        {"rssBytes", e.rssBytes}};
            },
            [](const AgentReport& e) -> json { return {{"event", "report"}, {"report", toJson(e.report)}}; },
            [](const AgentMatmulBench& e) -> json {
                return {{"event", "matmulBench"}, {"result", matmulBenchJson(e.result)}};
            },
            [](const AgentError& e) -> json { return {{"event", "error"}, {"kind", e.kind}, {"message", e.message}}; },
        },
        event);
}

std::optional<AgentEvent> agentEventFromJson(const json& j) {
    if (!j.is_object() || !j.contains("event") || !j.at("event").is_string()) return std::nullopt;
    const std::string name = j.at("event").get<std::string>();
    const std::string source = kEventSource + " '" + name + "'";
    const int64_t big = std::numeric_limits<int64_t>::max();
    if (name == "started") return AgentStarted{.pid = readInt(j, "pid", 0, 0, source)};
    if (name == "progress")
        return AgentProgress{.phase = readString(j, "phase", "", source),
                             .done = readInt(j, "done", 0, 0, source),
                             .total = readInt(j, "total", 0, 0, source)};
    if (name == "telemetry") {
        AgentTelemetry t;
        t.tMs = readOptional<double>(j, "tMs", source).value_or(0.0);
        if (j.contains("npuLoad") && !j.at("npuLoad").is_null()) {
            const json& load = j.at("npuLoad");
            const auto isInteger = [](const json& core) { return core.is_number_integer(); };
            if (!load.is_array() || !std::all_of(load.begin(), load.end(), isInteger))
                badField(source, "npuLoad", "a list of integers or null", load);
            t.npuLoad = load.get<std::vector<int>>();
        }
        if (j.contains("cpuFreqKHz")) {
            const json& cpus = j.at("cpuFreqKHz");
            if (!cpus.is_array()) badField(source, "cpuFreqKHz", "a list", cpus);
            for (const json& khz : cpus) {
                if (!khz.is_null() && !khz.is_number_integer())
                    badField(source, "cpuFreqKHz", "integers or nulls", cpus);
                t.cpuFreqKHz.push_back(khz.is_null() ? std::nullopt : std::optional<int64_t>(khz.get<int64_t>()));
            }
        }
        t.npuFreqHz = readOptional<int64_t>(j, "npuFreqHz", source);
        t.ddrFreqHz = readOptional<int64_t>(j, "ddrFreqHz", source);
        t.rssBytes = readInteger(j, "rssBytes", 0, 0, big, source);
        return t;
    }
    if (name == "report") {
        if (!j.contains("report") || !j.at("report").is_object()) failInput(source + ": 'report' is missing");
        return AgentReport{.report = reportFromJson(j.at("report"))};
    }
    if (name == "matmulBench") {
        if (!j.contains("result") || !j.at("result").is_object()) failInput(source + ": 'result' is missing");
        return AgentMatmulBench{.result = matmulBenchResultFromJson(j.at("result"), source + " result")};
    }
    if (name == "error")
        return AgentError{.kind = readString(j, "kind", "", source), .message = readString(j, "message", "", source)};
    return std::nullopt;
}

std::string_view errorKindName(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::InvalidInput: return "InvalidInput";
        case ErrorKind::Unsupported: return "Unsupported";
        case ErrorKind::Io: return "Io";
        case ErrorKind::Cancelled: return "Cancelled";
        case ErrorKind::Internal: return "Internal";
    }
    return "Internal";
}

ErrorKind errorKindFromName(std::string_view name) {
    for (ErrorKind kind : {ErrorKind::InvalidInput, ErrorKind::Unsupported, ErrorKind::Io, ErrorKind::Cancelled,
                           ErrorKind::Internal})
        if (errorKindName(kind) == name) return kind;
    return ErrorKind::Io;
}

}  // namespace npuwb
