#pragma once
// Estimated time per layer as bars in execution order, NPU layers and CPU fallbacks in two colors, so the
// fallbacks (and what they cost) stand out. The x axis names each bar by its layer ID (the Layers table's, given
// with setLayers), hovering a bar shows its layer in a tooltip. Clicking a bar emits layerClicked with the estimate
// row; highlightRows outlines the bars of the shared selection.
#include <QPoint>
#include <QStringList>
#include <QWidget>

#include <functional>
#include <vector>

#include "npuwb/Report.h"

class QCustomPlot;
class QCPBars;
class QMouseEvent;

namespace npuwb::ui {

class EstimateTimeChart : public QWidget {
    Q_OBJECT
public:
    explicit EstimateTimeChart(QWidget* parent = nullptr);

    /// `ids[i]`: what the axis calls layers[i] ("16"); the row number when missing.
    void setLayers(const std::vector<LayerRow>& layers, const QStringList& ids = {});
    /// Rows whose flag is false are drawn grey in a "Filtered out" series (the shared LayerFilter); empty: all match.
    void setRowMatches(const std::vector<bool>& matches);
    /// What hovering estimate row `row` shows; the default names the row only.
    void setToolTipProvider(std::function<QString(int row)> provider) { toolTip_ = std::move(provider); }
    /// Estimate row of the bar column under `pixel` (plot coordinates), -1 when none.
    int rowAt(const QPoint& pixel) const;
    /// The tooltip hovering `pixel` shows, empty when no bar is there.
    QString toolTipAt(const QPoint& pixel) const;
    /// The axis label of estimate row `row`.
    QString tickLabel(int row) const { return row >= 0 && row < ids_.size() ? ids_[row] : QString::number(row); }
    QCustomPlot* plot() const { return plot_; }
    QCPBars* npuBars() const { return npu_; }
    QCPBars* cpuBars() const { return cpu_; }
    QCPBars* filteredOutBars() const { return dimmed_; }
    int barCount() const;
    std::vector<int> highlightedRows() const { return highlighted_; }

public slots:
    void highlightRows(const std::vector<int>& rows);

signals:
    void layerClicked(int row);

private:
    void onMouseRelease(QMouseEvent* event);
    void onMouseMove(QMouseEvent* event);
    /// Fills the series from layers_ and matches_.
    void fillBars();
    QCPBars* barsOfRow(size_t row) const;

    QCustomPlot* plot_;
    QCPBars* npu_;
    QCPBars* cpu_;
    QCPBars* dimmed_;
    std::vector<LayerRow> layers_;
    std::vector<bool> matches_;
    std::vector<bool> onCpu_;  // per estimate row
    std::vector<int> highlighted_;
    QStringList ids_;
    std::function<QString(int)> toolTip_;
    QPoint pressPos_;
};

}  // namespace npuwb::ui
