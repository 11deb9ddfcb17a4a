#pragma once
// Runs `npuwb-agent` on the board over an exec channel and reads its JSON lines. Jobs, events and the version line
// are the wire format of npuwb/AgentProtocol.h (the agent reads and writes them with the same module):
//   npuwb-agent version      -> AgentVersion
//   npuwb-agent probe        -> one JSON object (app/agent/README.md)
//   npuwb-agent run -        (AgentJob on stdin) -> started, progress and telemetry events, then report (a matmul
//                            job: matmulBench) or error
// The run is bounded by an idle timeout (the agent prints telemetry regularly): a killed agent or a dropped
// connection ends in a clear Error within that time, never a hang.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "deploy/Deployer.h"
#include "npuwb/AgentProtocol.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/Report.h"

namespace npuwb::remote {

class SshSession;

/// Called on the thread that runs AgentClient::run, as the lines arrive.
struct AgentEvents {
    std::function<void(const AgentProgress&)> progress;
    std::function<void(const AgentTelemetry&)> telemetry;
    std::function<void(int pid)> started;  // the agent's process id on the board
};

/// What run() sends on the agent's stdin: the job as one JSON line.
std::string agentJobLine(const AgentJob& job);

/// The matmul job of `bench` on `chip` for the board's `runtime` plugin. A chip read from a profile file takes that
/// file's JSON along (boards carry no chip profiles); throws InvalidInput naming the file when it is not JSON.
AgentJob agentMatmulJob(const ChipProfile& chip, const MatmulBenchOptions& bench, const std::string& runtime);

class AgentClient {
public:
    AgentClient(SshSession& session, AgentInstall install);

    /// Throws Error(Unsupported) when the agent speaks another protocol than kAgentProtocolVersion.
    AgentVersion version();
    nlohmann::json probe();
    /// Runs the job; `timeoutSec` is the longest silence allowed from the agent (0: the session's I/O timeout).
    Report run(const AgentJob& job, const AgentEvents& events = {}, int timeoutSec = 0);
    /// Runs a matmul job (job.matmul set): the board's sweep, measured on its NPU.
    MatmulBenchResult runMatmul(const AgentJob& job, const AgentEvents& events = {}, int timeoutSec = 0);

    /// The shell command that starts the agent with `args` (each quoted), printing its pid first.
    std::string command(const std::vector<std::string>& args) const;

private:
    /// Sends the job and reads events until the agent ends; `takeResult` keeps the answer it recognises (true).
    void runJob(const AgentJob& job, const AgentEvents& events, int timeoutSec,
                const std::function<bool(AgentEvent&)>& takeResult);
    nlohmann::json runForOneObject(const std::vector<std::string>& args);
    SshSession& session_;
    AgentInstall install_;
};

}  // namespace npuwb::remote
