#include "models/LayerSelection.h"

#include <exception>

namespace npuwb::ui {

void LayerSelection::setModel(const Graph* opened) {
    idOfName_.clear();
    nameOfId_.clear();
    ids_ = LayerIds();
    hasGraph_ = false;
    if (!opened) return;
    try {
        ids_ = LayerIds(*opened);
        hasGraph_ = true;
    } catch (const std::exception&) {
        return;  // a graph with a cycle has no order to number by; its rows keep the IDs they come with
    }
    for (const auto& [name, opType] : ids_.modelLayerNames())
        learn(QString::fromStdString(name), int(*ids_.find(name)));
}

void LayerSelection::learn(const QString& name, int id) {
    idOfName_.insert(name, id);
    if (!nameOfId_.contains(id)) nameOfId_.insert(id, name);
}

void LayerSelection::numberRows(std::vector<LayerRow>& rows) {
    if (hasGraph_) ids_.renumber(rows);
    for (const LayerRow& row : rows) learn(QString::fromStdString(row.fullName), int(row.id));
}

int LayerSelection::numberLayer(const QString& name) {
    if (!hasGraph_) return layerOfNode(name);
    const int id = int(ids_.idOf(name.toStdString()));
    learn(name, id);
    return id;
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
