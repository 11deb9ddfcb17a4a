#pragma once
// The per-layer table with the columns of RKNN's perf-detail output (cycles, MacUsage), its totals and the
// op-type ranking; shared by `estimate`, `import-log` and `profile MODEL.rknn`.
#include <map>
#include <string>
#include <vector>

#include "npuwb/Report.h"

namespace npuwb::cli {

struct PerfTableOptions {
    int top = 0;              // > 0: only the N slowest layers
    std::string summaryLine;  // printed after the totals (e.g. the estimate's FPS line)
};

void printPerfDetailTable(const Report& report, const PerfTableOptions& options = {});

/// The rows a per-layer table prints: a fused kernel is one row, its first node's (LayerRow::fusedNodes), holding
/// the kernel's time once; its other nodes (LayerRow::fusedInto) keep their IDs and are left out here.
std::vector<const LayerRow*> layerRowsOf(const Report& report);
/// Rows by fullName, for fusedOpType.
std::map<std::string, const LayerRow*> rowsByName(const Report& report);
/// The notes under a per-layer table: nodes that ran inside a fused layer (`folded` of them) and the model's nodes
/// removed before the run (Report::removedLayers), counted per rewrite.
void printLayerNotes(const Report& report, size_t folded);
/// A fused layer's op types joined in graph order ("Conv+Relu"), as the vendor names fused layers; else its own.
std::string fusedOpType(const LayerRow& row, const std::map<std::string, const LayerRow*>& byName);
/// A fused layer's MACs (its nodes' sum) and outputs (its last node's); else the row's own.
int64_t fusedMacs(const LayerRow& row, const std::map<std::string, const LayerRow*>& byName);
const std::vector<std::vector<int64_t>>& fusedOutputShapes(const LayerRow& row,
                                                           const std::map<std::string, const LayerRow*>& byName);

}  // namespace npuwb::cli
