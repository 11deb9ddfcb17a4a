#pragma once
// SFTP on an SshSession: folders, stat, upload with progress and cancel, small reads.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

struct sftp_session_struct;

namespace npuwb::remote {

class SshSession;

/// bytes done, bytes total
using ByteProgress = std::function<void(int64_t, int64_t)>;

class SftpClient {
public:
    explicit SftpClient(SshSession& session);  // opens the subsystem; throws Error naming the board
    ~SftpClient();
    SftpClient(const SftpClient&) = delete;
    SftpClient& operator=(const SftpClient&) = delete;

    /// Absolute form of `path` on the board ("." is the login folder).
    std::string canonicalPath(const std::string& path);
    /// mkdir -p; `mode` for folders it creates.
    void makeDirs(const std::string& path, int mode = 0700);
    /// Size of a regular file, nullopt when missing.
    std::optional<int64_t> fileSize(const std::string& path);
    /// Copies a local file to `remotePath` (created or truncated) in chunks of at most 128 KiB.
    void upload(const std::string& localPath, const std::string& remotePath, int mode, const ByteProgress& progress);
    std::string readFile(const std::string& path, int64_t maxBytes = 1 << 20);
    void remove(const std::string& path);  // missing is fine

private:
    [[noreturn]] void failSftp(const std::string& what, const std::string& path);
    SshSession& session_;
    sftp_session_struct* sftp_ = nullptr;
};

}  // namespace npuwb::remote
