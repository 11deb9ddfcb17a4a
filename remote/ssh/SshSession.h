#pragma once
// One authenticated SSH connection to a board (libssh): host-key trust, authentication, remote commands.
// Blocking calls, meant for a worker thread; every loop checks the cancel flag and the I/O timeout, so nothing
// hangs on a dead board. Prompts (host key, passphrase, password) are callbacks so the CLI and the GUI each ask
// in their own way; a secret that worked is handed to `secretAccepted` so a GUI can offer to keep it in the OS
// keychain. Nothing here writes a secret anywhere.
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ssh/BoardOptions.h"
#include "ssh/HostKeys.h"
#include "ssh/Target.h"

struct ssh_session_struct;

namespace npuwb::remote {

class SftpClient;

struct SshPrompts {
    HostKeyDecision confirmUnknownHost;  // null: unknown keys are refused (unless BoardOptions::acceptNewHostKey)
    /// Called once a new host key was trusted and added to known_hosts.
    std::function<void(const HostKeyInfo&)> hostKeyAdded;
    /// Passphrase for an encrypted private key; nullopt = skip that key.
    std::function<std::optional<std::string>(const std::string& prompt)> passphrase;
    /// Password or keyboard-interactive answer (prompt like "root@board's password: "); nullopt = give up.
    std::function<std::optional<std::string>(const std::string& prompt)> password;
    /// Called with "password" or "passphrase" and the secret once it authenticated (keychain hook).
    std::function<void(const std::string& kind, const std::string& secret)> secretAccepted;
};

/// How to feed and read one remote command.
struct ExecIo {
    std::string stdinData;                            // sent, then EOF
    std::function<void(std::string_view)> onStdout;   // set: stdout is streamed here instead of collected
    std::function<void(std::string_view)> onStderr;   // set: stderr is streamed here instead of collected
    int idleTimeoutMs = 0;  // 0: the session's I/O timeout. Fails when neither output nor exit comes this long.
};

struct ExecResult {
    int exitStatus = -1;  // -1: no status (killed by a signal, or the channel closed without one)
    std::string out;      // collected stdout (when not streamed)
    std::string err;      // collected stderr (when not streamed)
};

class SshSession {
public:
    /// `cancel` (may be null) is polled by every loop; when it becomes true the call throws Error(Cancelled).
    /// Throws Error(InvalidInput) naming the text when `options.host` is malformed.
    SshSession(BoardOptions options, SshPrompts prompts = {}, const std::atomic<bool>* cancel = nullptr);
    ~SshSession();
    SshSession(const SshSession&) = delete;
    SshSession& operator=(const SshSession&) = delete;

    /// Connects, checks the host key, authenticates. Throws Error naming the board on any failure.
    void connect();
    bool connected() const;
    void disconnect();

    /// "user@host:port" as actually used (after ssh config resolution).
    std::string describe() const;
    const BoardOptions& options() const { return options_; }

    /// Runs `command` (build it with shellCommand()) and waits for it to exit.
    ExecResult exec(const std::string& command, const ExecIo& io = {});
    /// exec() that throws Error naming the board, the command and its stderr when the exit status is not 0.
    std::string execChecked(const std::string& command, const std::string& stdinData = {});

    /// The SFTP subsystem of this connection (opened on first use).
    SftpClient& sftp();

    void checkCancel() const;
    const std::atomic<bool>* cancelFlag() const { return cancel_; }
    ssh_session_struct* raw() const { return session_; }

private:
    void applyOptions();
    void verifyHostKey();
    void authenticate();
    void setSocketKeepalive();

    BoardOptions options_;
    Target target_;  // options_.host parsed
    SshPrompts prompts_;
    const std::atomic<bool>* cancel_;
    ssh_session_struct* session_ = nullptr;
    std::unique_ptr<SftpClient> sftp_;
    std::string user_, host_;
    int port_ = 22;
};

/// ~/.ssh/known_hosts of the local user.
std::string defaultKnownHostsPath();

}  // namespace npuwb::remote
