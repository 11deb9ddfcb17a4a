#pragma once
// `npuwb-agent run JOB.json`: a job (npuwb/AgentProtocol.h: AgentJob) names a model and how to run it; the agent
// streams progress, telemetry and the final report as JSON lines (app/agent/README.md).
#include <string>

#include "BoardFiles.h"
#include "npuwb/AgentProtocol.h"

namespace npuwb::agent {

/// Reads a job from a file, or from stdin when `path` is "-". Errors (InvalidInput) name the file and the field.
AgentJob loadJob(const std::string& path);
/// Runs the job and streams its events. Throws npuwb::Error (Cancelled when a stop signal arrived).
void runJob(const AgentJob& job, const BoardFiles& files);

}  // namespace npuwb::agent
