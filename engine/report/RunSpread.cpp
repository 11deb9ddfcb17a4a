#include "npuwb/RunSpread.h"

#include <cstdio>
#include <cstdlib>

namespace npuwb {

std::optional<double> systemLoadAverage() {
    double load[1] = {0.0};
    if (getloadavg(load, 1) != 1) return std::nullopt;
    return load[0];
}

namespace {

std::string microsText(double us) {
    char text[48];
    if (us >= 1000.0)
        std::snprintf(text, sizeof text, "%.1f ms", us / 1000.0);
    else
        std::snprintf(text, sizeof text, "%.1f us", us);
    return text;
}

}  // namespace

std::string busyMachineWarning(const Report& report) {
    const RunStats& run = report.run;
    if (report.kind != "profile" || run.runs < 3 || run.minUs <= 0.0) return {};
    const double ratio = run.medianUs / run.minUs;
    if (ratio < kBusySpreadRatio) return {};
    char text[256];
    std::snprintf(text, sizeof text, "the machine was busy: the median %s is %.1fx the fastest run (%s)",
                  microsText(run.medianUs).c_str(), ratio, microsText(run.minUs).c_str());
    std::string warning = text;
    if (const auto& load = report.environment.loadAverage) {
        std::snprintf(text, sizeof text, "; load average %.1f on %lld cores when it started", *load,
                      static_cast<long long>(report.environment.cores));
        warning += text;
    }
    return warning + "; run again on a quiet machine for figures to compare";
}

}  // namespace npuwb
