#include "BoardProfile.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include "agent-client/AgentClient.h"
#include "npuwb/Limits.h"

namespace npuwb::cli {

namespace {
remote::AgentEvents progressPrinter(const BoardCliOptions& board) {
    remote::AgentEvents events;
    if (!board.quiet && isatty(STDERR_FILENO))
        events.progress = [](const AgentProgress& p) {
            std::fprintf(stderr, "\r%s %d/%d   ", p.phase.c_str(), p.done, p.total);
            if (p.phase == "run" && p.done == p.total) std::fprintf(stderr, "\n");
        };
    return events;
}

/// Connects, deploys the agent and the model, lets `fill` complete the job (with the model's path on the board),
/// and runs it with progress on a terminal.
Report runOnBoard(const std::string& modelPath, const BoardCliOptions& board,
                  const std::function<void(remote::Deployer&, AgentJob&)>& fill) {
    BoardConnection c = connectBoard(board);
    remote::AgentInstall install = c.deployer->deployAgent(deployProgressPrinter("agent", board.quiet));
    remote::ModelDeploy model = c.deployer->deployModel(modelPath, deployProgressPrinter("model", board.quiet));
    // The job inherits --time-limit: the board's local work stops like a local run would.
    AgentJob job;
    job.model = model.remotePath;
    job.timeLimitSeconds = static_cast<int>(std::ceil(processTimeLimitSeconds()));
    fill(*c.deployer, job);
    remote::AgentClient agent(*c.session, install);
    Report report = agent.run(job, progressPrinter(board));
    report.model.path = modelPath;
    report.environment.device = "board " + c.session->describe();
    return report;
}
}  // namespace

Report profileOnBoard(const std::string& modelPath, const RunOptions& run, const BoardCliOptions& board) {
    return runOnBoard(modelPath, board, [&run](remote::Deployer&, AgentJob& job) { job.run = run; });
}

Report profileCompiledOnBoard(const std::string& modelPath, const std::string& runtime, const ModelRunOptions& options,
                              const BoardCliOptions& board) {
    return runOnBoard(modelPath, board, [&](remote::Deployer& deployer, AgentJob& job) {
        job.runtime = runtime;
        job.modelRun = options;
        for (auto& [input, file] : job.modelRun.inputFiles)
            file = deployer.deployModel(file, deployProgressPrinter("input " + input, board.quiet)).remotePath;
    });
}

MatmulBenchResult matmulBenchOnBoard(const ChipProfile& chip, const MatmulBenchOptions& bench,
                                     const std::string& runtime, const BoardCliOptions& board) {
    AgentJob job = remote::agentMatmulJob(chip, bench, runtime);
    job.timeLimitSeconds = static_cast<int>(std::ceil(processTimeLimitSeconds()));
    BoardConnection c = connectBoard(board);
    remote::AgentInstall install = c.deployer->deployAgent(deployProgressPrinter("agent", board.quiet));
    remote::AgentClient agent(*c.session, install);
    MatmulBenchResult result = agent.runMatmul(job, progressPrinter(board));
    result.measuredOn = board.board.host;
    return result;
}

}  // namespace npuwb::cli
