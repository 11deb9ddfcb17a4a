#pragma once
// The sortable, filterable per-layer table. Emits layerClicked when the user picks a row and follows the
// shared selection through highlightLayer.
#include <QStringList>
#include <QWidget>

#include "models/LayerFilterProxy.h"

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace npuwb::ui {

class LayerFilter;
class LayerFilterProxy;
class LayerTableModel;

class LayerTableView : public QWidget {
    Q_OBJECT
public:
    explicit LayerTableView(LayerTableModel* model, QWidget* parent = nullptr);

    QTableView* tableView() const { return table_; }
    QSortFilterProxyModel* proxyModel() const { return proxy_; }
    QLineEdit* filterEdit() const { return filter_; }

    /// Hides the rows the shared filter rejects, from now on.
    void setLayerFilter(const LayerFilter* filter);

public slots:
    /// Selects and reveals the row of this layer (-1 clears); does not emit layerClicked.
    void highlightLayer(int id);
    /// Also selects the rows of every named node (a fused layer, a finding); one name or none is highlightLayer's.
    void highlightNodes(const QStringList& names);

signals:
    void layerClicked(int id);

private:
    void onCurrentRowChanged();
    void onModelReset();

    LayerTableModel* model_;
    LayerFilterProxy* proxy_;
    QTableView* table_;
    QLineEdit* filter_;
    bool updatingFromSelection_ = false;
};

}  // namespace npuwb::ui
