#pragma once
// What every board command shares: the connection options (--identity, --known-hosts, --ssh-config, --accept-new,
// --password-stdin, --timeout, --remote-dir, --agent-dir), terminal prompts, Ctrl+C as cancel, and connecting
// plus deploying the agent.
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "deploy/Deployer.h"
#include "ssh/SshSession.h"

namespace npuwb::cli {

struct BoardCliOptions {
    std::vector<std::string> identities;
    std::string knownHosts;
    std::string sshConfig;
    bool acceptNew = false;
    bool passwordStdin = false;
    int timeoutSec = 30;
    std::string remoteDir;  // cache folder on the board (default ~/.cache/npuwb)
    std::string agentDir;   // agents for other architectures
    bool quiet = false;
};

void addBoardConnectionOptions(CLI::App* cmd, BoardCliOptions& options);

/// A connected board: the session plus a deployer for it. Ctrl+C cancels what runs on it.
struct BoardConnection {
    std::unique_ptr<remote::SshSession> session;
    std::unique_ptr<remote::Deployer> deployer;
};

/// Connects to `host` ([user@]host[:port] or an ssh config alias). Throws npuwb::Error naming the board.
BoardConnection connectBoard(const std::string& host, const BoardCliOptions& options);

/// Progress on stderr ("agent: lib/libnpuwb-engine.so.0 3.1/5.0 MB"), when stderr is a terminal and not quiet.
remote::DeployProgressFn deployProgressPrinter(const std::string& what, bool quiet);

/// Set by SIGINT while a board command runs.
const std::atomic<bool>* boardCancelFlag();

}  // namespace npuwb::cli
