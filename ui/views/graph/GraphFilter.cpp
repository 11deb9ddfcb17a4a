#include "views/graph/GraphFilter.h"

#include <QHash>

#include "models/LayerFilter.h"

namespace npuwb::ui {

namespace {
/// The layer row of every node name, a fused layer's nodes included.
QHash<QString, const LayerRow*> rowsByNode(const Report* report) {
    QHash<QString, const LayerRow*> rows;
    if (!report) return rows;
    for (const LayerRow& row : report->layers) {
        rows.insert(QString::fromStdString(row.fullName), &row);
        for (const std::string& fused : row.fusedNodes) rows.insert(QString::fromStdString(fused), &row);
    }
    return rows;
}
}  // namespace

std::vector<bool> nodesMatchingFilter(const GraphData& data, const LayerFilter& filter, const Report* run,
                                      const Report* estimate) {
    std::vector<bool> matches(data.nodes.size(), true);
    if (!filter.isActive()) return matches;
    const QHash<QString, const LayerRow*> runRows = rowsByNode(run);
    const QHash<QString, const LayerRow*> estimateRows = rowsByNode(estimate);
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
