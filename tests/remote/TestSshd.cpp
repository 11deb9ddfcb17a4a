#include "TestSshd.h"

#include <dirent.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ssh/ShellQuote.h"

namespace npuwb::remote::testing {

std::string runLocal(const std::string& command) {
    std::string out;
    FILE* p = popen((command + " 2>&1").c_str(), "r");
    if (!p) throw std::runtime_error("cannot run " + command);
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
    const int rc = pclose(p);
    if (rc != 0) throw std::runtime_error("`" + command + "` failed: " + out);
    return out;
}

std::string makeTempFolder(const std::string& tag) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/npuwb-" + tag + "-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed for " + templ);
    return buf.data();
}

namespace {
int freePort() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    close(fd);
    return ntohs(a.sin_port);
}

bool accepts(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(fd);
    return ok;
}

// Children of `pid` from /proc (sshd forks one process per connection, which re-execs and forks again).
std::set<pid_t> descendants(pid_t root) {
    std::set<pid_t> found{root};
    bool grew = true;
    while (grew) {
        grew = false;
        DIR* d = opendir("/proc");
        if (!d) break;
        while (dirent* e = readdir(d)) {
            const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
            if (pid <= 0 || found.count(pid)) continue;
            std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
            std::string line;
            std::getline(stat, line);
            const auto close = line.rfind(')');
            if (close == std::string::npos) continue;
            char state = 0;
            int ppid = 0;
            if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) != 2) continue;
            if (found.count(static_cast<pid_t>(ppid))) {
                found.insert(pid);
                grew = true;
            }
        }
        closedir(d);
    }
    return found;
}
}  // namespace

TestSshd::TestSshd(const std::string& folder) : folder_(folder) {
    const std::string f = shellQuote(folder_);
    runLocal("ssh-keygen -q -t ed25519 -N '' -C testhost -f " + f + "/host_ed25519_key");
    runLocal("ssh-keygen -q -t ed25519 -N '' -C client -f " + f + "/client_key");
    runLocal("ssh-keygen -q -t ed25519 -N " + shellQuote(kPassphrase) + " -C client-pw -f " + f + "/client_key_pw");
    runLocal("ssh-keygen -q -t ed25519 -N '' -C other -f " + f + "/other_key");
    runLocal("cat " + f + "/client_key.pub " + f + "/client_key_pw.pub > " + f + "/authorized_keys");
    runLocal("mkdir -p /run/sshd");
    port_ = freePort();
    std::ofstream cfg(path("sshd_config"));
    cfg << "Port " << port_ << "\nListenAddress 127.0.0.1\nHostKey " << path("host_ed25519_key")
        << "\nPidFile none\nUsePAM no\nStrictModes no\nPermitRootLogin yes\nPubkeyAuthentication yes\n"
           "PasswordAuthentication yes\nKbdInteractiveAuthentication no\nAuthorizedKeysFile "
        << path("authorized_keys")
        << "\nSubsystem sftp internal-sftp\nMaxStartups 50\nMaxSessions 50\nMaxAuthTries 10\nLogLevel INFO\n"
           "AcceptEnv NPUWB_*\n";
}

TestSshd::~TestSshd() { stop(); }

std::string TestSshd::user() const {
    const passwd* pw = getpwuid(getuid());
    return pw ? pw->pw_name : "root";
}

std::string TestSshd::writeSshConfig(const std::string& alias) const {
    const std::string p = path("ssh_config");
    std::ofstream cfg(p);
    cfg << "Host " << alias << "\n  HostName 127.0.0.1\n  Port " << port_ << "\n  User " << user()
        << "\n  IdentityFile " << path("client_key") << "\n";
    return p;
}

void TestSshd::start() {
    if (pid_ > 0) return;
    const std::string cfg = path("sshd_config"), log = path("sshd.log");
    pid_ = fork();
    if (pid_ == 0) {
        execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-f", cfg.c_str(), "-E", log.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!accepts(port_)) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            std::ifstream in(log);
            std::string text((std::istreambuf_iterator<char>(in)), {});
            throw std::runtime_error("sshd exited at start: " + text);
        }
        if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("sshd did not start listening");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

void TestSshd::killTree(int sig) {
    if (pid_ <= 0) return;
    for (pid_t p : descendants(pid_)) ::kill(p, sig);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
}

void TestSshd::stop() { killTree(SIGTERM); }
void TestSshd::kill() { killTree(SIGKILL); }

}  // namespace npuwb::remote::testing
