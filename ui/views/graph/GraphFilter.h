#pragma once
// Which graph nodes the shared LayerFilter matches. A node reads as a layer through the reports: its time from the
// last run first, its place (NPU/CPU) from the estimate first, as the colouring does; a fused node takes the figures
// of the layer it is fused into, but keeps its own op type. The graph's inputs and outputs are not layers.
#include <vector>

#include "npuwb/Report.h"
#include "views/graph/GraphData.h"

namespace npuwb::ui {

class LayerFilter;

/// One flag per GraphData node; all true when the filter is inactive.
std::vector<bool> nodesMatchingFilter(const GraphData& data, const LayerFilter& filter, const Report* run,
                                      const Report* estimate);

}  // namespace npuwb::ui
