#pragma once
// Board telemetry as the agent reports it during a remote run (NPU load, CPU/NPU/DDR clocks, memory).
#include <optional>

#include "npuwb/AgentProtocol.h"

namespace npuwb::ui {

/// One agent telemetry event (AgentTelemetry) as the chart plots it; absent values stay empty.
struct TelemetrySample {
    double seconds = 0.0;
    std::optional<double> npuLoadPercent;
    std::optional<double> cpuMHz, npuMHz, ddrMHz;
    std::optional<double> rssMiB;
};
TelemetrySample telemetrySampleFrom(const AgentTelemetry& event);

}  // namespace npuwb::ui
