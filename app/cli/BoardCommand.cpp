// `npuwb-cli board probe HOST` and `npuwb-cli board deploy HOST [--model M]`: a board over SSH, with the agent
// deployed (or checked) first.
#include <cstdio>
#include <iostream>

#include "BoardConnection.h"
#include "Commands.h"
#include "agent-client/AgentClient.h"
#include "npuwb/AtomicFile.h"

namespace npuwb::cli {

namespace {
struct BoardCommandOptions {
    std::string model;
    std::string jsonPath;
    BoardCliOptions connection;
};

remote::AgentInstall deployAgentReporting(BoardConnection& c, bool quiet) {
    remote::AgentInstall install = c.deployer->deployAgent(deployProgressPrinter("agent", quiet));
    if (!quiet) {
        if (install.filesUploaded > 0)
            std::cerr << "agent (" << install.arch << "): " << install.filesUploaded << " file(s), "
                      << humanBytes(install.bytesUploaded) << " uploaded to " << install.dir << "\n";
        else
            std::cerr << "agent (" << install.arch << "): up to date in " << install.dir << "\n";
    }
    return install;
}

void runProbe(const BoardCommandOptions& o) {
    BoardConnection c = connectBoard(o.connection);
    remote::AgentClient agent(*c.session, deployAgentReporting(c, o.connection.quiet));
    const AgentVersion v = agent.version();
    nlohmann::json probe = agent.probe();
    nlohmann::json out{{"board", c.session->describe()}, {"agent", toJson(v)}, {"probe", probe}};
    if (!o.jsonPath.empty()) {
        writeFileAtomically(o.jsonPath, out.dump(2) + "\n");
        std::cerr << "probe written to " << o.jsonPath << "\n";
    }
    std::cout << out.dump(2) << "\n";
}

void runDeploy(const BoardCommandOptions& o) {
    BoardConnection c = connectBoard(o.connection);
    remote::AgentInstall install = deployAgentReporting(c, o.connection.quiet);
    const AgentVersion v = remote::AgentClient(*c.session, install).version();
    nlohmann::json out{{"board", c.session->describe()},
                       {"arch", install.arch},
                       {"agent", {{"path", install.executable}, {"version", v.version},
                                  {"filesUploaded", install.filesUploaded}, {"bytesUploaded", install.bytesUploaded}}}};
    std::printf("board %s (%s): agent %s at %s (%d file(s) uploaded)\n", c.session->describe().c_str(),
                install.arch.c_str(), v.version.c_str(), install.executable.c_str(), install.filesUploaded);
    if (!o.model.empty()) {
        remote::ModelDeploy m = c.deployer->deployModel(o.model, deployProgressPrinter("model", o.connection.quiet));
        out["model"] = {{"local", o.model}, {"path", m.remotePath}, {"sha256", m.sha256}, {"uploaded", m.uploaded},
                        {"bytes", m.bytes}};
        std::printf("model %s: %s %s (%s)\n", o.model.c_str(), m.uploaded ? "uploaded to" : "already at",
                    m.remotePath.c_str(), humanBytes(m.bytes).c_str());
    }
    if (!o.jsonPath.empty()) writeFileAtomically(o.jsonPath, out.dump(2) + "\n");
}
}  // namespace

static void addBoardCommand(CLI::App& app) {
    CLI::App* board = app.add_subcommand("board", "Boards over SSH: probe them, deploy the agent and models");
    board->require_subcommand(1);

    auto probe = std::make_shared<BoardCommandOptions>();
    CLI::App* p = board->add_subcommand("probe", "Deploy (or check) the agent and print the board's probe JSON: "
                                                 "CPU, memory, NPU driver, frequencies, governors, librknnrt");
    p->add_option("host", probe->connection.board.host, "[user@]host[:port] or an ~/.ssh/config alias")->required();
    p->add_option("--json", probe->jsonPath, "also write the probe JSON here");
    p->add_flag("-q,--quiet", probe->connection.quiet, "no progress on stderr");
    addBoardConnectionOptions(p, probe->connection);
    p->callback([probe] { runProbe(*probe); });

    auto deploy = std::make_shared<BoardCommandOptions>();
    CLI::App* d = board->add_subcommand("deploy", "Upload the agent matching the board (and a model) into its cache "
                                                  "folder; only what changed goes up, every file is verified by sha256");
    d->add_option("host", deploy->connection.board.host, "[user@]host[:port] or an ~/.ssh/config alias")->required();
    d->add_option("--model", deploy->model, "also upload this ONNX model");
    d->add_option("--json", deploy->jsonPath, "write what was deployed where, as JSON");
    d->add_flag("-q,--quiet", deploy->connection.quiet, "no progress on stderr");
    addBoardConnectionOptions(d, deploy->connection);
    d->callback([deploy] { runDeploy(*deploy); });
}
NPUWB_CLI_COMMAND(addBoardCommand);

}  // namespace npuwb::cli
