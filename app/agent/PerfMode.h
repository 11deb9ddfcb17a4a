#pragma once
// `npuwb-agent perf-mode on|off` (RKNN SDK user guide V2.5.0, 5.2.1.1): fixed, highest clocks make measurements
// comparable.
// "on" remembers every cpufreq/devfreq governor in a state file (~/.cache/npuwb/perf-mode.json, written atomically
// before anything changes), then sets each to "performance"; "off" restores them and removes the state file.
// Without permission it refuses naming the file and changes nothing (partial changes are rolled back).
#include <nlohmann/json.hpp>
#include <string>

#include "BoardFiles.h"
#include "npuwb/Error.h"

namespace npuwb::agent {

/// A governor file (or the state file) the agent may not write: reported as kind "PermissionDenied".
class PermissionDenied : public Error {
public:
    explicit PermissionDenied(const std::string& message) : Error(ErrorKind::Io, message) {}
};

/// $XDG_CACHE_HOME/npuwb/perf-mode.json, else $HOME/.cache/npuwb/perf-mode.json.
std::string perfModeStateFile();
nlohmann::json perfModeOn(const BoardFiles& files, const std::string& stateFile);
nlohmann::json perfModeOff(const BoardFiles& files, const std::string& stateFile);

}  // namespace npuwb::agent
