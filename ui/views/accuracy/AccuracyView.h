#pragma once
// The Accuracy tab: Quantize… (Ctrl+Shift+Q) opens the Quantize dialog; its result shows here as the per-layer
// cosine of the quantized model against float (entire = quantized all the way, single = only this layer quantized)
// in a chart, and the sortable per-layer table with an editable precision per layer. The chart's x axis is the
// table's row order (by layer ID, the execution order, unless the table is sorted otherwise), ticks naming layer IDs,
// and a point's tooltip gives the layer's figures. Re-evaluate rebuilds the
// quantized model with those precisions on a worker and analyses it again, without recalibrating. An accuracy
// report (npuwb-cli accuracy --json) can be shown too. Clicking a layer selects it everywhere.
#include <QStringList>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/WorkbenchView.h"
#include "npuwb/Report.h"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QLabel;
class QMouseEvent;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace npuwb::ui {

class AccuracyModel;
class QuantizeDialog;
class QuantizeJob;
struct QuantizeOutcome;

class AccuracyView : public WorkbenchView {
    Q_OBJECT
public:
    AccuracyView(Workbench& workbench, QWidget* parent);

    QAction* quantizeAction() const { return quantizeAction_; }
    QList<ViewAction> viewActions() const override;
    /// The Quantize dialog for the current model (nullptr when no model or busy); it deletes itself on close.
    QuantizeDialog* openQuantizeDialog();
    /// Quantizes with the dialog's remembered settings on this data set, without asking where to save.
    void quantizeWithDataset(const QString& dataset);
    /// Shows an accuracy report (npuwb-cli accuracy --json); false (and a message) when it cannot be read.
    bool showAccuracyReport(const QString& path);
    void showQuantization(std::shared_ptr<const QuantizeOutcome> outcome);
    /// The re-evaluation worker.
    QuantizeJob* job() const { return job_; }

    /// Shows a result; `summary` is one line of rich text above the chart (scheme, samples, what auto-hybrid kept).
    void setAccuracy(const AccuracySection& accuracy, const QString& summary);
    void clear(const QString& hint);
    AccuracyModel* model() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QTableView* table() const { return table_; }
    QCustomPlot* plot() const { return plot_; }
    QPushButton* reevaluateButton() const { return reevaluate_; }
    QLabel* summaryLabel() const { return summary_; }
    /// Shown instead of the (empty) plot until there is an analysis.
    QLabel* placeholder() const { return placeholder_; }
    /// The table's row at the chart's x `position` (its source row in the model), -1 for none.
    int sourceRowAt(int position) const;
    /// What hovering the chart's point at x `position` shows: layer ID, name, op, cosines, precision.
    QString pointToolTip(int position) const;

public slots:
    void highlightNodes(const QStringList& names);

signals:
    void nodesClicked(const QStringList& names);
    /// A quantization (or a re-evaluation of it) is on screen.
    void quantizationShown(std::shared_ptr<const QuantizeOutcome> outcome);

private:
    void showLayerIds();
    void reevaluate();
    void clearQuantization();  // a new or changed model: the old analysis no longer applies
    void onJobEnded();
    void selectRow(int row);
    /// Points in the table's row order, ticks labelled with layer IDs (again after a sort or new IDs).
    void replotInTableOrder();
    void updateTicks();
    void onPlotClicked(QMouseEvent* event);
    void onPlotHovered(QMouseEvent* event);
    void updateReevaluate();

    QuantizeJob* job_;
    QAction* quantizeAction_;
    std::shared_ptr<const QuantizeOutcome> outcome_;
    AccuracyModel* model_;
    QSortFilterProxyModel* proxy_;
    QLabel* summary_;
    QCustomPlot* plot_;
    QLabel* placeholder_;
    QCPGraph* entire_;
    QCPGraph* single_;
    QCPItemStraightLine* marker_;
    QTableView* table_;
    QPushButton* reevaluate_;
    std::vector<int> sourceOfX_;  // the model row plotted at each x (the table's row order)
};

}  // namespace npuwb::ui
