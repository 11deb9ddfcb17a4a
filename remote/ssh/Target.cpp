#include "ssh/Target.h"

#include <cctype>

#include "npuwb/Error.h"

namespace npuwb::remote {

namespace {
int parsePort(const std::string& text, const std::string& whole) {
    if (text.empty() || text.size() > 5) failInput("board '" + whole + "': bad port '" + text + "'");
    int port = 0;
    for (char c : text) {
        if (!std::isdigit(static_cast<unsigned char>(c))) failInput("board '" + whole + "': bad port '" + text + "'");
        port = port * 10 + (c - '0');
    }
    if (port < 1 || port > 65535) failInput("board '" + whole + "': port " + text + " is outside 1..65535");
    return port;
}

// Host names, aliases and addresses never contain these; rejecting them keeps option injection
// (a host starting with '-') and shell metacharacters out of every later use.
void checkHostChars(const std::string& host, const std::string& whole) {
    if (host.empty()) failInput("board '" + whole + "': no host name");
    if (host[0] == '-') failInput("board '" + whole + "': a host name cannot start with '-'");
    for (char c : host) {
        const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' || c == ':' ||
                        c == '%';
        if (!ok) failInput("board '" + whole + "': '" + std::string(1, c) + "' cannot appear in a host name");
    }
}
}  // namespace

std::string Target::display() const {
    std::string s;
    if (!user.empty()) s.append(user).append("@");
    const bool bracket = host.find(':') != std::string::npos && port != 0;  // IPv6 address with a port
    if (bracket) s.append("[");
    s.append(host);
    if (bracket) s.append("]");
    if (port != 0) s.append(":").append(std::to_string(port));
    return s;
}

Target parseTarget(const std::string& text) {
    Target t;
    std::string rest = text;
    if (auto at = rest.rfind('@'); at != std::string::npos) {
        t.user = rest.substr(0, at);
        rest = rest.substr(at + 1);
        if (t.user.empty()) failInput("board '" + text + "': empty user name before '@'");
        for (char c : t.user)
            if (std::iscntrl(static_cast<unsigned char>(c)) || c == ' ' || c == '/' || c == '\'' || c == '"')
                failInput("board '" + text + "': bad character in the user name");
    }
    if (!rest.empty() && rest[0] == '[') {  // [v6addr]:port or [host]
        auto close = rest.find(']');
        if (close == std::string::npos) failInput("board '" + text + "': missing ']'");
        t.host = rest.substr(1, close - 1);
        std::string after = rest.substr(close + 1);
        if (!after.empty()) {
            if (after[0] != ':') failInput("board '" + text + "': expected ':PORT' after ']'");
            t.port = parsePort(after.substr(1), text);
        }
    } else if (auto colon = rest.find(':'); colon != std::string::npos && rest.find(':', colon + 1) == std::string::npos) {
        t.host = rest.substr(0, colon);
        t.port = parsePort(rest.substr(colon + 1), text);
    } else {
        t.host = rest;  // plain name, alias, or a bare IPv6 address (several ':')
    }
    checkHostChars(t.host, text);
    return t;
}

std::string knownHostsName(const std::string& host, int port) {
    if (port == 0 || port == 22) return host;
    return "[" + host + "]:" + std::to_string(port);
}

}  // namespace npuwb::remote
