#pragma once
// The per-layer table with the columns of RKNN's perf-detail output (cycles, MacUsage), its totals and the
// op-type ranking; shared by `estimate`, `import-log` and `profile MODEL.rknn`.
#include <string>

#include "npuwb/Report.h"

namespace npuwb::cli {

struct PerfTableOptions {
    int top = 0;              // > 0: only the N slowest layers
    std::string summaryLine;  // printed after the totals (e.g. the estimate's FPS line)
};

void printPerfDetailTable(const Report& report, const PerfTableOptions& options = {});

}  // namespace npuwb::cli
