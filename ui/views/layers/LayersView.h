#pragma once
// The Layers tab: the sortable, filterable per-layer table above the per-layer time chart. Before a run the table
// lists the model's layers with shapes and MACs; a run (local, on a board, or an imported vendor log) fills in
// the times. Table and chart follow the shared selection.
#include "core/WorkbenchView.h"

class QSplitter;

namespace npuwb::ui {

class LayerTableModel;
class LayerTableView;
class LayerTimeChart;

class LayersView : public WorkbenchView {
    Q_OBJECT
public:
    LayersView(Workbench& workbench, QWidget* parent);

    LayerTableModel* tableModel() const { return model_; }
    LayerTableView* tableView() const { return table_; }
    LayerTimeChart* timeChart() const { return chart_; }

    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;

private:
    void showModelLayers();
    void showReport();

    LayerTableModel* model_;
    LayerTableView* table_;
    LayerTimeChart* chart_;
    QSplitter* splitter_;
};

}  // namespace npuwb::ui
