#include "npuwb/LayerIds.h"

#include <unordered_set>

namespace npuwb {

LayerIds::LayerIds(const Graph& opened) {
    for (size_t index : opened.topologicalOrder()) {
        const Node& node = opened.nodes[index];
        const std::string name = node.layerName();
        // Two nodes of one name (a malformed but runnable export) keep the first's ID: rows are matched by name.
        if (ids_.emplace(name, next_).second) {
            names_.emplace_back(name, node.opType);
            ++next_;
        }
    }
    modelLayers_ = next_;
}

int64_t LayerIds::idOf(const std::string& layerName) {
    auto [it, added] = ids_.emplace(layerName, next_);
    if (added) ++next_;
    return it->second;
}

std::optional<int64_t> LayerIds::find(const std::string& layerName) const {
    auto it = ids_.find(layerName);
    return it == ids_.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

void LayerIds::renumber(std::vector<LayerRow>& rows) {
    for (LayerRow& row : rows) row.id = idOf(row.fullName);
}

void numberProfileLayers(Report& profile, const Graph& opened, const std::vector<ExecutionRewrite>& rewrites) {
    LayerIds ids(opened);
    ids.renumber(profile.layers);
    std::unordered_set<std::string> ran;
    for (const LayerRow& row : profile.layers) ran.insert(row.fullName);
    std::unordered_map<std::string, std::string> rewriteOf;
    for (const ExecutionRewrite& rewrite : rewrites)
        for (const std::string& node : rewrite.nodes) rewriteOf.emplace(node, rewrite.pass);
    profile.removedLayers.clear();
    for (const auto& [name, opType] : ids.modelLayerNames()) {
        if (ran.count(name)) continue;
        auto by = rewriteOf.find(name);
        profile.removedLayers.push_back({*ids.find(name), name, opType,
                                         by != rewriteOf.end() ? by->second : std::string("an exact rewrite")});
    }
}

}  // namespace npuwb
