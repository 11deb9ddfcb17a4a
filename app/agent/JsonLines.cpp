#include "JsonLines.h"

#include <cstdio>
#include <mutex>

#include "StopSignals.h"

namespace npuwb::agent {

bool emitLine(const nlohmann::json& value) {
    static std::mutex mutex;
    // Invalid UTF-8 (a file name from the board) must not turn into an exception halfway through a line.
    const std::string line = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    std::lock_guard lock(mutex);
    bool ok = std::fwrite(line.data(), 1, line.size(), stdout) == line.size() && std::fflush(stdout) == 0;
    if (!ok) requestStop(SIGPIPE);
    return ok;
}

bool emitEvent(const AgentEvent& event) { return emitLine(toJson(event)); }

}  // namespace npuwb::agent
