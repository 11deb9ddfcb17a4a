#include "ssh/HostKeys.h"

#include <sys/stat.h>

#include <filesystem>

#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"

namespace npuwb::remote {

std::string knownHostsLine(const std::string& name, const std::string& keyType, const std::string& base64Key) {
    if (name.empty() || keyType.empty() || base64Key.empty())
        fail(ErrorKind::Internal, "known_hosts line for '" + name + "' is missing a field");
    return name + " " + keyType + " " + base64Key;
}

void appendKnownHostsLine(const std::string& path, const std::string& line) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path folder = fs::path(path).parent_path();
    if (!folder.empty() && !fs::exists(folder, ec)) {
        fs::create_directories(folder, ec);
        if (ec) fail(ErrorKind::Io, "cannot create folder " + folder.string() + ": " + ec.message());
        ::chmod(folder.c_str(), 0700);
    }
    std::string contents;
    struct stat st {};
    const bool existed = ::stat(path.c_str(), &st) == 0;
    if (existed) contents = readFile(path);
    if (!contents.empty() && contents.back() != '\n') contents += '\n';
    contents += line + "\n";
    updateFileAtomically(path, contents);
    // the atomic write creates a new inode: keep the old mode (known_hosts is usually 0644 or 0600)
    ::chmod(path.c_str(), existed ? (st.st_mode & 07777) : 0600);
}

std::string changedHostKeyMessage(const HostKeyInfo& info) {
    std::string m = "the host key of " + info.host + " has CHANGED";
    if (info.status == HostKeyStatus::OtherType) m = "host " + info.host + " is known with a key of another type";
    m += " (offered " + info.keyType + " " + info.fingerprint;
    if (!info.knownFingerprint.empty()) m += ", known " + info.knownFingerprint;
    m += " in " + info.knownHostsPath + "). Someone could be impersonating the board (man-in-the-middle), or its "
         "system was reinstalled. Refusing to connect; if the change is expected, remove the old line from " +
         info.knownHostsPath + " (ssh-keygen -R '" + info.host + "' -f " + info.knownHostsPath + ") and connect again.";
    return m;
}

}  // namespace npuwb::remote
