#pragma once
// A real OpenSSH server on 127.0.0.1 for the remote tests: its own folder, config, host key, port and
// authorized_keys, started with `sshd -D` and stopped by its process id (and its session children).
#include <string>
#include <sys/types.h>

namespace npuwb::remote::testing {

class TestSshd {
public:
    /// Creates the folder with keys: client_key (authorized), client_key_pw (authorized, passphrase
    /// kPassphrase), other_key (not authorized), host key, config. Does not start the server.
    explicit TestSshd(const std::string& folder);
    ~TestSshd();

    void start();  // on a free port (the same one again after stop()); waits until it accepts connections
    void stop();   // SIGTERM to the server and its session processes
    void kill();   // SIGKILL to the server and every session process: the board "dies"
    bool running() const { return pid_ > 0; }

    int port() const { return port_; }
    std::string folder() const { return folder_; }
    std::string user() const;
    std::string path(const std::string& name) const { return folder_ + "/" + name; }
    std::string hostKeyPub() const { return path("host_ed25519_key.pub"); }
    /// An ssh config that names this server "testboard" (HostName, Port, User, IdentityFile).
    std::string writeSshConfig(const std::string& alias = "testboard") const;

    static constexpr const char* kPassphrase = "correct horse";

private:
    void killTree(int sig);
    std::string folder_;
    int port_ = 0;
    pid_t pid_ = -1;
};

/// Runs a shell command, throws std::runtime_error with its output when it fails.
std::string runLocal(const std::string& command);
/// A fresh folder under $TMPDIR (or /tmp) named after `tag`.
std::string makeTempFolder(const std::string& tag);

}  // namespace npuwb::remote::testing
