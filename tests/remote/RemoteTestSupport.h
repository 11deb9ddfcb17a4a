#pragma once
// Shared by the remote gtests: one real sshd per test process (started on first use, stopped at exit), connection
// options that point at it, and a connected session with a deployer and jobs for the agent.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>

#include "TestSshd.h"
#include "agent-client/AgentClient.h"
#include "deploy/Deployer.h"
#include "ssh/ShellQuote.h"
#include "ssh/SshSession.h"

namespace npuwb::remote::testing {

inline TestSshd& sharedSshd() {
    struct Shared {  // stops the server and removes its folder (keys, board cache) when the process ends
        std::unique_ptr<TestSshd> sshd;
        ~Shared() {
            const std::string folder = sshd->folder();
            sshd.reset();
            try {
                runLocal("rm -rf " + shellQuote(folder));
            } catch (...) {
            }
        }
    };
    static Shared shared{[] {
        auto s = std::make_unique<TestSshd>(makeTempFolder("remote-test"));
        s->start();
        return s;
    }()};
    return *shared.sshd;
}

/// Options for `sshd` with the authorized key, a known_hosts file and the board cache in its folder, and no ssh
/// config or agent.
inline BoardOptions optionsFor(const TestSshd& sshd, const std::string& knownHosts = "known_hosts") {
    BoardOptions o;
    o.host = sshd.user() + "@127.0.0.1:" + std::to_string(sshd.port());
    o.identityFiles = {sshd.path("client_key")};
    o.knownHostsPath = sshd.path(knownHosts);
    o.sshConfigPath = sshd.path("empty_ssh_config");
    runLocal(": > " + shellQuote(o.sshConfigPath));
    o.useSshAgent = false;
    o.timeoutSec = 60;
    o.remoteDir = sshd.path("cache");
    return o;
}

inline SshPrompts acceptingPrompts() {
    SshPrompts p;
    p.confirmUnknownHost = [](const HostKeyInfo&) { return true; };
    return p;
}

/// SHA256 fingerprint as OpenSSH prints it for a public key file.
inline std::string opensshFingerprint(const std::string& pubFile) {
    const std::string out = runLocal("ssh-keygen -l -E sha256 -f " + shellQuote(pubFile));
    const auto start = out.find("SHA256:");
    return out.substr(start, out.find(' ', start) - start);
}

inline std::string sourcePath(const std::string& rel) { return std::string(NPUWB_SOURCE_DIR) + "/" + rel; }
inline std::string tinyModel() { return sourcePath("resources/samples/tiny_mobilenet.onnx"); }

/// A session connected to `sshd` (accepting its host key) and a Deployer with the board cache in `sshd`'s folder.
struct ConnectedBoard {
    explicit ConnectedBoard(const TestSshd& sshd, const std::atomic<bool>* cancel = nullptr)
        : session(optionsFor(sshd), acceptingPrompts(), cancel), deployer(session) {
        session.connect();
    }
    SshSession session;
    Deployer deployer;
};

/// A job for the reference backend on a model already on the board, without warm-up runs.
inline AgentJob referenceJob(const std::string& remoteModel, int runs) {
    AgentJob job;
    job.model = remoteModel;
    job.run.executor.backend = kReferenceBackend;
    job.run.runs = runs;
    job.run.warmup = 0;
    return job;
}

}  // namespace npuwb::remote::testing
