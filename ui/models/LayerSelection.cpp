#include "models/LayerSelection.h"

namespace npuwb::ui {

void LayerSelection::setLayers(const std::vector<LayerRow>& layers) {
    idOfName_.clear();
    nameOfId_.clear();
    for (const LayerRow& row : layers) {
        const QString name = QString::fromStdString(row.fullName);
        idOfName_.insert(name, int(row.id));
        nameOfId_.insert(int(row.id), name);
    }
}

void LayerSelection::selectLayer(int id) {
    if (id == selected_ && nodes_.size() <= 1) return;
    selected_ = id;
    const QString name = nameOfId_.value(id);
    nodes_ = name.isEmpty() ? QStringList() : QStringList{name};
    emit layerSelected(id);
    emit nodesSelected(nodes_);
}

void LayerSelection::selectNodes(const QStringList& names) {
    if (names == nodes_ && (!names.isEmpty() || selected_ < 0)) return;
    nodes_ = names;
    int id = -1;
    for (const QString& name : names)
        if ((id = layerOfNode(name)) >= 0) break;
    const bool changed = id != selected_;
    selected_ = id;
    if (changed) emit layerSelected(id);
    emit nodesSelected(nodes_);
}

}  // namespace npuwb::ui
