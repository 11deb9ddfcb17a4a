#pragma once
// The layer the user is looking at, shared by every view: picking a row in the table highlights its bar in
// the chart and vice versa, without the views knowing each other. Views that think in ONNX node names (the
// estimate's fused layers, an advisor finding) select by names; the selection maps names and layer ids both ways.
// It also owns the numbering: a layer keeps the ID it had when the model opened (npuwb/LayerIds.h) through runs,
// edits and every view, and a node a rewrite made gets a fresh number instead of another layer's.
#include <QHash>
#include <QObject>
#include <QStringList>

#include <vector>

#include "npuwb/LayerIds.h"
#include "npuwb/Report.h"

namespace npuwb::ui {

class LayerSelection : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    /// LayerRow::id of the selected layer (the first resolvable one of a multi-node selection), -1 when none.
    int selectedLayer() const { return selected_; }
    /// Node names of the selection: one for a layer, several for a fused layer or a finding.
    QStringList selectedNodes() const { return nodes_; }
    /// A model was opened: its nodes are numbered from here on (nullptr for a compiled model, whose reports bring
    /// the runtime's own IDs).
    void setModel(const Graph* opened);
    /// Gives rows (static, profiled, estimated) their layers' IDs and learns their names. Without a model graph the
    /// rows keep their IDs.
    void numberRows(std::vector<LayerRow>& rows);
    /// The ID of the layer of that name; a name the model did not have gets the next free number (-1 without a
    /// model graph when the name is unknown).
    int numberLayer(const QString& name);
    int layerOfNode(const QString& name) const { return idOfName_.value(name, -1); }

public slots:
    /// Emits only on change, so views that echo the selection back do not loop.
    void selectLayer(int id);
    /// Selects several nodes at once; layerSelected follows with the first node that is a known layer.
    void selectNodes(const QStringList& names);
    void clear() { selectNodes({}); }

signals:
    void layerSelected(int id);
    void nodesSelected(const QStringList& names);

private:
    int selected_ = -1;
    QStringList nodes_;
    QHash<QString, int> idOfName_;
    QHash<int, QString> nameOfId_;
    LayerIds ids_;
    bool hasGraph_ = false;

    void learn(const QString& name, int id);
};

}  // namespace npuwb::ui
