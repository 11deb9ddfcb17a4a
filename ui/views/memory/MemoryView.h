#pragma once
// The Memory tab: where the last run's memory goes. A header names the run (model, backend, threads, input
// shapes); the breakdown bars give weights, activation arena, lower bound, I/O, peak RSS and, for NPU runs, the
// runtime's own figures; the lifetime chart draws every activation tensor where the planner put it over the steps
// it lives, with the peak step, the arena and the lower bound, and the live bytes per step below; the table lists
// the tensors. Clicking a rectangle or a row selects the layer that makes the tensor everywhere; the view follows
// the shared selection by outlining that layer's tensors.
#include <memory>
#include <vector>

#include "core/WorkbenchView.h"
#include "npuwb/Report.h"

class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;

namespace npuwb::ui {

class LifetimeChart;
class MemoryBreakdownChart;
class TensorLifetimeModel;

class MemoryView : public WorkbenchView {
    Q_OBJECT
public:
    MemoryView(Workbench& workbench, QWidget* parent);

    void saveSettings(QSettings& settings) const override;
    void restoreSettings(QSettings& settings) override;

    QLabel* headerLabel() const { return header_; }
    MemoryBreakdownChart* breakdown() const { return breakdown_; }
    LifetimeChart* chart() const { return chart_; }
    TensorLifetimeModel* model() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QTableView* table() const { return table_; }
    /// "Filter: N of M tensors made by matching layers", hidden while the shared filter is inactive.
    QLabel* filterLabel() const { return filterNote_; }
    /// Tensor rows whose producing layer the shared filter matches (all rows while it is inactive).
    int matchingTensorCount() const { return matching_; }

public slots:
    void showReport();
    void highlightLayer(int id);

private:
    void clear(const QString& hint);
    void selectRow(int row);
    /// Dims the rectangles whose producing layer the shared filter rejects.
    void applyFilter();

    QLabel* header_;
    QLabel* filterNote_;
    int matching_ = 0;
    MemoryBreakdownChart* breakdown_;
    LifetimeChart* chart_;
    TensorLifetimeModel* model_;
    QSortFilterProxyModel* proxy_;
    QTableView* table_;
    QSplitter* splitter_;
    QSplitter* lower_;
};

}  // namespace npuwb::ui
