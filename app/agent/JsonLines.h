#pragma once
// The agent's only channel to the client: one JSON value per line on stdout, flushed per line, from any thread.
// A failed write (the SSH channel is gone) raises the stop flag so a run ends instead of computing for nobody.
#include <nlohmann/json.hpp>
#include <string>

namespace npuwb::agent {

/// Writes `value` as one line and flushes; thread-safe. Returns false when stdout is gone.
bool emitLine(const nlohmann::json& value);
/// {"event":"error","kind":KIND,"message":MESSAGE}
nlohmann::json errorEvent(const std::string& kind, const std::string& message);

}  // namespace npuwb::agent
