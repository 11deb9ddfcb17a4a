#pragma once
// The board agent's wire format, written and read by this one module on both ends: the desktop's agent client
// (remote/agent-client) writes jobs and reads events, `npuwb-agent` (app/agent, on the board) reads jobs and writes
// events. Qt-free, JSON (nlohmann), one JSON value per line. app/agent/README.md documents the protocol; bump
// kAgentProtocolVersion whenever a line's meaning changes.
//
//   npuwb-agent version  -> AgentVersion  {"agent":"npuwb-agent","version":"0.1.0","protocol":3,"arch":"aarch64"}
//   npuwb-agent run -    <- AgentJob      {"protocol":3,"model":PATH,"backend":"auto","threads":0,"runs":10,...}
//                           or, for a compiled model, {"protocol":3,"model":PATH,"runtime":"rknpu","modelRun":{...}}
//                           or, for a matmul sweep on the NPU, {"protocol":4,"runtime":"rknpu","matmul":{...}}
//                        -> AgentEvent lines: started, progress, telemetry, then report (matmulBench) or error
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "npuwb/Error.h"
#include "npuwb/MatmulBench.h"
#include "npuwb/Report.h"
#include "npuwb/RunOptions.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb {

/// 1: the first protocol. 2: jobs carry "protocol", "symbolicDimValue" and "layerTimes"; "seed" is an unsigned
/// 64-bit integer on both ends; the default backend is "auto". 3: jobs may name a whole-model "runtime" ("rknpu")
/// with its "modelRun" options instead of the ONNX run fields. 4: matmul jobs ("matmul", no model) answered by a
/// "matmulBench" event.
inline constexpr int kAgentProtocolVersion = 4;
inline constexpr const char* kAgentName = "npuwb-agent";

/// Where a model runs, as JSON fields {"backend", "threads"} (merged into the object they belong to).
nlohmann::json toJson(const ExecutorOptions& executor);
/// Reads the fields toJson writes; missing ones keep their defaults. Throws InvalidInput naming `source` and the
/// field for a wrong type or range.
ExecutorOptions executorOptionsFromJson(const nlohmann::json& j, const std::string& source);

/// RunOptions as JSON: the executor's fields plus "runs", "warmup", "seed", "inputShapes" {name: [dims]},
/// "symbolicDimValue", "layerTimes". RunOptions::inputs (tensors) have no JSON form: throws InvalidInput when set.
nlohmann::json toJson(const RunOptions& run);
RunOptions runOptionsFromJson(const nlohmann::json& j, const std::string& source);

/// ModelRunOptions as JSON: "runs", "warmup", "coreMask" (coreMaskName), "contextCoreMasks" [names], "contexts",
/// "batch", "inputFiles" {input: path on the board}, "seed", "perLayer". `library` has no JSON form: the board's
/// runtime plugin finds its vendor library itself (throws InvalidInput when set).
nlohmann::json toJson(const ModelRunOptions& run);
/// Missing fields keep their defaults; unknown fields, wrong types and ranges (runs >= 1, warmup >= 0, contexts
/// 0..3, batch >= 1, an unknown core mask) are refused with InvalidInput naming `source` and the field.
ModelRunOptions modelRunOptionsFromJson(const nlohmann::json& j, const std::string& source);

/// A matmul sweep on the board's NPU through the runtime plugin's matmul kernels (npuwb-cli matmul-bench --board).
struct AgentMatmulJob {
    std::string chip{};  // the chip profile the board is ("RK3588"): its native layouts and the estimate
    nlohmann::json chipProfile{};  // that profile's JSON (null: found by name on the board, which may have none)
    MatmulBenchOptions bench{};
};

/// What `npuwb-agent run` does: run the model file on the board the RunOptions' way (an ONNX model on the engine's
/// backends) or, when `runtime` names a whole-model runtime plugin, the ModelRunOptions' way; streaming telemetry.
struct AgentJob {
    std::string model{};  // path on the board
    RunOptions run{};
    /// Empty: an ONNX model run with `run`. Else the runtime plugin ("rknpu") that runs the compiled model file
    /// with `modelRun` (npuwb/ModelRuntimes.h); `run` is then unused and not sent.
    std::string runtime{};
    ModelRunOptions modelRun{};
    /// Set: a matmul sweep on `runtime`'s matmul kernels instead of a model (no `model`, no `modelRun`).
    std::optional<AgentMatmulJob> matmul{};
    int telemetryIntervalMs = 250;  // 0: no periodic samples (one at the start and one at the end still)
    /// Seconds the agent may spend on the job's local work before it stops with an error (0: no limit).
    int timeLimitSeconds = 0;
};
/// {"protocol": kAgentProtocolVersion, "model": ..., RunOptions fields..., "telemetryIntervalMs": ...}, or with a
/// runtime {"protocol", "model", "runtime": NAME, "modelRun": {...}, "telemetryIntervalMs", ...}, or a matmul job
/// {"protocol", "runtime": NAME, "matmul": {"chip", "chipProfile", sweep fields of matmulBenchOptionsJson}, ...}
nlohmann::json toJson(const AgentJob& job);
/// Only "model" is required (a matmul job: "matmul" with its "chip" instead); unknown fields, another protocol than
/// ours, wrong types and out-of-range values, and ONNX run fields in a runtime job (or "modelRun" without a runtime)
/// are refused with InvalidInput naming `source` and the field.
AgentJob agentJobFromJson(const nlohmann::json& j, const std::string& source);
/// Parses the JSON text first (InvalidInput naming `source` when it is not JSON).
AgentJob parseAgentJob(const std::string& text, const std::string& source);

/// The agent's answer to `version`; the client refuses an agent whose protocol differs from its own.
struct AgentVersion {
    std::string agent = kAgentName;
    std::string version{};
    int protocol = kAgentProtocolVersion;
    std::string arch{};
    friend bool operator==(const AgentVersion&, const AgentVersion&) = default;
};
nlohmann::json toJson(const AgentVersion& version);
AgentVersion agentVersionFromJson(const nlohmann::json& j, const std::string& source);

/// {"event":"started","pid":N}: printed by the shell that becomes the agent, so a cancel can kill exactly it.
struct AgentStarted {
    int pid = 0;
    friend bool operator==(const AgentStarted&, const AgentStarted&) = default;
};
/// {"event":"progress","phase":"load"|"warm-up"|"run","done":N,"total":N}
struct AgentProgress {
    std::string phase{};
    int done = 0;
    int total = 0;
    friend bool operator==(const AgentProgress&, const AgentProgress&) = default;
};
/// {"event":"telemetry",...}: one board sample; what the board does not have is null.
struct AgentTelemetry {
    double tMs = 0.0;                                // since the run started
    std::optional<std::vector<int>> npuLoad{};         // percent per NPU core
    std::vector<std::optional<int64_t>> cpuFreqKHz{};  // per online CPU
    std::optional<int64_t> npuFreqHz{};
    std::optional<int64_t> ddrFreqHz{};
    int64_t rssBytes = 0;  // the agent's resident set
    friend bool operator==(const AgentTelemetry&, const AgentTelemetry&) = default;
};
/// {"event":"report","report":{...}} in the report schema (resources/schema/report.schema.json).
struct AgentReport {
    Report report{};
};
/// {"event":"matmulBench","result":{...}}: the answer to a matmul job (matmulBenchJson, measuredOn the board).
struct AgentMatmulBench {
    MatmulBenchResult result{};
};
/// {"event":"error","kind":KIND,"message":...}: the last line of a failed command. KIND is an ErrorKind name
/// ("InvalidInput", "Unsupported", "Io", "Cancelled", "Internal") or "PermissionDenied".
struct AgentError {
    std::string kind{};
    std::string message{};
    friend bool operator==(const AgentError&, const AgentError&) = default;
};
using AgentEvent =
    std::variant<AgentStarted, AgentProgress, AgentTelemetry, AgentReport, AgentMatmulBench, AgentError>;

nlohmann::json toJson(const AgentEvent& event);
/// nullopt when `j` is no event of this protocol (not an object, no or an unknown "event"); throws InvalidInput
/// naming the event and field when a known event has a field of the wrong type.
std::optional<AgentEvent> agentEventFromJson(const nlohmann::json& j);

/// "InvalidInput" for ErrorKind::InvalidInput, ...; and back (unknown kinds, e.g. "PermissionDenied": Io).
std::string_view errorKindName(ErrorKind kind);
ErrorKind errorKindFromName(std::string_view name);

}  // namespace npuwb
