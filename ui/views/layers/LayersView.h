#pragma once
// The Layers tab: a header naming where the rows come from and the input shapes they were made with, the sortable,
// filterable per-layer table and the per-layer time chart. Before a run the table lists the model's layers with
// shapes and MACs; a run (local, on a board, or an imported vendor log) fills in the times. Table and chart follow
// the shared selection.
#include "core/WorkbenchView.h"

class QLabel;
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
    /// The model or run the rows are from and the input shapes used (the same words as the other views' headers).
    QLabel* headerLabel() const { return header_; }

    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;

private:
    void showModelLayers();
    void showReport();
    void updateHeader();

    QLabel* header_;
    LayerTableModel* model_;
    LayerTableView* table_;
    LayerTimeChart* chart_;
    QSplitter* splitter_;
};

}  // namespace npuwb::ui
