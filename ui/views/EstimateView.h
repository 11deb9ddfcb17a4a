#pragma once
// The Estimate tab: totals (time, FPS, CPU fallbacks) for the chosen chip, the per-layer estimated time chart and
// the DDR-vs-NPU cycles chart. Clicking a layer in either chart emits nodesClicked with the ONNX nodes the layer
// covers (several for a fused layer); highlightNodes follows the shared selection.
#include <QStringList>
#include <QWidget>

#include <memory>
#include <vector>

#include "jobs/EstimateJob.h"

class QLabel;

namespace npuwb::ui {

class CyclesChart;
class EstimateTimeChart;

class EstimateView : public QWidget {
    Q_OBJECT
public:
    explicit EstimateView(QWidget* parent = nullptr);

    void setResult(std::shared_ptr<const EstimateResult> result);
    /// Back to the hint (a new model was opened, or the model changed).
    void clear(const QString& hint);
    const EstimateResult* result() const { return result_.get(); }
    EstimateTimeChart* timeChart() const { return timeChart_; }
    CyclesChart* cyclesChart() const { return cyclesChart_; }
    QLabel* totalsLabel() const { return totals_; }
    /// Estimate rows covering any of these nodes.
    std::vector<int> rowsOfNodes(const QStringList& names) const;

public slots:
    void highlightNodes(const QStringList& names);

signals:
    void nodesClicked(const QStringList& names);

private:
    void onRowClicked(int row);
    void showDetails(const std::vector<int>& rows);

    std::shared_ptr<const EstimateResult> result_;
    QLabel* totals_;
    QLabel* details_;
    EstimateTimeChart* timeChart_;
    CyclesChart* cyclesChart_;
};

}  // namespace npuwb::ui
