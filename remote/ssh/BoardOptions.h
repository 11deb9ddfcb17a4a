#pragma once
// How to reach a board and where its files go: the one connection type. The CLI fills it from `--board HOST` and
// the connection options, the GUI from a saved board; SshSession and Deployer read it.
#include <string>
#include <vector>

namespace npuwb::remote {

struct BoardOptions {
    std::string host{};                      // [user@]host[:port] or a ~/.ssh/config alias (parseTarget)
    std::vector<std::string> identityFiles{};  // tried first, then ssh-agent, the config's IdentityFile, the defaults
    std::string knownHostsPath{};            // empty: ~/.ssh/known_hosts
    std::string sshConfigPath{};             // empty: ~/.ssh/config when it exists
    /// Trust and remember the host key of a board not yet in known_hosts without asking (SshPrompts::hostKeyAdded
    /// still hears of it); a changed key is always refused.
    bool acceptNewHostKey = false;
    bool useSshAgent = true;  // ssh-agent via SSH_AUTH_SOCK
    int timeoutSec = 30;      // connecting, and any blocking operation or silent remote command after that
    std::string remoteDir{};  // agent and model cache on the board; empty: ~/.cache/npuwb
    std::string agentDir{};   // agents for other architectures (DIR/<arch>/{bin,lib}); empty: $NPUWB_AGENT_DIR

    friend bool operator==(const BoardOptions&, const BoardOptions&) = default;
};

}  // namespace npuwb::remote
