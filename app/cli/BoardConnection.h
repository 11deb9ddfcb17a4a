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
#include "ssh/BoardOptions.h"
#include "ssh/SshSession.h"

namespace npuwb::cli {

/// The board (the one connection type, remote::BoardOptions; its host comes from the command's HOST or --board)
/// plus what only a terminal needs.
struct BoardCliOptions {
    remote::BoardOptions board;
    bool passwordStdin = false;
    bool quiet = false;
};

/// The connection options, bound to `options.board`'s fields.
void addBoardConnectionOptions(CLI::App* cmd, BoardCliOptions& options);

/// A connected board: the session plus a deployer for it. Ctrl+C cancels what runs on it.
struct BoardConnection {
    std::unique_ptr<remote::SshSession> session;
    std::unique_ptr<remote::Deployer> deployer;
};

/// Connects to `options.board.host` ([user@]host[:port] or an ssh config alias). Throws npuwb::Error naming the
/// board.
BoardConnection connectBoard(const BoardCliOptions& options);

/// Progress on stderr ("agent: lib/libnpuwb-engine.so.0 3.1/5.0 MB"), when stderr is a terminal and not quiet.
remote::DeployProgressFn deployProgressPrinter(const std::string& what, bool quiet);

/// Set by SIGINT while a board command runs.
const std::atomic<bool>* boardCancelFlag();

}  // namespace npuwb::cli
