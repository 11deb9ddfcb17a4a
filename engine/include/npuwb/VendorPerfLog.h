#pragma once
// Rockchip's per-layer perf text (rknn_query RKNN_QUERY_PERF_DETAIL, RKNN_LOG_LEVEL=4, toolkit2's eval_perf(),
// toolkit1's eval_perf()) parsed into the shared Report, so a vendor log reads like a local run.
//
// Tolerates the variants that are out there: the combined `Cycles(DDR/NPU/Total)` column (runtime 1.6+) and the
// separate `DDR Cycles / NPU Cycles / Total Cycles` columns with `WorkLoad(0/1/2)-ImproveTherical`, `Task Number`,
// `Lut Number`, ... (1.5), toolkit1's `Layer ID  Name  Operator  Uid  Time(us)` with wrapped names, log prefixes
// (`D RKNN: [12:00:00.000] `), indentation, separator and box-drawing lines, and CRLF line ends.
#include <optional>
#include <string>
#include <vector>

#include "npuwb/Report.h"

namespace npuwb {

/// One row of the "Operator Time Consuming Ranking" table (time per op type in one frame).
struct VendorOpRanking {
    std::string opType;
    int64_t calls = 0;
    double cpuUs = 0.0, gpuUs = 0.0, npuUs = 0.0, totalUs = 0.0;
    double ratioPercent = 0.0;
};

struct VendorPerfLog {
    std::string format;                // "rknn2" (one Cycles column), "rknn2-split-cycles" (1.5), "rknn-toolkit1"
    std::vector<LayerRow> layers;      // in log order
    std::optional<double> totalUs;     // "Total Operator Elapsed (Per Frame) Time(us)" or toolkit1 "Total Time(us)"
    std::optional<double> totalRwKB;   // "Total Memory Read/Write Per Frame Size(KB)" (or "RW Amount(MB)" x 1024)
    std::vector<VendorOpRanking> ranking;
    std::vector<std::string> warnings;  // e.g. rows elided with "...", no total line; each names the line
    double layerTimeSumUs() const;
};

/// Parses the text; `source` names it in errors ("log.txt:12: ..."). Throws Error(InvalidInput) when no table is
/// found or a row is malformed or cut short, naming the line.
VendorPerfLog parseRknnPerfLog(const std::string& text, const std::string& source);
/// Reads and parses a file (Error(Io) if unreadable).
VendorPerfLog loadRknnPerfLog(const std::string& path);

/// The log as a Report of kind "profile" (backend "rknpu"): per-layer rows, a run of the printed total (or the layer
/// sum when no total was printed), an op histogram. `source` becomes model.path. Layer ids become execution steps
/// (0, 1, ... in log order); VendorPerfLog::layers keeps the vendor's IDs.
Report reportFromRknnPerfLog(const VendorPerfLog& log, const std::string& source);

}  // namespace npuwb
