#pragma once
// Host-key trust, as OpenSSH does it: keys are checked against known_hosts; an unknown key is trusted only when
// the user has seen its SHA256 fingerprint and agreed; a changed key is refused, never silently accepted.
#include <functional>
#include <string>

namespace npuwb::remote {

enum class HostKeyStatus {
    Known,     // matches a known_hosts line
    Unknown,   // no line for this host (or no known_hosts file yet)
    Changed,   // a line for this host has a different key: possible man-in-the-middle
    OtherType  // the host is known with a key of another type only
};

/// What the user sees before deciding about a host key.
struct HostKeyInfo {
    std::string host;          // as written in known_hosts: `host` or `[host]:port`
    std::string keyType;       // "ssh-ed25519", ...
    std::string fingerprint;   // "SHA256:..." of the offered key
    std::string knownFingerprint;  // "SHA256:..." of the known key when Changed/OtherType and readable, else empty
    std::string knownHostsPath;
    HostKeyStatus status = HostKeyStatus::Unknown;
};

/// Asked only for Unknown keys: true = trust it and append it to known_hosts. Changed keys are never asked about.
using HostKeyDecision = std::function<bool(const HostKeyInfo&)>;

/// One known_hosts line: `NAME TYPE BASE64`, NAME from knownHostsName().
std::string knownHostsLine(const std::string& name, const std::string& keyType, const std::string& base64Key);

/// Appends `line` to the file atomically (a reader sees the old or the new file), creating the file and its folder
/// (mode 0700) when missing and keeping the file mode. Throws Error(Io) naming the path.
void appendKnownHostsLine(const std::string& path, const std::string& line);

/// The warning for a changed key, naming host, file and both fingerprints.
std::string changedHostKeyMessage(const HostKeyInfo& info);

}  // namespace npuwb::remote
