#pragma once
// Estimated time per layer as bars in execution order, NPU layers and CPU fallbacks in two colors, so the
// fallbacks (and what they cost) stand out. Clicking a bar emits layerClicked with the estimate row; highlightRows
// outlines the bars of the shared selection.
#include <QPoint>
#include <QWidget>

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

    void setLayers(const std::vector<LayerRow>& layers);
    QCustomPlot* plot() const { return plot_; }
    QCPBars* npuBars() const { return npu_; }
    QCPBars* cpuBars() const { return cpu_; }
    int barCount() const;
    std::vector<int> highlightedRows() const { return highlighted_; }

public slots:
    void highlightRows(const std::vector<int>& rows);

signals:
    void layerClicked(int row);

private:
    void onMouseRelease(QMouseEvent* event);

    QCustomPlot* plot_;
    QCPBars* npu_;
    QCPBars* cpu_;
    std::vector<bool> onCpu_;  // per estimate row
    std::vector<int> highlighted_;
    QPoint pressPos_;
};

}  // namespace npuwb::ui
