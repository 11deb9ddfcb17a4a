#pragma once
// The agent's only channel to the client: one JSON value per line on stdout, flushed per line, from any thread.
// A failed write (the SSH channel is gone) raises the stop flag so a run ends instead of computing for nobody.
// What the lines say is the wire format's (npuwb/AgentProtocol.h).
#include <nlohmann/json.hpp>

#include "npuwb/AgentProtocol.h"

namespace npuwb::agent {

/// Writes `value` as one line and flushes; thread-safe. Returns false when stdout is gone.
bool emitLine(const nlohmann::json& value);
/// One event line.
bool emitEvent(const AgentEvent& event);

}  // namespace npuwb::agent
