#pragma once
// Identity of the agent in the SSH protocol (app/agent/README.md): the client checks `protocol`.
namespace npuwb::agent {

inline constexpr const char* kAgentName = "npuwb-agent";
inline constexpr const char* kAgentVersion = NPUWB_VERSION;
inline constexpr int kProtocolVersion = 1;

}  // namespace npuwb::agent
