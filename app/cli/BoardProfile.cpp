#include "BoardProfile.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "agent-client/AgentClient.h"
#include "npuwb/Limits.h"

namespace npuwb::cli {

Report profileOnBoard(const std::string& modelPath, const RunOptions& run, const BoardCliOptions& board) {
    BoardConnection c = connectBoard(board);
    remote::AgentInstall install = c.deployer->deployAgent(deployProgressPrinter("agent", board.quiet));
    remote::ModelDeploy model = c.deployer->deployModel(modelPath, deployProgressPrinter("model", board.quiet));
    // The job inherits --time-limit: the board's local work stops like a local run would.
    const AgentJob job{.model = model.remotePath,
                       .run = run,
                       .timeLimitSeconds = static_cast<int>(std::ceil(processTimeLimitSeconds()))};
    remote::AgentEvents events;
    if (!board.quiet && isatty(STDERR_FILENO))
        events.progress = [](const AgentProgress& p) {
            std::fprintf(stderr, "\r%s %d/%d   ", p.phase.c_str(), p.done, p.total);
            if (p.phase == "run" && p.done == p.total) std::fprintf(stderr, "\n");
        };
    remote::AgentClient agent(*c.session, install);
    Report report = agent.run(job, events);
    report.model.path = modelPath;
    report.environment.device = "board " + c.session->describe();
    return report;
}

}  // namespace npuwb::cli
