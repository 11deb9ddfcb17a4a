// Unit tests without a server: quoting (checked by a real /bin/sh), target parsing, known_hosts lines, the agent
// job as the client writes and the agent reads it.
#include <gtest/gtest.h>

#include <fstream>

#include "Job.h"  // the agent's job reader (app/agent)
#include "RemoteTestSupport.h"
#include "deploy/Deployer.h"
#include "ssh/HostKeys.h"
#include "ssh/ShellQuote.h"
#include "ssh/Target.h"
#include "npuwb/Error.h"
#include "npuwb/Sha256.h"

using namespace npuwb::remote;
using namespace npuwb::remote::testing;

TEST(RemoteUnitQuote, RealShellSeesEachArgumentLiterally) {
    const std::vector<std::string> hostile = {
        "plain", "a b", "it's", "'", "''", "\"double\"", "semi;colon", "$(touch PWNED)", "`touch PWNED`",
        "new\nline", "back\\slash", "*", "-n", "a b;touch PWNED;$(touch PWNED2).onnx", "", "tab\there", "$HOME", "!x"};
    const std::string dir = makeTempFolder("quote");
    for (const auto& s : hostile) {
        // printf %s ARG, through the shell, must give back ARG byte for byte
        const std::string out = runLocal("cd " + shellQuote(dir) + " && sh -c " +
                                         shellQuote("printf '[%s]' " + shellCommand({s})));
        EXPECT_EQ(out, "[" + s + "]") << "argument: " << s;
    }
    const std::string many = runLocal("sh -c " + shellQuote("printf '<%s>' " + shellCommand(hostile)));
    std::string expected;
    for (const auto& s : hostile) expected += "<" + s + ">";
    EXPECT_EQ(many, expected);
    EXPECT_EQ(runLocal("ls -A " + shellQuote(dir)), "") << "a quoted argument ran a command";
    runLocal("rm -rf " + shellQuote(dir));
    EXPECT_THROW(shellQuote(std::string("a\0b", 3)), npuwb::Error);
}

TEST(RemoteUnitTarget, ParsesUserHostPort) {
    Target t = parseTarget("root@board.local:2222");
    EXPECT_EQ(t.user, "root");
    EXPECT_EQ(t.host, "board.local");
    EXPECT_EQ(t.port, 2222);
    t = parseTarget("rk3588");
    EXPECT_EQ(t.user, "");
    EXPECT_EQ(t.host, "rk3588");
    EXPECT_EQ(t.port, 0);
    t = parseTarget("me@[fe80::1%eth0]:22");
    EXPECT_EQ(t.host, "fe80::1%eth0");
    EXPECT_EQ(t.port, 22);
    t = parseTarget("::1");
    EXPECT_EQ(t.host, "::1");
    EXPECT_EQ(t.port, 0);
    EXPECT_EQ(parseTarget("u@h:7").display(), "u@h:7");
    for (const char* bad : {"", "host:", "host:0", "host:65536", "host:12x", "@host", "-oProxyCommand=x",
                            "host;rm", "a b", "[::1", "[::1]x", "h$(x)"}) {
        EXPECT_THROW(parseTarget(bad), npuwb::Error) << bad;
    }
}

TEST(RemoteUnitKnownHosts, LineFormatAndAtomicAppend) {
    EXPECT_EQ(knownHostsName("board", 22), "board");
    EXPECT_EQ(knownHostsName("board", 0), "board");
    EXPECT_EQ(knownHostsName("10.0.0.5", 2222), "[10.0.0.5]:2222");
    const std::string dir = makeTempFolder("known-hosts");
    runLocal("ssh-keygen -q -t ed25519 -N '' -f " + shellQuote(dir + "/k"));
    std::ifstream pub(dir + "/k.pub");
    std::string type, b64;
    pub >> type >> b64;
    const std::string path = dir + "/sub/known_hosts";  // folder does not exist yet
    appendKnownHostsLine(path, knownHostsLine("[10.0.0.5]:2222", type, b64));
    appendKnownHostsLine(path, knownHostsLine("board", type, b64));
    EXPECT_EQ(runLocal("cat " + shellQuote(path)),
              "[10.0.0.5]:2222 " + type + " " + b64 + "\nboard " + type + " " + b64 + "\n");
    // OpenSSH's own parser finds both lines
    EXPECT_NE(runLocal("ssh-keygen -F '[10.0.0.5]:2222' -f " + shellQuote(path)).find(b64), std::string::npos);
    EXPECT_NE(runLocal("ssh-keygen -F board -f " + shellQuote(path)).find(b64), std::string::npos);
    EXPECT_THROW(knownHostsLine("", type, b64), npuwb::Error);
    runLocal("rm -rf " + shellQuote(dir));
}

TEST(RemoteUnitKnownHosts, ChangedKeyMessageNamesHostAndBothFingerprints) {
    HostKeyInfo info;
    info.host = "[b]:2222";
    info.keyType = "ssh-ed25519";
    info.fingerprint = "SHA256:new";
    info.knownFingerprint = "SHA256:old";
    info.knownHostsPath = "/k";
    info.status = HostKeyStatus::Changed;
    const std::string m = changedHostKeyMessage(info);
    for (const char* part : {"[b]:2222", "CHANGED", "SHA256:new", "SHA256:old", "/k", "Refusing"})
        EXPECT_NE(m.find(part), std::string::npos) << part << " in " << m;
}

TEST(RemoteUnitDeploy, HashLinesAndLocalSha256) {
    const std::string a(64, 'a');
    EXPECT_EQ(parseHashLines(a + "  -\nmissing\n" + std::string(64, '0') + "  -\n"),
              (std::vector<std::string>{a, "", std::string(64, '0')}));
    EXPECT_EQ(npuwb::sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const std::string dir = makeTempFolder("sha");
    runLocal("printf abc > " + shellQuote(dir + "/f"));
    EXPECT_EQ(npuwb::sha256OfFile(dir + "/f"), runLocal("sha256sum < " + shellQuote(dir + "/f")).substr(0, 64));
    EXPECT_THROW(npuwb::sha256OfFile(dir + "/missing"), npuwb::Error);
    runLocal("rm -rf " + shellQuote(dir));
}

// A job the desktop's client writes is the job the agent reads: every field, through the client's own line and the
// agent's own reader (a file, as `npuwb-agent run JOB.json` reads it; stdin goes through the same parser).
TEST(RemoteUnitWire, ClientJobIsReadBackIdenticallyByTheAgent) {
    npuwb::AgentJob job;
    job.model = "/home/me/.cache/npuwb/models/0123abcd.onnx";
    job.run.executor = {.backend = "cpu-xnnpack", .threads = 3};
    job.run.runs = 17;
    job.run.warmup = 0;
    job.run.seed = 18446744073709551557ull;  // a seed past int64: protocol 1's client wrote an int
    job.run.inputShapes = {{"x", {1, 3, 480, 640}}, {"scale", {}}};
    job.run.symbolicDimValue = 4;
    job.run.layerTimes = false;
    job.telemetryIntervalMs = 40;
    const std::string dir = makeTempFolder("wire");
    const std::string path = dir + "/job.json";
    std::ofstream(path) << agentJobLine(job);
    const npuwb::AgentJob read = npuwb::agent::loadJob(path);
    runLocal("rm -rf " + shellQuote(dir));
    EXPECT_EQ(read.model, job.model);
    EXPECT_EQ(read.run.executor, job.run.executor);
    EXPECT_EQ(read.run.runs, job.run.runs);
    EXPECT_EQ(read.run.warmup, job.run.warmup);
    EXPECT_EQ(read.run.seed, job.run.seed);
    EXPECT_EQ(read.run.inputShapes, job.run.inputShapes);
    EXPECT_EQ(read.run.symbolicDimValue, job.run.symbolicDimValue);
    EXPECT_EQ(read.run.layerTimes, job.run.layerTimes);
    EXPECT_EQ(read.telemetryIntervalMs, job.telemetryIntervalMs);
    // And back out: the agent's reading written again is the client's line, byte for byte.
    EXPECT_EQ(agentJobLine(read), agentJobLine(job));
}
