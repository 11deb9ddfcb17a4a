#pragma once
// Runs `npuwb-agent` on the board over an exec channel and reads its JSON lines (the agent protocol):
//   npuwb-agent version      -> {"agent":"npuwb-agent","version":..,"protocol":1,"arch":..}
//   npuwb-agent probe        -> one JSON object
//   npuwb-agent run -        (job JSON on stdin) -> {"event":"progress"|"telemetry",...} lines, then
//                               {"event":"report","report":{...}} or {"event":"error","kind":..,"message":..}
// The run is bounded by an idle timeout (the agent prints telemetry regularly): a killed agent or a dropped
// connection ends in a clear Error within that time, never a hang.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deploy/Deployer.h"
#include "npuwb/Report.h"

namespace npuwb::remote {

class SshSession;

inline constexpr int kAgentProtocol = 1;

struct AgentVersion {
    std::string version;
    int protocol = 0;
    std::string arch;
    nlohmann::json raw;
};

/// The job the agent runs (field names are the protocol's).
struct RemoteJob {
    std::string model;  // path on the board
    std::string backend = "auto";
    int runs = 10;
    int warmup = 2;
    int threads = 0;
    int seed = 1;
    std::map<std::string, std::vector<int64_t>> inputShapes;
    int telemetryIntervalMs = 250;
};
nlohmann::json toJson(const RemoteJob& job);

struct AgentEvents {
    std::function<void(const nlohmann::json&)> progress;   // {"event":"progress",...}
    std::function<void(const nlohmann::json&)> telemetry;  // {"event":"telemetry",...}
    std::function<void(int pid)> started;                   // the agent's process id on the board
};

class AgentClient {
public:
    AgentClient(SshSession& session, AgentInstall install);

    AgentVersion version();
    nlohmann::json probe();
    /// Runs the job; `timeoutSec` is the longest silence allowed from the agent (0: the session's I/O timeout).
    Report run(const RemoteJob& job, const AgentEvents& events = {}, int timeoutSec = 0);

    /// The shell command that starts the agent with `args` (each quoted), printing its pid first.
    std::string command(const std::vector<std::string>& args) const;

private:
    nlohmann::json runForOneObject(const std::vector<std::string>& args);
    SshSession& session_;
    AgentInstall install_;
};

}  // namespace npuwb::remote
