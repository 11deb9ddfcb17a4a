#pragma once
// Puts the agent and models onto a board over SFTP, into a per-user cache folder (default ~/.cache/npuwb):
//   agent/<arch>/bin/npuwb-agent, agent/<arch>/lib/..., models/<sha256>.onnx (.rknn, .npy: the file's own extension)
// Every file goes up under a temporary name, its sha256 is checked on the board with `sha256sum`, and only then
// is it renamed (mv -f: rename(2), atomic) to its final name. A dropped connection therefore never leaves a partial
// file under a final name, and a retry simply uploads again. Files whose hash is already there are skipped.
// The agent folder gets a manifest.sha256 (written last, atomically) so a warm deploy check is one small read.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "deploy/AgentBundle.h"

namespace npuwb::remote {

class SshSession;

struct DeployProgress {
    std::string file;       // remote relative path or model name being uploaded
    int64_t fileDone = 0, fileTotal = 0;
    int64_t bytesDone = 0, bytesTotal = 0;  // over everything this call uploads
};
using DeployProgressFn = std::function<void(const DeployProgress&)>;

/// Where the agent lives on the board.
struct AgentInstall {
    std::string arch;
    std::string dir;         // absolute, agent/<arch>
    std::string executable;  // dir/bin/npuwb-agent
    std::string libDir;      // dir/lib
    std::string pluginDir;   // dir/lib/plugins
    int filesUploaded = 0;
    int64_t bytesUploaded = 0;
};

struct ModelDeploy {
    std::string remotePath;  // absolute, models/<sha256><extension> (.onnx, .rknn, .npy)
    std::string sha256;
    bool uploaded = false;   // false: the same file was already there
    int64_t bytes = 0;
};

/// One local file to place on the board (see uploadVerified).
struct UploadItem {
    std::string localPath;
    std::string remotePath;  // absolute final name
    std::string sha256;      // of the local file
    int mode = 0644;
};

class Deployer {
public:
    /// The cache folder and the agents for other architectures are the session's BoardOptions (remoteDir,
    /// agentDir); a relative remoteDir is taken from the login folder.
    explicit Deployer(SshSession& session);

    /// `uname -m` on the board (asked once).
    std::string boardArch();
    /// Absolute cache folder on the board.
    std::string cacheDir();
    /// Makes sure the agent matching the board is installed and current; uploads only what differs.
    AgentInstall deployAgent(const DeployProgressFn& progress = {});
    /// Makes sure the model (or an input file) is on the board under its content hash; returns its path there.
    ModelDeploy deployModel(const std::string& localModel, const DeployProgressFn& progress = {});

    /// The building block: upload each item to `<final>.part`, check all hashes on the board, then rename.
    /// Throws Error naming the file and both hashes on a mismatch (the temporary file is removed then).
    void uploadVerified(const std::vector<UploadItem>& items, const DeployProgressFn& progress);
    /// sha256 of each existing path on the board (one remote command); missing files are absent from the map.
    std::map<std::string, std::string> remoteHashes(const std::vector<std::string>& paths);

private:
    SshSession& session_;
    std::string arch_, cacheDir_;
    std::map<std::string, std::string> localHashCache_;  // local path -> sha256, for repeated deploys
    std::string localHash(const std::string& path);
};

/// One entry per line of `sha256sum < FILE` output ("HASH  -"): the hash, or "" for any other line ("missing").
std::vector<std::string> parseHashLines(const std::string& text);

}  // namespace npuwb::remote
