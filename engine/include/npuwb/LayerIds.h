#pragma once
// Layer IDs that stay put. A layer's ID is its node's position in the model as opened (topological order): the
// Layers table before a run, the profile after it, the estimate, the accuracy table and every report number a node
// the same. Nodes the opened model did not have (a rewrite made them: a fused HardSwish, a merged Reshape) are
// numbered after the model's nodes, in the order first met, so no two layers ever share an ID.

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "npuwb/Report.h"
#include "npuwb/Session.h"
#include "npuwb/ir/Graph.h"

namespace npuwb {

class LayerIds {
public:
    LayerIds() = default;
    /// Numbers the graph's nodes by their topological position, named by Node::layerName().
    explicit LayerIds(const Graph& opened);

    /// The ID of the layer named `layerName`; a name not met before gets the next free number.
    int64_t idOf(const std::string& layerName);
    std::optional<int64_t> find(const std::string& layerName) const;
    /// How many layers the opened model has (IDs 0 .. modelLayers() - 1).
    int64_t modelLayers() const { return modelLayers_; }
    /// The opened model's layers in ID order: (name, op type).
    const std::vector<std::pair<std::string, std::string>>& modelLayerNames() const { return names_; }

    /// Gives every row the ID of its layer name (any report's layers: profile, estimate, accuracy).
    void renumber(std::vector<LayerRow>& rows);

private:
    std::unordered_map<std::string, int64_t> ids_;
    std::vector<std::pair<std::string, std::string>> names_;
    int64_t modelLayers_ = 0;
    int64_t next_ = 0;
};

/// Gives a profile's rows the layer IDs of the model it ran (`opened`, before the session's exact rewrites) and
/// lists the model's nodes that ran as no step of their own (Report::removedLayers), each with the rewrite that
/// removed it.
void numberProfileLayers(Report& profile, const Graph& opened, const std::vector<ExecutionRewrite>& rewrites);

}  // namespace npuwb
