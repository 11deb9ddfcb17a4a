#include "ssh/SshSession.h"

#include <libssh/libssh.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "ssh/SftpClient.h"
#include "ssh/SshUtil.h"
#include "npuwb/Error.h"

namespace npuwb::remote {

std::string defaultKnownHostsPath() {
    const char* home = std::getenv("HOME");
    return std::string(home ? home : "") + "/.ssh/known_hosts";
}

namespace {
constexpr int kKeepaliveSec = 15;  // TCP keepalive on the socket, so a vanished board is noticed
}

SshSession::SshSession(BoardOptions options, SshPrompts prompts, const std::atomic<bool>* cancel)
    : options_(std::move(options)), target_(parseTarget(options_.host)), prompts_(std::move(prompts)), cancel_(cancel) {
    if (options_.knownHostsPath.empty()) options_.knownHostsPath = defaultKnownHostsPath();
}

SshSession::~SshSession() { disconnect(); }

void SshSession::checkCancel() const {
    if (cancel_ && cancel_->load()) fail(ErrorKind::Cancelled, "board " + describe() + ": cancelled");
}

bool SshSession::connected() const { return session_ && ssh_is_connected(session_); }

void SshSession::disconnect() {
    sftp_.reset();
    if (!session_) return;
    if (ssh_is_connected(session_)) ssh_disconnect(session_);
    ssh_free(session_);
    session_ = nullptr;
}

std::string SshSession::describe() const {
    if (host_.empty()) return target_.display();
    const std::string host = host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_;
    return (user_.empty() ? "" : user_ + "@") + host + ":" + std::to_string(port_);
}

void SshSession::applyOptions() {
    ssh_session s = session_;
    const Target& t = target_;
    if (ssh_options_set(s, SSH_OPTIONS_HOST, t.host.c_str()) != SSH_OK)
        failInput("board '" + t.display() + "': " + ssh_get_error(s));
    // The ssh config is read first so that a user or port given on the command line wins, as with OpenSSH.
    std::string config = options_.sshConfigPath;
    if (config.empty()) {
        const char* home = std::getenv("HOME");
        std::string def = std::string(home ? home : "") + "/.ssh/config";
        if (std::error_code ec; std::filesystem::exists(def, ec)) config = def;
    } else if (std::error_code ec; !std::filesystem::exists(config, ec)) {
        failInput("ssh config " + config + " does not exist");
    }
    bool processConfig = false;  // never let ssh_connect() read other config files behind our back
    ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &processConfig);
    if (!config.empty() && ssh_options_parse_config(s, config.c_str()) != SSH_OK)
        failInput("ssh config " + config + ": " + ssh_get_error(s));
    if (!t.user.empty()) ssh_options_set(s, SSH_OPTIONS_USER, t.user.c_str());
    if (t.port != 0) {
        unsigned int port = static_cast<unsigned int>(t.port);
        ssh_options_set(s, SSH_OPTIONS_PORT, &port);
    }
    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, options_.knownHostsPath.c_str());
    // only the chosen file decides; the system-wide list would let a stale global entry override the user's
    ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, options_.knownHostsPath.c_str());
    int nodelay = 1;  // without it, SFTP round trips wait for Nagle and uploads crawl at ~1 MB/s
    ssh_options_set(s, SSH_OPTIONS_NODELAY, &nodelay);
    long timeout = options_.timeoutSec;
    ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout);

    char* value = nullptr;
    if (ssh_options_get(s, SSH_OPTIONS_HOST, &value) == SSH_OK) { host_ = value; ssh_string_free_char(value); }
    if (ssh_options_get(s, SSH_OPTIONS_USER, &value) == SSH_OK) { user_ = value; ssh_string_free_char(value); }
    unsigned int port = 22;
    if (ssh_options_get_port(s, &port) == SSH_OK) port_ = static_cast<int>(port);
}

void SshSession::setSocketKeepalive() {
    const int fd = ssh_get_fd(session_);
    if (fd < 0) return;
    int on = 1, idle = kKeepaliveSec, interval = 5, count = 3;
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

void SshSession::connect() {
    disconnect();
    checkCancel();
    session_ = ssh_new();
    if (!session_) fail(ErrorKind::Internal, "ssh_new failed");
    applyOptions();
    if (ssh_connect(session_) != SSH_OK) {
        const std::string why = ssh_get_error(session_);
        disconnect();
        fail(ErrorKind::Io, "cannot connect to board " + describe() + ": " + why);
    }
    setSocketKeepalive();
    checkCancel();
    verifyHostKey();
    checkCancel();
    authenticate();
    long timeout = options_.timeoutSec;  // from now on: the limit for any blocking operation
    ssh_options_set(session_, SSH_OPTIONS_TIMEOUT, &timeout);
}

ExecResult SshSession::exec(const std::string& command, const ExecIo& io) {
    if (!connected()) fail(ErrorKind::Io, "board " + describe() + ": not connected");
    checkCancel();
    ChannelPtr channel(ssh_channel_new(session_));
    if (!channel || ssh_channel_open_session(channel.get()) != SSH_OK)
        fail(ErrorKind::Io, "board " + describe() + ": cannot open a channel: " + ssh_get_error(session_));
    if (ssh_channel_request_exec(channel.get(), command.c_str()) != SSH_OK)
        fail(ErrorKind::Io, "board " + describe() + ": cannot run a command: " + ssh_get_error(session_));
    for (size_t sent = 0; sent < io.stdinData.size();) {
        checkCancel();
        const size_t n = std::min<size_t>(io.stdinData.size() - sent, 32768);
        const int w = ssh_channel_write(channel.get(), io.stdinData.data() + sent, static_cast<uint32_t>(n));
        if (w < 0) fail(ErrorKind::Io, "board " + describe() + ": sending input failed: " + ssh_get_error(session_));
        sent += static_cast<size_t>(w);
    }
    ssh_channel_send_eof(channel.get());

    using Clock = std::chrono::steady_clock;
    const auto idle = std::chrono::milliseconds(io.idleTimeoutMs > 0 ? io.idleTimeoutMs : options_.timeoutSec * 1000);
    auto lastActivity = Clock::now();
    ExecResult result;
    char buf[65536];
    for (;;) {
        checkCancel();
        const int n = ssh_channel_read_timeout(channel.get(), buf, sizeof buf, 0, 100);
        if (n == SSH_ERROR)
            fail(ErrorKind::Io, "board " + describe() + ": connection lost while running a command: " +
                                    ssh_get_error(session_));
        if (n > 0) {
            lastActivity = Clock::now();
            if (io.onStdout) io.onStdout(std::string_view(buf, static_cast<size_t>(n)));
            else result.out.append(buf, static_cast<size_t>(n));
        }
        const int m = ssh_channel_read_nonblocking(channel.get(), buf, sizeof buf, 1);
        if (m == SSH_ERROR)
            fail(ErrorKind::Io, "board " + describe() + ": connection lost while running a command: " +
                                    ssh_get_error(session_));
        if (m > 0) {
            lastActivity = Clock::now();
            if (io.onStderr) io.onStderr(std::string_view(buf, static_cast<size_t>(m)));
            else result.err.append(buf, static_cast<size_t>(m));
        }
        if (n <= 0 && m <= 0 && (ssh_channel_is_eof(channel.get()) || ssh_channel_is_closed(channel.get()))) break;
        if (Clock::now() - lastActivity > idle)
            fail(ErrorKind::Io, "board " + describe() + ": no answer from the remote command for " +
                                    std::to_string(idle.count() / 1000) + " s (timeout)");
    }
    result.exitStatus = ssh_channel_get_exit_status(channel.get());
    return result;
}

std::string SshSession::execChecked(const std::string& command, const std::string& stdinData) {
    ExecIo io;
    io.stdinData = stdinData;
    ExecResult r = exec(command, io);
    if (r.exitStatus != 0) {
        std::string err = r.err;
        while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
        fail(ErrorKind::Io, "board " + describe() + ": `" + command + "` failed (exit status " +
                                std::to_string(r.exitStatus) + ")" + (err.empty() ? "" : ": " + err));
    }
    return r.out;
}

SftpClient& SshSession::sftp() {
    if (!sftp_) sftp_ = std::make_unique<SftpClient>(*this);
    return *sftp_;
}

}  // namespace npuwb::remote
