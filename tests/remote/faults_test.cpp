// Faults against a real sshd: wrong or unknown host keys, wrong password or key, the server killed during an
// upload, the agent killed or stalled during a run. Each ends in a clear Error, quickly, and leaves no partial file
// under a final name.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "RemoteTestSupport.h"
#include "agent-client/AgentClient.h"
#include "deploy/Deployer.h"
#include "npuwb/Error.h"
#include "npuwb/Sha256.h"

using namespace npuwb::remote;
using namespace npuwb::remote::testing;
using npuwb::AgentJob, npuwb::AgentProgress, npuwb::AgentTelemetry, npuwb::kReferenceBackend;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {
std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const npuwb::Error& e) {
        return e.what();
    }
    return "";
}

void writeRandomFile(const std::string& path, int megabytes) {
    std::mt19937_64 rng(7);
    std::vector<uint64_t> block(1 << 17);
    std::ofstream out(path, std::ios::binary);
    for (int m = 0; m < megabytes; ++m) {
        for (auto& v : block) v = rng();
        out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(block.size() * 8));
    }
}

double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
}  // namespace

TEST(RemoteFault, ChangedHostKeyIsRefusedEvenWhenTheCallbackWouldAccept) {
    TestSshd& sshd = sharedSshd();
    BoardOptions o = optionsFor(sshd, "known_hosts_changed");
    // known_hosts says this host has other_key: the offered key does not match
    runLocal("printf '%s ' " + shellQuote("[127.0.0.1]:" + std::to_string(sshd.port())) + " > " +
             shellQuote(o.knownHostsPath) + " && cut -d' ' -f1,2 " + shellQuote(sshd.path("other_key.pub")) + " >> " +
             shellQuote(o.knownHostsPath));
    int asked = 0;
    SshPrompts p;
    p.confirmUnknownHost = [&](const HostKeyInfo&) { return ++asked > 0; };
    SshSession s(o, p);
    const std::string msg = errorOf([&] { s.connect(); });
    EXPECT_EQ(asked, 0) << "a changed key must never be offered for acceptance";
    EXPECT_FALSE(s.connected());
    EXPECT_NE(msg.find("CHANGED"), std::string::npos) << msg;
    EXPECT_NE(msg.find(opensshFingerprint(sshd.hostKeyPub())), std::string::npos) << msg;
    EXPECT_NE(msg.find(opensshFingerprint(sshd.path("other_key.pub"))), std::string::npos) << msg;
    EXPECT_NE(msg.find("[127.0.0.1]:" + std::to_string(sshd.port())), std::string::npos) << msg;
}

TEST(RemoteFault, UnknownHostKeyWithoutConsentIsRefused) {
    TestSshd& sshd = sharedSshd();
    BoardOptions o = optionsFor(sshd, "known_hosts_never_written");
    SshSession noCallback(o, {});
    std::string msg = errorOf([&] { noCallback.connect(); });
    EXPECT_NE(msg.find(opensshFingerprint(sshd.hostKeyPub())), std::string::npos) << msg;
    SshPrompts no;
    no.confirmUnknownHost = [](const HostKeyInfo&) { return false; };
    SshSession declined(o, no);
    msg = errorOf([&] { declined.connect(); });
    EXPECT_NE(msg.find("not in"), std::string::npos) << msg;
    EXPECT_FALSE(fs::exists(o.knownHostsPath));
}

TEST(RemoteFault, WrongPasswordAndWrongKeyGiveClearErrors) {
    TestSshd& sshd = sharedSshd();
    BoardOptions o = optionsFor(sshd);
    o.identityFiles = {sshd.path("other_key")};  // not authorized
    SshSession wrongKey(o, acceptingPrompts());
    std::string msg = errorOf([&] { wrongKey.connect(); });
    EXPECT_NE(msg.find("authentication failed"), std::string::npos) << msg;
    EXPECT_NE(msg.find(sshd.path("other_key")), std::string::npos) << msg;

    SshPrompts p = acceptingPrompts();
    int asked = 0;
    p.password = [&](const std::string&) -> std::optional<std::string> {
        if (asked++ > 0) return std::nullopt;  // one attempt, like --password-stdin
        return std::string("definitely-wrong");
    };
    SshSession wrongPassword(o, p);
    const auto t = Clock::now();
    msg = errorOf([&] { wrongPassword.connect(); });
    EXPECT_EQ(asked, 2);
    EXPECT_NE(msg.find("authentication failed"), std::string::npos) << msg;
    EXPECT_NE(msg.find("password"), std::string::npos) << msg;
    EXPECT_LT(secondsSince(t), 60.0);
}

TEST(RemoteFault, ServerKilledDuringUploadLeavesNoPartialFileAndRetryCompletes) {
    TestSshd sshd(makeTempFolder("remote-kill-upload"));  // its own server: this test kills it
    sshd.start();
    const std::string model = sshd.path("big.onnx");
    writeRandomFile(model, 24);
    const std::string finalPath = optionsFor(sshd).remoteDir + "/models/" + npuwb::sha256OfFile(model) + ".onnx";
    {
        ConnectedBoard board(sshd);
        bool killed = false;
        const std::string msg = errorOf([&] {
            board.deployer.deployModel(model, [&](const DeployProgress& p) {
                if (!killed && p.bytesDone > 6 * 1024 * 1024) {
                    killed = true;
                    sshd.kill();  // the board dies mid-upload
                }
            });
        });
        EXPECT_TRUE(killed);
        EXPECT_FALSE(msg.empty()) << "the upload must fail when the server dies";
        EXPECT_FALSE(fs::exists(finalPath)) << "partial file under the final name";
    }
    sshd.start();  // the board is back
    ConnectedBoard board(sshd);
    ModelDeploy md = board.deployer.deployModel(model);
    EXPECT_TRUE(md.uploaded);
    EXPECT_EQ(md.remotePath, finalPath);
    EXPECT_EQ(npuwb::sha256OfFile(finalPath), npuwb::sha256OfFile(model));
    EXPECT_FALSE(fs::exists(finalPath + ".part"));
    board.session.disconnect();
    sshd.stop();
    runLocal("rm -rf " + shellQuote(sshd.folder()));
}

TEST(RemoteFault, AgentKilledOrStalledDuringARunFailsWithinTheTimeout) {
    ConnectedBoard board(sharedSshd());
    AgentClient agent(board.session, board.deployer.deployAgent());
    // far longer than the test: only a kill or a stall ends it
    AgentJob job = referenceJob(board.deployer.deployModel(tinyModel()).remotePath, 1000000);
    for (int sig : {SIGKILL, SIGSTOP}) {
        int pid = 0;
        bool sent = false;
        AgentEvents events;
        events.started = [&](int p) { pid = p; };
        events.progress = [&](const AgentProgress& p) {
            if (!sent && pid > 0 && p.phase == "run") {
                sent = true;
                ::kill(pid, sig);  // the "board" is this machine: the pid is real here
            }
        };
        const int timeoutSec = 5;
        const auto t = Clock::now();
        const std::string msg = errorOf([&] { agent.run(job, events, timeoutSec); });
        const double took = secondsSince(t);
        EXPECT_TRUE(sent);
        EXPECT_FALSE(msg.empty());
        if (sig == SIGKILL) {
            EXPECT_NE(msg.find("killed"), std::string::npos) << msg;
            EXPECT_LT(took, 60.0);
        } else {
            EXPECT_NE(msg.find("timeout"), std::string::npos) << msg;
            EXPECT_LT(took, 60.0);  // ~timeoutSec after the stall, generous under load
            ::kill(pid, SIGKILL);    // the client sent SIGTERM; a stopped process needs KILL or CONT
        }
        EXPECT_TRUE(board.session.connected());  // the connection survives; the next run works
    }
    job.run.runs = 1;
    EXPECT_FALSE(agent.run(job).layers.empty());
}

TEST(RemoteFault, CancelFlagStopsARunAndTheAgent) {
    std::atomic<bool> cancel{false};
    ConnectedBoard board(sharedSshd(), &cancel);
    AgentClient agent(board.session, board.deployer.deployAgent());
    const AgentJob job = referenceJob(board.deployer.deployModel(tinyModel()).remotePath, 1000000);
    int pid = 0;
    AgentEvents events;
    events.started = [&](int p) { pid = p; };
    events.progress = [&](const AgentProgress& p) {
        if (p.phase == "run") cancel = true;
    };
    try {
        agent.run(job, events, 60);
        ADD_FAILURE() << "no error after cancel";
    } catch (const npuwb::Error& e) {
        EXPECT_EQ(e.kind(), npuwb::ErrorKind::Cancelled) << e.what();
    }
    ASSERT_GT(pid, 0);
    // the agent was told to stop: it is gone within a few seconds
    const auto t = Clock::now();
    while (::kill(pid, 0) == 0 && secondsSince(t) < 30) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        runLocal("true");  // reap nothing, just let time pass under load
    }
    EXPECT_NE(::kill(pid, 0), 0) << "agent " << pid << " still running after cancel";
}
