// npuwb-remote-bench: the numbers behind tests/bench/bench_upload.sh, on a real sshd on loopback started here.
//  1. upload throughput of a random file (default 50 MB): our deploy (SFTP, verify, rename) vs OpenSSH scp to the
//     same server in the same run, and their ratio (goal >= 0.8);
//  2. warm remote run overhead: with the connection kept and agent + model cached, wall time of a whole remote
//     profile (deploy check, agent start, model load, run, report) minus the model's own run time (goal <= 300 ms).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "TestSshd.h"
#include "agent-client/AgentClient.h"
#include "deploy/Deployer.h"
#include "ssh/SftpClient.h"
#include "ssh/ShellQuote.h"
#include "ssh/SshSession.h"
#include "npuwb/Error.h"
#include "npuwb/Sha256.h"

using namespace npuwb::remote;
using npuwb::AgentJob, npuwb::kAutoBackend;
using Clock = std::chrono::steady_clock;

static double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

int main(int argc, char** argv) {
    int sizeMb = 50;
    std::string model;
    int warmRuns = 5;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--size-mb" && i + 1 < argc) sizeMb = std::atoi(argv[++i]);
        else if (a == "--model" && i + 1 < argc) model = argv[++i];
        else if (a == "--warm-runs" && i + 1 < argc) warmRuns = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: npuwb-remote-bench [--size-mb N] [--model M.onnx] [--warm-runs K]\n");
            return 1;
        }
    }
    try {
        const std::string dir = testing::makeTempFolder("remote-bench");
        testing::TestSshd sshd(dir);
        sshd.start();
        const std::string file = dir + "/upload.bin";
        {
            std::mt19937_64 rng(42);
            std::vector<uint64_t> block(1 << 17);  // 1 MiB
            std::ofstream out(file, std::ios::binary);
            for (int m = 0; m < sizeMb; ++m) {
                for (auto& v : block) v = rng();
                out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(block.size() * 8));
            }
        }
        const double bytes = double(sizeMb) * 1024 * 1024;

        BoardOptions co;
        co.host = sshd.user() + "@127.0.0.1:" + std::to_string(sshd.port());
        co.identityFiles = {sshd.path("client_key")};
        co.knownHostsPath = sshd.path("known_hosts");
        co.sshConfigPath = sshd.writeSshConfig();
        co.useSshAgent = false;
        co.remoteDir = dir + "/board-cache";
        SshPrompts prompts;
        prompts.confirmUnknownHost = [](const HostKeyInfo&) { return true; };
        SshSession session(co, prompts);
        session.connect();
        Deployer deployer(session);
        const std::string sha = npuwb::sha256OfFile(file);

        // scp first and ours second, then again in the other order; the best of each counts
        double scpBest = 1e9, oursBest = 1e9;
        for (int round = 0; round < 2; ++round) {
            auto t = Clock::now();
            testing::runLocal("scp -q -P " + std::to_string(sshd.port()) + " -i " + shellQuote(sshd.path("client_key")) +
                              " -o UserKnownHostsFile=" + shellQuote(co.knownHostsPath) +
                              " -o BatchMode=yes -o StrictHostKeyChecking=yes " + shellQuote(file) + " " +
                              sshd.user() + "@127.0.0.1:" + shellQuote(dir + "/scp-copy.bin"));
            scpBest = std::min(scpBest, secondsSince(t));
            const std::string remote = dir + "/board-cache/bench/upload-" + std::to_string(round) + ".bin";
            t = Clock::now();
            deployer.uploadVerified({{.localPath = file, .remotePath = remote, .sha256 = sha, .mode = 0644}}, {});
            oursBest = std::min(oursBest, secondsSince(t));
        }
        // the upload alone (without the board-side sha256sum and rename), to show where time goes
        auto t = Clock::now();
        session.sftp().upload(file, dir + "/board-cache/bench/raw.bin", 0644, {});
        const double rawSftp = secondsSince(t);
        std::printf("upload %d MB: scp %.3f s (%.1f MB/s); npuwb deploy %.3f s (%.1f MB/s, incl. sha256 check and "
                    "rename; raw SFTP %.3f s, %.1f MB/s); ratio npuwb/scp throughput = %.2f (goal >= 0.8)\n",
                    sizeMb, scpBest, bytes / scpBest / 1e6, oursBest, bytes / oursBest / 1e6, rawSftp,
                    bytes / rawSftp / 1e6, scpBest / oursBest);

        if (!model.empty()) {
            AgentInstall install = deployer.deployAgent();
            ModelDeploy md = deployer.deployModel(model);
            AgentClient client(session, install);
            AgentJob job;
            job.model = md.remotePath;
            job.run.runs = 1;
            job.run.warmup = 0;
            job.run.executor.backend = kAutoBackend;
            client.run(job);  // cold: page cache, first exec
            double bareExec = 1e9, agentVersion = 1e9;
            for (int i = 0; i < 5; ++i) {
                t = Clock::now();
                session.exec("true");
                bareExec = std::min(bareExec, secondsSince(t) * 1e3);
                t = Clock::now();
                client.version();
                agentVersion = std::min(agentVersion, secondsSince(t) * 1e3);
            }
            std::printf("remote command round trip (best of 5): `true` %.1f ms, `npuwb-agent version` %.1f ms\n",
                        bareExec, agentVersion);
            double bestOverhead = 1e9, bestWall = 0, bestModel = 0;
            for (int i = 0; i < warmRuns; ++i) {
                t = Clock::now();
                deployer.deployAgent();  // what `profile --board` does each time: check, nothing to upload
                const double agentCheck = secondsSince(t) * 1e3;
                ModelDeploy again = deployer.deployModel(model);
                const double modelCheck = secondsSince(t) * 1e3 - agentCheck;
                npuwb::Report r = client.run(job);
                const double wall = secondsSince(t) * 1e3;
                std::printf("  warm run %d: agent check %.1f ms, model check %.1f ms, agent run %.1f ms "
                            "(session creation %.1f ms, run %.1f ms)\n",
                            i, agentCheck, modelCheck, wall - agentCheck - modelCheck, r.run.sessionCreateUs / 1e3,
                            r.run.medianUs / 1e3);
                // the model's own time: session creation (load, compile) and the timed run
                const double own = (r.run.sessionCreateUs + r.run.medianUs) / 1e3;
                if (wall - own < bestOverhead) {
                    bestOverhead = wall - own;
                    bestWall = wall;
                    bestModel = own;
                }
                (void)again;
            }
            std::printf("warm remote run (%s, best of %d): wall %.1f ms, model's own time %.1f ms (session creation + 1 "
                        "run), overhead %.1f ms (goal <= 300 ms)\n",
                        model.c_str(), warmRuns, bestWall, bestModel, bestOverhead);
        }
        session.disconnect();
        sshd.stop();
        testing::runLocal("rm -rf " + shellQuote(dir));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "npuwb-remote-bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
