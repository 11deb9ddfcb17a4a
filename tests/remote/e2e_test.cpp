// End-to-end against a real sshd: host-key consent, key auth (plain and with passphrase), ssh config alias,
// deploy, probe, remote runs compared with local runs, warm deploys that upload nothing, hostile file names.
#include <gtest/gtest.h>

#include <filesystem>

#include "RemoteTestSupport.h"
#include "agent-client/AgentClient.h"
#include "deploy/Deployer.h"
#include "ssh/SftpClient.h"
#include "npuwb/ModelIO.h"
#include "npuwb/Profiler.h"
#include "npuwb/Error.h"
#include "npuwb/Sha256.h"

using namespace npuwb::remote;
using namespace npuwb::remote::testing;
using npuwb::AgentJob, npuwb::AgentProgress, npuwb::AgentTelemetry, npuwb::kReferenceBackend;
namespace fs = std::filesystem;

namespace {
std::vector<std::tuple<std::string, std::string, std::vector<std::vector<int64_t>>>> layerKeys(const npuwb::Report& r) {
    std::vector<std::tuple<std::string, std::string, std::vector<std::vector<int64_t>>>> keys;
    for (const auto& l : r.layers) keys.emplace_back(l.fullName, l.opType, l.outputShapes);
    return keys;
}

npuwb::Report runRemoteAndCompare(SshSession& session, Deployer& deployer, const std::string& model,
                                  const std::string& backend, int runs) {
    AgentClient agent(session, deployer.deployAgent());
    ModelDeploy md = deployer.deployModel(model);
    AgentJob job;
    job.model = md.remotePath;
    job.run.executor.backend = backend;
    job.run.runs = runs;
    job.run.warmup = 1;
    int progressEvents = 0, telemetryEvents = 0, pid = 0;
    AgentEvents events;
    events.progress = [&](const AgentProgress&) { ++progressEvents; };
    events.telemetry = [&](const AgentTelemetry&) { ++telemetryEvents; };
    events.started = [&](int p) { pid = p; };
    npuwb::Report remote = agent.run(job, events, 120);
    EXPECT_GT(progressEvents, 0);
    EXPECT_GT(telemetryEvents, 0);
    EXPECT_GT(pid, 0);

    auto loaded = std::make_shared<const npuwb::Model>(npuwb::loadModel(model));
    npuwb::Report local = npuwb::profileModel(loaded, job.run);
    EXPECT_EQ(remote.run.runs, runs);
    EXPECT_GT(remote.run.medianUs, 0.0);
    EXPECT_EQ(remote.model.nodeCount, local.model.nodeCount);
    EXPECT_EQ(remote.model.macs, local.model.macs);
    EXPECT_EQ(layerKeys(remote), layerKeys(local)) << model;
    return remote;
}
}  // namespace

TEST(RemoteE2E, UnknownHostKeyIsTrustedOnlyAfterConsentThenKnown) {
    TestSshd& sshd = sharedSshd();
    BoardOptions o = optionsFor(sshd, "known_hosts_consent");
    HostKeyInfo seen;
    int asked = 0;
    SshPrompts p;
    p.confirmUnknownHost = [&](const HostKeyInfo& info) {
        seen = info;
        ++asked;
        return true;
    };
    SshSession first(o, p);
    first.connect();
    EXPECT_EQ(asked, 1);
    EXPECT_EQ(seen.status, HostKeyStatus::Unknown);
    EXPECT_EQ(seen.host, "[127.0.0.1]:" + std::to_string(sshd.port()));
    EXPECT_EQ(seen.keyType, "ssh-ed25519");
    EXPECT_EQ(seen.fingerprint, opensshFingerprint(sshd.hostKeyPub()));
    EXPECT_EQ(first.execChecked("echo hello"), "hello\n");
    // second time: known, nobody is asked
    SshSession second(o, {});
    second.connect();
    EXPECT_EQ(second.execChecked(shellCommand({"printf", "%s", "a b'c"})), "a b'c");
}

TEST(RemoteE2E, PassphraseKeyUsesThePromptAndReportsTheSecret) {
    TestSshd& sshd = sharedSshd();
    BoardOptions o = optionsFor(sshd);
    o.identityFiles = {sshd.path("client_key_pw")};
    SshPrompts p = acceptingPrompts();
    int asked = 0;
    std::string accepted;
    p.passphrase = [&](const std::string&) -> std::optional<std::string> {
        ++asked;
        return std::string(TestSshd::kPassphrase);
    };
    p.secretAccepted = [&](const std::string& kind, const std::string& secret) { accepted = kind + ":" + secret; };
    SshSession s(o, p);
    s.connect();
    EXPECT_GE(asked, 1);
    EXPECT_EQ(accepted, std::string("passphrase:") + TestSshd::kPassphrase);
}

TEST(RemoteE2E, SshConfigAliasGivesHostPortUserAndKey) {
    TestSshd& sshd = sharedSshd();
    BoardOptions o;
    o.host = "testboard";
    o.sshConfigPath = sshd.writeSshConfig("testboard");
    o.knownHostsPath = sshd.path("known_hosts");
    o.useSshAgent = false;
    SshSession s(o, acceptingPrompts());
    s.connect();
    EXPECT_EQ(s.describe(), sshd.user() + "@127.0.0.1:" + std::to_string(sshd.port()));
}

TEST(RemoteE2E, DeployProbeAndRunMatchLocalReports) {
    ConnectedBoard board(sharedSshd());
    SshSession& s = board.session;
    Deployer& deployer = board.deployer;
    EXPECT_EQ(deployer.boardArch(), hostArch());
    AgentInstall install = deployer.deployAgent();
    EXPECT_GE(install.filesUploaded, 2);  // agent + engine at least
    EXPECT_TRUE(fs::exists(install.executable));
    EXPECT_EQ(npuwb::sha256OfFile(install.executable), npuwb::sha256OfFile(runningTreeRoot() + "/bin/npuwb-agent"));
    AgentClient agent(s, install);
    npuwb::AgentVersion v = agent.version();
    EXPECT_EQ(v.protocol, npuwb::kAgentProtocolVersion);
    EXPECT_EQ(v.arch, hostArch());
    nlohmann::json probe = agent.probe();
    ASSERT_TRUE(probe.is_object());
    EXPECT_FALSE(probe.empty());

    runRemoteAndCompare(s, deployer, tinyModel(), "reference", 3);
    const std::string resnet = sourcePath("tests/data/models/resnet18.onnx");
    if (fs::exists(resnet)) {
        npuwb::Report r = runRemoteAndCompare(s, deployer, resnet, "auto", 2);
        EXPECT_GT(r.layers.size(), 40u);
    }

    // warm: nothing goes up again
    AgentInstall again = deployer.deployAgent();
    EXPECT_EQ(again.filesUploaded, 0);
    EXPECT_FALSE(deployer.deployModel(tinyModel()).uploaded);
}

TEST(RemoteE2E, HostileFileNamesDoNotInject) {
    TestSshd& sshd = sharedSshd();
    const std::string work = sshd.path("hostile");
    BoardOptions o = optionsFor(sshd);
    o.remoteDir = work + "/cache 'x\";touch PWNED3;$(touch PWNED4)`touch PWNED5`\nline";
    SshSession s(o, acceptingPrompts());
    s.connect();
    fs::create_directories(work);
    const std::string model = work + "/a b;touch PWNED;$(touch PWNED2).onnx";
    fs::copy_file(tinyModel(), model);
    Deployer deployer(s);
    AgentClient agent(s, deployer.deployAgent());
    ModelDeploy md = deployer.deployModel(model);
    EXPECT_TRUE(fs::exists(md.remotePath));
    // an upload whose final name itself is hostile, verified and renamed
    const std::string odd = o.remoteDir + "/odd;$(touch PWNED6) 'n\"ame\n.bin";
    deployer.uploadVerified(
        {{.localPath = model, .remotePath = odd, .sha256 = npuwb::sha256OfFile(model), .mode = 0644}}, {});
    EXPECT_EQ(npuwb::sha256OfFile(odd), npuwb::sha256OfFile(model));
    EXPECT_FALSE(agent.run(referenceJob(md.remotePath, 1)).layers.empty());
    const std::string home = s.sftp().canonicalPath(".");
    for (const std::string& dir : {work, home, o.remoteDir, sshd.folder()})
        for (int i = 0; i <= 6; ++i) {
            const std::string name = "PWNED" + (i ? std::to_string(i) : std::string());
            EXPECT_FALSE(fs::exists(dir + "/" + name)) << dir << "/" << name;
        }
}
