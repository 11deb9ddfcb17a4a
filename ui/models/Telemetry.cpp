#include "models/Telemetry.h"

#include <algorithm>

namespace npuwb::ui {

TelemetrySample telemetrySampleFrom(const AgentTelemetry& e) {
    TelemetrySample s;
    s.seconds = e.tMs / 1000.0;
    if (e.npuLoad && !e.npuLoad->empty()) {
        double sum = 0.0;
        for (int core : *e.npuLoad) sum += core;
        s.npuLoadPercent = sum / static_cast<double>(e.npuLoad->size());
    }
    for (const auto& khz : e.cpuFreqKHz)
        if (khz) s.cpuMHz = std::max(s.cpuMHz.value_or(0.0), static_cast<double>(*khz) / 1e3);
    if (e.npuFreqHz) s.npuMHz = static_cast<double>(*e.npuFreqHz) / 1e6;
    if (e.ddrFreqHz) s.ddrMHz = static_cast<double>(*e.ddrFreqHz) / 1e6;
    s.rssMiB = static_cast<double>(e.rssBytes) / (1024.0 * 1024.0);
    return s;
}

}  // namespace npuwb::ui
