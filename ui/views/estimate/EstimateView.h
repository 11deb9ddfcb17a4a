#pragma once
// The Estimate tab: the board-less cost model for the chosen chip (Target toolbar), run on a worker by Estimate
// (F6): totals (time, FPS, CPU fallbacks), the per-layer estimated time chart and the DDR-vs-NPU cycles chart, and
// below them the per-layer table in RKNN's eval_perf columns. Every layer goes by its ID in the Layers table (bars,
// tooltips, table), so it reads the same in every tab. Clicking a layer in a chart or the table selects the ONNX
// nodes it covers (several for a fused layer) everywhere; charts and table follow the shared selection.
#include <QStringList>

#include <memory>
#include <vector>

#include "core/WorkbenchView.h"
#include "models/LayerFilterProxy.h"
#include "jobs/EstimateJob.h"

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace npuwb::ui {

class CyclesChart;
class EstimateTableModel;
class EstimateTimeChart;

class EstimateView : public WorkbenchView {
    Q_OBJECT
public:
    EstimateView(Workbench& workbench, QWidget* parent);

    QAction* estimateAction() const { return estimateAction_; }
    QList<ViewAction> viewActions() const override;
    bool startFromCommandLine() override;

    void setResult(std::shared_ptr<const EstimateResult> result);
    /// Back to the hint (a new model was opened, or the model changed).
    void clear(const QString& hint);
    const EstimateResult* result() const { return result_.get(); }
    EstimateTimeChart* timeChart() const { return timeChart_; }
    CyclesChart* cyclesChart() const { return cyclesChart_; }
    QLabel* totalsLabel() const { return totals_; }
    EstimateTableModel* tableModel() const { return tableModel_; }
    QSortFilterProxyModel* tableProxy() const { return tableProxy_; }
    QTableView* tableView() const { return table_; }
    /// Hover text of estimate row `row` in both charts: ID, name, op, target, time, cycles.
    QString layerToolTip(int row) const;
    /// Estimate rows covering any of these nodes.
    std::vector<int> rowsOfNodes(const QStringList& names) const;

public slots:
    /// Estimates the current model on the workbench's target (ignored while busy).
    void startEstimate();
    void highlightNodes(const QStringList& names);

signals:
    /// The user clicked a layer: the ONNX nodes it covers.
    void nodesClicked(const QStringList& names);
    void estimateShown(std::shared_ptr<const EstimateResult> result);

private:
    void start();
    void onFinished(std::shared_ptr<const EstimateResult> result);
    void onModelChanged();
    void onRowClicked(int row);
    void showDetails(const std::vector<int>& rows);
    void selectTableRows(const std::vector<int>& rows);
    /// Table and charts from result_, under the current Layers IDs.
    void showLayers();
    /// Greys the time chart's bars of the layers the shared filter rejects.
    void applyFilterToChart();
    /// Estimate row `row` as the shared filter reads it: the op type of its anchor ONNX node when known.
    LayerFilterProxy::RowLayer filterRow(int row) const;
    void onTableRowChanged();
    void updateAction();

    EstimateJob* job_;
    QAction* estimateAction_;
    std::shared_ptr<const EstimateResult> result_;
    QLabel* totals_;
    QLabel* details_;
    EstimateTimeChart* timeChart_;
    CyclesChart* cyclesChart_;
    EstimateTableModel* tableModel_;
    LayerFilterProxy* tableProxy_;
    std::vector<QString> anchorOps_;  // per estimate row: the ONNX op type of its first node
    QTableView* table_;
    bool followingSelection_ = false;
    std::shared_ptr<const Model> estimated_;  // what the running or last estimate was of  // the table is being set from the shared selection: do not echo it back
};

}  // namespace npuwb::ui
