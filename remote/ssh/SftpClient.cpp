#include "ssh/SftpClient.h"

#include <fcntl.h>
#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include <fstream>
#include <vector>

#include "ssh/SshSession.h"
#include "npuwb/Error.h"

namespace npuwb::remote {

namespace {
constexpr size_t kChunk = 128 * 1024;  // OpenSSH's sftp-server refuses packets above 256 KiB

struct FileCloser {
    void operator()(sftp_file f) const { sftp_close(f); }
};
using SftpFilePtr = std::unique_ptr<sftp_file_struct, FileCloser>;
struct AttrFree {
    void operator()(sftp_attributes a) const { sftp_attributes_free(a); }
};
using AttrPtr = std::unique_ptr<sftp_attributes_struct, AttrFree>;

const char* sftpErrorText(int code) {
    switch (code) {
        case SSH_FX_NO_SUCH_FILE: return "no such file";
        case SSH_FX_PERMISSION_DENIED: return "permission denied";
        case SSH_FX_FAILURE: return "failure (disk full, or the file exists?)";
        case SSH_FX_FILE_ALREADY_EXISTS: return "already exists";
        case SSH_FX_NO_CONNECTION:
        case SSH_FX_CONNECTION_LOST: return "connection lost";
        default: return nullptr;
    }
}
}  // namespace

SftpClient::SftpClient(SshSession& session) : session_(session) {
    sftp_ = sftp_new(session_.raw());
    if (!sftp_ || sftp_init(sftp_) != SSH_OK) {
        const std::string why = ssh_get_error(session_.raw());
        if (sftp_) sftp_free(sftp_);
        sftp_ = nullptr;
        fail(ErrorKind::Io, "board " + session_.describe() + ": cannot start SFTP (is the sftp subsystem enabled in "
                            "sshd_config?): " + why);
    }
}

SftpClient::~SftpClient() {
    if (sftp_) sftp_free(sftp_);
}

void SftpClient::failSftp(const std::string& what, const std::string& path) {
    const int code = sftp_get_error(sftp_);
    const char* text = sftpErrorText(code);
    fail(ErrorKind::Io, "board " + session_.describe() + ": " + what + " " + path + ": " +
                            (text ? std::string(text) : std::string(ssh_get_error(session_.raw()))));
}

std::string SftpClient::canonicalPath(const std::string& path) {
    char* p = sftp_canonicalize_path(sftp_, path.c_str());
    if (!p) failSftp("cannot resolve", path);
    std::string out = p;
    ssh_string_free_char(p);
    return out;
}

void SftpClient::makeDirs(const std::string& path, int mode) {
    std::string prefix;
    size_t pos = 0;
    while (pos <= path.size()) {
        size_t next = path.find('/', pos);
        if (next == std::string::npos) next = path.size();
        prefix = path.substr(0, next);
        pos = next + 1;
        if (prefix.empty() || prefix == "/" || prefix == "." || prefix == "~") continue;
        AttrPtr attrs(sftp_stat(sftp_, prefix.c_str()));
        if (attrs) {
            if (attrs->type != SSH_FILEXFER_TYPE_DIRECTORY)
                fail(ErrorKind::Io, "board " + session_.describe() + ": " + prefix + " exists and is not a folder");
            continue;
        }
        if (sftp_mkdir(sftp_, prefix.c_str(), static_cast<mode_t>(mode)) != SSH_OK &&
            sftp_get_error(sftp_) != SSH_FX_FILE_ALREADY_EXISTS) {
            AttrPtr again(sftp_stat(sftp_, prefix.c_str()));  // someone else may have made it meanwhile
            if (!again) failSftp("cannot create folder", prefix);
        }
    }
}

std::optional<int64_t> SftpClient::fileSize(const std::string& path) {
    AttrPtr attrs(sftp_stat(sftp_, path.c_str()));
    if (!attrs) {
        if (sftp_get_error(sftp_) == SSH_FX_NO_SUCH_FILE) return std::nullopt;
        failSftp("cannot stat", path);
    }
    if (attrs->type != SSH_FILEXFER_TYPE_REGULAR) return std::nullopt;
    return static_cast<int64_t>(attrs->size);
}

void SftpClient::upload(const std::string& localPath, const std::string& remotePath, int mode,
                        const ByteProgress& progress) {
    std::ifstream in(localPath, std::ios::binary);
    if (!in) fail(ErrorKind::Io, "cannot read " + localPath);
    in.seekg(0, std::ios::end);
    const int64_t total = static_cast<int64_t>(in.tellg());
    in.seekg(0);
    SftpFilePtr file(sftp_open(sftp_, remotePath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, static_cast<mode_t>(mode)));
    if (!file) failSftp("cannot create", remotePath);
    std::vector<char> buf(kChunk);
    int64_t done = 0;
    if (progress) progress(0, total);
    while (done < total) {
        session_.checkCancel();
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        const auto n = static_cast<size_t>(in.gcount());
        if (n == 0) fail(ErrorKind::Io, "cannot read " + localPath + " (it shrank while uploading?)");
        for (size_t off = 0; off < n;) {
            const ssize_t w = sftp_write(file.get(), buf.data() + off, n - off);
            if (w <= 0) failSftp("writing failed for", remotePath);
            off += static_cast<size_t>(w);
        }
        done += static_cast<int64_t>(n);
        if (progress) progress(done, total);
    }
    sftp_file f = file.release();
    if (sftp_close(f) != SSH_OK) failSftp("closing failed for", remotePath);
}

std::string SftpClient::readFile(const std::string& path, int64_t maxBytes) {
    SftpFilePtr file(sftp_open(sftp_, path.c_str(), O_RDONLY, 0));
    if (!file) failSftp("cannot open", path);
    std::string out;
    std::vector<char> buf(65536);
    for (;;) {
        const ssize_t n = sftp_read(file.get(), buf.data(), buf.size());
        if (n < 0) failSftp("reading failed for", path);
        if (n == 0) break;
        out.append(buf.data(), static_cast<size_t>(n));
        if (static_cast<int64_t>(out.size()) > maxBytes)
            fail(ErrorKind::Io, "board " + session_.describe() + ": " + path + " is larger than expected");
    }
    return out;
}

void SftpClient::remove(const std::string& path) {
    if (sftp_unlink(sftp_, path.c_str()) != SSH_OK && sftp_get_error(sftp_) != SSH_FX_NO_SUCH_FILE)
        failSftp("cannot remove", path);
}

}  // namespace npuwb::remote
