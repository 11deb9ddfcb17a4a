#include "views/graph/GraphFilter.h"

#include <QHash>

#include "models/LayerFilter.h"
#include "views/graph/GraphColoring.h"

namespace npuwb::ui {

std::vector<bool> nodesMatchingFilter(const GraphData& data, const LayerFilter& filter, const Report* run,
                                      const Report* estimate) {
    std::vector<bool> matches(data.nodes.size(), true);
    if (!filter.isActive()) return matches;
    const QHash<QString, const LayerRow*> runRows = run ? rowsByNode(*run) : QHash<QString, const LayerRow*>();
    const QHash<QString, const LayerRow*> estimateRows =
        estimate ? rowsByNode(*estimate) : QHash<QString, const LayerRow*>();
    for (size_t v = 0; v < data.nodes.size(); ++v) {
        const GraphNodeInfo& node = data.nodes[v];
        if (node.kind != GraphNodeInfo::Kind::Op) {
            matches[v] = false;
            continue;
        }
        const LayerRow* measured = runRows.value(node.name);
        const LayerRow* estimated = estimateRows.value(node.name);
        const LayerRow* placed = estimated ? estimated : measured;
        const QString target = placed ? QString::fromStdString(placed->target) : QString();
        const double timeUs = measured ? measured->timeUs : estimated ? estimated->timeUs : -1.0;
        matches[v] = filter.matches(node.opType, target, node.name, timeUs);
    }
    return matches;
}

}  // namespace npuwb::ui
