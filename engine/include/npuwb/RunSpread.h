#pragma once
// Whether a run's times can be trusted: when the median of the timed runs is far above the fastest one, something
// else had the cores (another build, a browser, a test suite) and the per-layer medians carry that noise. The report
// says so in words, with the load average the machine had when the run started, instead of showing the figures as
// if they were clean.

#include <optional>
#include <string>

#include "npuwb/Report.h"

namespace npuwb {

/// Median over fastest run above which a run counts as disturbed. A quiet machine stays within 1.2 (a few percent
/// of cache and frequency noise); a busy one reaches 2 to 20.
inline constexpr double kBusySpreadRatio = 1.5;

/// The 1-minute load average of this machine (getloadavg), nullopt where the system has none.
std::optional<double> systemLoadAverage();

/// A warning when `report` is a measured run whose spread says the machine was busy ("the machine was busy: the
/// median 264 ms is 14.0x the fastest run (18.8 ms); load average 3.1 on 2 cores when it started; run again on a
/// quiet machine for figures to compare"), else empty. Estimates and single runs have no spread: empty.
std::string busyMachineWarning(const Report& report);

}  // namespace npuwb
