#include "models/Telemetry.h"

#include <algorithm>

namespace npuwb::ui {

using nlohmann::json;

namespace {
std::optional<double> number(const json& j, const char* key) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
    return j[key].get<double>();
}
}  // namespace

TelemetrySample telemetryFromJson(const json& e) {
    TelemetrySample s;
    s.seconds = number(e, "tMs").value_or(0.0) / 1000.0;
    if (e.contains("npuLoad") && e["npuLoad"].is_array() && !e["npuLoad"].empty()) {
        double sum = 0.0;
        int n = 0;
        for (const json& core : e["npuLoad"])
            if (core.is_number()) sum += core.get<double>(), ++n;
        if (n > 0) s.npuLoadPercent = sum / n;
    }
    if (e.contains("cpuFreqKHz") && e["cpuFreqKHz"].is_array())
        for (const json& khz : e["cpuFreqKHz"])
            if (khz.is_number()) s.cpuMHz = std::max(s.cpuMHz.value_or(0.0), khz.get<double>() / 1e3);
    if (auto hz = number(e, "npuFreqHz")) s.npuMHz = *hz / 1e6;
    if (auto hz = number(e, "ddrFreqHz")) s.ddrMHz = *hz / 1e6;
    if (auto rss = number(e, "rssBytes")) s.rssMiB = *rss / (1024.0 * 1024.0);
    return s;
}

}  // namespace npuwb::ui
