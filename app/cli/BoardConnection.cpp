#include "BoardConnection.h"

#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "Commands.h"
#include "npuwb/Error.h"

namespace npuwb::cli {

namespace {
std::atomic<bool> gCancel{false};
extern "C" void onInterrupt(int) { gCancel.store(true); }

// Reads a secret from the terminal without echo; nullopt when there is no terminal.
std::optional<std::string> askTerminal(const std::string& prompt) {
    FILE* tty = std::fopen("/dev/tty", "r+");
    if (!tty) return std::nullopt;
    const int fd = fileno(tty);
    termios old{};
    const bool haveTermios = tcgetattr(fd, &old) == 0;
    if (haveTermios) {
        termios silent = old;
        silent.c_lflag &= ~static_cast<tcflag_t>(ECHO);
        tcsetattr(fd, TCSAFLUSH, &silent);
    }
    std::fprintf(tty, "%s", prompt.c_str());
    std::fflush(tty);
    char buf[1024];
    const bool got = std::fgets(buf, sizeof buf, tty) != nullptr;
    if (haveTermios) tcsetattr(fd, TCSAFLUSH, &old);
    std::fprintf(tty, "\n");
    std::fclose(tty);
    if (!got) return std::nullopt;
    std::string s = buf;
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
}
}  // namespace

const std::atomic<bool>* boardCancelFlag() { return &gCancel; }

void addBoardConnectionOptions(CLI::App* cmd, BoardCliOptions& o) {
    remote::BoardOptions& b = o.board;
    cmd->add_option("--identity,-i", b.identityFiles,
                    "private key file (repeatable); tried before ssh-agent and defaults");
    cmd->add_option("--known-hosts", b.knownHostsPath, "known_hosts file (default ~/.ssh/known_hosts)");
    cmd->add_option("--ssh-config", b.sshConfigPath, "ssh config file (default ~/.ssh/config)");
    cmd->add_flag("--accept-new", b.acceptNewHostKey, "trust and remember the host key of a board not yet in "
                                                      "known_hosts (a changed key is always refused)");
    cmd->add_flag("--password-stdin", o.passwordStdin, "read the password from the first line of stdin");
    cmd->add_option("--timeout", b.timeoutSec, "seconds before a silent board counts as lost (connect, I/O, agent)")
        ->capture_default_str()
        ->check(CLI::Range(1, 86400));
    cmd->add_option("--remote-dir", b.remoteDir, "cache folder on the board (default ~/.cache/npuwb)");
    cmd->add_option("--agent-dir", b.agentDir, "agents for other architectures: DIR/<arch>/{bin,lib} "
                                               "(default $NPUWB_AGENT_DIR)");
}

BoardConnection connectBoard(const BoardCliOptions& o) {
    remote::SshPrompts prompts;  // unknown host keys: refused unless --accept-new (BoardOptions::acceptNewHostKey)
    prompts.hostKeyAdded = [](const remote::HostKeyInfo& info) {
        std::cerr << "warning: trusting the new host key of " << info.host << " (" << info.keyType << " "
                  << info.fingerprint << "), added to " << info.knownHostsPath << "\n";
    };
    auto stdinPassword = std::make_shared<std::optional<std::string>>();
    if (o.passwordStdin) {
        std::string line;
        if (!std::getline(std::cin, line)) failInput("--password-stdin: no password on stdin");
        if (!line.empty() && line.back() == '\r') line.pop_back();
        *stdinPassword = line;
    }
    const bool fromStdin = o.passwordStdin;
    prompts.password = [stdinPassword, fromStdin](const std::string& prompt) -> std::optional<std::string> {
        if (fromStdin) {  // one attempt: a wrong password from a script must not be retried
            auto pw = *stdinPassword;
            stdinPassword->reset();
            return pw;
        }
        return askTerminal(prompt);
    };
    prompts.passphrase = [](const std::string& prompt) { return askTerminal(prompt); };

    signal(SIGINT, onInterrupt);
    BoardConnection c;
    c.session = std::make_unique<remote::SshSession>(o.board, prompts, &gCancel);
    c.session->connect();
    c.deployer = std::make_unique<remote::Deployer>(*c.session);
    return c;
}

remote::DeployProgressFn deployProgressPrinter(const std::string& what, bool quiet) {
    if (quiet || !isatty(STDERR_FILENO)) return {};
    return [what](const remote::DeployProgress& p) {
        std::fprintf(stderr, "\r%s: %s %s/%s   ", what.c_str(), p.file.c_str(), humanBytes(p.bytesDone).c_str(),
                     humanBytes(p.bytesTotal).c_str());
        if (p.bytesDone == p.bytesTotal) std::fprintf(stderr, "\n");
    };
}

}  // namespace npuwb::cli
