#include "BoardProfile.h"

#include <unistd.h>

#include <cstdio>

#include "agent-client/AgentClient.h"

namespace npuwb::cli {

Report profileOnBoard(const BoardProfileRequest& r, const BoardCliOptions& connection) {
    BoardConnection c = connectBoard(r.host, connection);
    const bool quiet = r.quiet || connection.quiet;
    remote::AgentInstall install = c.deployer->deployAgent(deployProgressPrinter("agent", quiet));
    remote::ModelDeploy model = c.deployer->deployModel(r.model, deployProgressPrinter("model", quiet));
    remote::RemoteJob job;
    job.model = model.remotePath;
    job.backend = r.backend;
    job.runs = r.runs;
    job.warmup = r.warmup;
    job.threads = r.threads;
    for (const auto& [name, dims] : r.inputShapes) job.inputShapes[name] = dims;
    remote::AgentEvents events;
    if (!quiet && isatty(STDERR_FILENO))
        events.progress = [](const nlohmann::json& j) {
            std::fprintf(stderr, "\r%s %d/%d   ", j.value("phase", "").c_str(), j.value("done", 0), j.value("total", 0));
            if (j.value("phase", "") == "run" && j.value("done", 0) == j.value("total", -1)) std::fprintf(stderr, "\n");
        };
    remote::AgentClient agent(*c.session, install);
    Report report = agent.run(job, events, connection.timeoutSec);
    report.model.path = r.model;
    report.environment.device = "board " + c.session->describe();
    return report;
}

}  // namespace npuwb::cli
