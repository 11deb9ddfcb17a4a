#include "deploy/Deployer.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

#include "ssh/SftpClient.h"
#include "ssh/ShellQuote.h"
#include "ssh/SshSession.h"
#include "npuwb/Error.h"
#include "npuwb/Sha256.h"

namespace npuwb::remote {

namespace fs = std::filesystem;

std::vector<std::string> parseHashLines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const bool isHash = line.size() >= 64 && line.find_first_not_of("0123456789abcdef") >= 64;
        out.push_back(isHash ? line.substr(0, 64) : "");
    }
    return out;
}

Deployer::Deployer(SshSession& session) : session_(session) {}

std::string Deployer::boardArch() {
    if (!arch_.empty()) return arch_;
    std::string out = session_.execChecked("uname -m");
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) out.pop_back();
    if (out.empty() || out.find_first_of("/ \n'\"") != std::string::npos)
        fail(ErrorKind::Io, "board " + session_.describe() + ": unexpected `uname -m` output '" + out + "'");
    return arch_ = out;
}

std::string Deployer::cacheDir() {
    if (!cacheDir_.empty()) return cacheDir_;
    const std::string& remoteDir = session_.options().remoteDir;
    std::string dir = remoteDir.empty() ? ".cache/npuwb" : remoteDir;
    if (dir.rfind("~/", 0) == 0) dir = dir.substr(2);
    if (dir[0] != '/') dir = session_.sftp().canonicalPath(".") + "/" + dir;
    return cacheDir_ = dir;
}

std::string Deployer::localHash(const std::string& path) {
    std::error_code ec;
    const auto stamp = fs::last_write_time(path, ec).time_since_epoch().count();
    const std::string key = path + "@" + std::to_string(stamp) + "@" + std::to_string(fs::file_size(path, ec));
    auto it = localHashCache_.find(key);
    if (it != localHashCache_.end()) return it->second;
    return localHashCache_[key] = sha256OfFile(path);
}

std::map<std::string, std::string> Deployer::remoteHashes(const std::vector<std::string>& paths) {
    if (paths.empty()) return {};
    // One line per path, in order, whatever the names contain (newlines too): the file goes in through stdin.
    std::vector<std::string> argv{"sh", "-c", "for f; do sha256sum < \"$f\" 2>/dev/null || echo missing; done", "sh"};
    argv.insert(argv.end(), paths.begin(), paths.end());
    const std::vector<std::string> lines = parseHashLines(session_.execChecked(shellCommand(argv)));
    std::map<std::string, std::string> out;
    for (size_t i = 0; i < paths.size() && i < lines.size(); ++i)
        if (!lines[i].empty()) out[paths[i]] = lines[i];
    return out;
}

void Deployer::uploadVerified(const std::vector<UploadItem>& items, const DeployProgressFn& progress) {
    if (items.empty()) return;
    DeployProgress p;
    for (const auto& item : items) p.bytesTotal += static_cast<int64_t>(fs::file_size(item.localPath));
    std::vector<std::string> parts;
    for (const auto& item : items) {
        session_.sftp().makeDirs(fs::path(item.remotePath).parent_path().string());
        const std::string part = item.remotePath + ".part";
        parts.push_back(part);
        const int64_t before = p.bytesDone;
        p.file = fs::path(item.remotePath).filename().string();
        session_.sftp().upload(item.localPath, part, item.mode, [&](int64_t done, int64_t total) {
            p.fileDone = done;
            p.fileTotal = total;
            p.bytesDone = before + done;
            if (progress) progress(p);
        });
    }
    const auto hashes = remoteHashes(parts);
    for (size_t i = 0; i < items.size(); ++i) {
        auto it = hashes.find(parts[i]);
        if (it == hashes.end() || it->second != items[i].sha256) {
            for (const auto& part : parts) session_.sftp().remove(part);
            fail(ErrorKind::Io, "board " + session_.describe() + ": " + parts[i] + " has sha256 " +
                                    (it == hashes.end() ? std::string("(unreadable: is sha256sum installed?)") : it->second) +
                                    " after upload, expected " + items[i].sha256 + " (" + items[i].localPath +
                                    "); removed it, nothing was replaced");
        }
    }
    std::string moves;
    for (size_t i = 0; i < items.size(); ++i)
        moves += (moves.empty() ? "" : " && ") + shellCommand({"mv", "-f", "--", parts[i], items[i].remotePath});
    session_.execChecked(moves);
}

AgentInstall Deployer::deployAgent(const DeployProgressFn& progress) {
    const AgentBundle bundle = findAgentBundle(boardArch(), session_.options().agentDir);
    AgentInstall install;
    install.arch = bundle.arch;
    install.dir = cacheDir() + "/agent/" + bundle.arch;
    install.executable = install.dir + "/bin/npuwb-agent";
    install.libDir = install.dir + "/lib";
    install.pluginDir = install.dir + "/lib/plugins";

    // Fast path: the manifest written after the last complete deploy lists exactly these files and hashes.
    std::string manifest;
    for (const auto& f : bundle.files)
        manifest += (f.linkTo.empty() ? localHash(f.localPath) : "link:" + f.linkTo) + "  " + f.relativePath + "\n";
    const std::string manifestPath = install.dir + "/manifest.sha256";
    if (session_.sftp().fileSize(manifestPath) == static_cast<int64_t>(manifest.size()) &&
        session_.sftp().readFile(manifestPath) == manifest)
        return install;

    std::vector<std::string> remotePaths;
    std::map<std::string, std::string> wantedHash;  // remote path -> sha256 (links: of their target)
    std::map<std::string, std::string> byRelative;  // relative path -> sha256 of the regular files
    for (const auto& f : bundle.files)
        if (f.linkTo.empty()) byRelative[f.relativePath] = localHash(f.localPath);
    for (const auto& f : bundle.files) {
        const std::string remote = install.dir + "/" + f.relativePath;
        remotePaths.push_back(remote);
        const std::string rel = f.linkTo.empty() ? f.relativePath
                                                 : fs::path(f.relativePath).parent_path().string() + "/" + f.linkTo;
        wantedHash[remote] = byRelative.count(rel) ? byRelative[rel] : "";
    }
    const auto have = remoteHashes(remotePaths);
    std::vector<UploadItem> uploads;
    std::string links;
    for (const auto& f : bundle.files) {
        const std::string remote = install.dir + "/" + f.relativePath;
        auto it = have.find(remote);
        if (it != have.end() && it->second == wantedHash[remote]) continue;
        if (f.linkTo.empty()) {
            uploads.push_back({.localPath = f.localPath,
                               .remotePath = remote,
                               .sha256 = wantedHash[remote],
                               .mode = f.executable ? 0755 : 0644});
            install.bytesUploaded += static_cast<int64_t>(fs::file_size(f.localPath));
        } else {
            links += (links.empty() ? "" : " && ") + shellCommand({"ln", "-sfn", "--", f.linkTo, remote});
        }
    }
    uploadVerified(uploads, progress);
    if (!links.empty()) session_.execChecked(links);
    install.filesUploaded = static_cast<int>(uploads.size());
    // written last and atomically: it only ever describes a complete, verified install
    session_.execChecked(shellCommand({"sh", "-c", "cat > \"$1.part\" && mv -f -- \"$1.part\" \"$1\"", "sh",
                                       manifestPath}),
                         manifest);
    return install;
}

ModelDeploy Deployer::deployModel(const std::string& localModel, const DeployProgressFn& progress) {
    std::error_code ec;
    if (!fs::is_regular_file(localModel, ec)) failInput("model " + localModel + " does not exist");
    ModelDeploy d;
    d.sha256 = localHash(localModel);
    d.bytes = static_cast<int64_t>(fs::file_size(localModel));
    // The file keeps its kind (.onnx, .rknn, .npy): the agent and the runtimes tell models apart by extension.
    std::string extension = fs::path(localModel).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const bool plain = extension.size() > 1 && std::all_of(extension.begin() + 1, extension.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0;
    });
    d.remotePath = cacheDir() + "/models/" + d.sha256 + (plain ? extension : std::string(".onnx"));
    // The final name only ever appears through a verified rename, so a file there with the right size is this model.
    auto size = session_.sftp().fileSize(d.remotePath);
    if (size && *size == d.bytes) return d;
    uploadVerified({{.localPath = localModel, .remotePath = d.remotePath, .sha256 = d.sha256, .mode = 0644}}, progress);
    d.uploaded = true;
    return d;
}

}  // namespace npuwb::remote
