#pragma once
// The Accuracy tab: per-layer cosine of the quantized model against float (entire = quantized all the way,
// single = only this layer quantized) as a chart, the sortable per-layer table with an editable precision
// per layer, and Re-evaluate: rebuild the quantized model with those precisions and analyse again.
// Clicking a layer (chart or table) emits nodesClicked; highlightNodes follows the shared selection.
#include <QStringList>
#include <QWidget>

#include <map>
#include <string>

#include "npuwb/Report.h"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QLabel;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace npuwb::ui {

class AccuracyModel;

class AccuracyView : public QWidget {
    Q_OBJECT
public:
    explicit AccuracyView(QWidget* parent = nullptr);

    /// Shows a result; `summary` is one line of rich text above the chart (scheme, samples, what auto-hybrid kept).
    void setAccuracy(const AccuracySection& accuracy, const QString& summary);
    void clear(const QString& hint);
    AccuracyModel* model() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QTableView* table() const { return table_; }
    QCustomPlot* plot() const { return plot_; }
    QPushButton* reevaluateButton() const { return reevaluate_; }
    QLabel* summaryLabel() const { return summary_; }
    /// Enables Re-evaluate only when there is a quantization to rebuild and no job runs.
    void setReevaluateAvailable(bool available);

public slots:
    void highlightNodes(const QStringList& names);

signals:
    void nodesClicked(const QStringList& names);
    /// Layer name -> precision name, the user's overrides.
    void reevaluateRequested(const std::map<std::string, std::string>& overrides);

private:
    void selectRow(int row);
    void onPlotClicked(QMouseEvent* event);
    void updateReevaluate();

    AccuracyModel* model_;
    QSortFilterProxyModel* proxy_;
    QLabel* summary_;
    QCustomPlot* plot_;
    QCPGraph* entire_;
    QCPGraph* single_;
    QCPItemStraightLine* marker_;
    QTableView* table_;
    QPushButton* reevaluate_;
    bool available_ = false;
};

}  // namespace npuwb::ui
