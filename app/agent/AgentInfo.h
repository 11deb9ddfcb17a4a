#pragma once
// The agent's own version; its name and protocol version are the wire format's (npuwb/AgentProtocol.h).
#include "npuwb/AgentProtocol.h"

namespace npuwb::agent {

inline constexpr const char* kAgentVersion = NPUWB_VERSION;

}  // namespace npuwb::agent
