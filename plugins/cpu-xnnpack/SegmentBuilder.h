#pragma once
// Turns a run of claimed nodes into one prepared XNNPACK segment: picks the fusion groups, imports boundary
// inputs, lowers every group and finds which values the rest of the graph still needs.
#include <map>
#include <set>

#include "XnnSegment.h"

namespace npuwb::xnn {

struct GraphUses {
    std::map<std::string, std::vector<size_t>> consumers;  // value -> top-level nodes reading it
    std::set<std::string> external;  // graph outputs and names read inside subgraph bodies
};
GraphUses collectUses(const Graph& graph);

/// The name the report uses for a node: its name, or its first output when unnamed.
std::string nodeLabel(const Node& node);

/// The backend's capability query for `node` with the types and shapes the graph query knows.
Capability supportsInGraph(const Backend& backend, const GraphQuery& query, const Node& node);

/// False (with the node to exclude and why) when XNNPACK refuses one of the nodes.
bool buildSegment(const GraphQuery& query, const std::vector<size_t>& run, const GraphUses& uses,
                  const std::shared_ptr<pthreadpool>& pool, SegmentPlan& plan, size_t& failedNode, std::string& why);

}  // namespace npuwb::xnn
