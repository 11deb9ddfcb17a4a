#pragma once
// Board telemetry as the agent reports it during a remote run (NPU load, CPU/NPU/DDR clocks, memory).
#include <optional>

#include <nlohmann/json.hpp>

namespace npuwb::ui {

/// One agent telemetry event ({"event":"telemetry","tMs":..,"npuLoad":[..],"cpuFreqKHz":[..],...}); absent
/// values stay empty.
struct TelemetrySample {
    double seconds = 0.0;
    std::optional<double> npuLoadPercent;
    std::optional<double> cpuMHz, npuMHz, ddrMHz;
    std::optional<double> rssMiB;
};
TelemetrySample telemetryFromJson(const nlohmann::json& event);

}  // namespace npuwb::ui
