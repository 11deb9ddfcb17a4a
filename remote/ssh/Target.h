#pragma once
// Where a board is: `[user@]host[:port]`, `[user@][v6addr]:port`, or a ~/.ssh/config alias (resolved by libssh
// when connecting). Empty user / port 0 mean "from the ssh config, else the defaults" (current user, 22).
#include <string>

namespace npuwb::remote {

struct Target {
    std::string user;  // empty: ssh config User, else the local user name
    std::string host;  // name, address or ssh config alias
    int port = 0;      // 0: ssh config Port, else 22

    /// "user@host:port" with only the parts that were given, for messages.
    std::string display() const;
};

/// Parses `[user@]host[:port]` (an IPv6 address needs brackets when a port follows: `[::1]:2222`). Throws
/// Error(InvalidInput) naming the text for an empty host, a bad port or characters no host name has.
Target parseTarget(const std::string& text);

/// The host field known_hosts uses: `host` for port 22, `[host]:port` otherwise.
std::string knownHostsName(const std::string& host, int port);

}  // namespace npuwb::remote
