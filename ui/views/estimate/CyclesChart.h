#pragma once
// NPU cycles (x) against DDR cycles (y) per estimated NPU layer, log-log, with the x = y diagonal: a point above
// the line waits on memory (bandwidth-bound), below it on the MAC array (compute-bound). CPU fallbacks have no
// cycles and are left out. Hovering a point shows its layer in a tooltip; clicking one emits layerClicked with its
// estimate row.
#include <QPoint>
#include <QWidget>

#include <functional>

#include <vector>

#include "npuwb/Report.h"

class QCustomPlot;
class QCPGraph;
class QMouseEvent;

namespace npuwb::ui {

class CyclesChart : public QWidget {
    Q_OBJECT
public:
    explicit CyclesChart(QWidget* parent = nullptr);

    void setLayers(const std::vector<LayerRow>& layers);
    /// What hovering the point of estimate row `row` shows.
    void setToolTipProvider(std::function<QString(int row)> provider) { toolTip_ = std::move(provider); }
    /// The tooltip hovering `pixel` shows, empty when no point is near.
    QString toolTipAt(const QPointF& pixel) const;
    QCustomPlot* plot() const { return plot_; }
    int pointCount() const { return int(points_.size()); }
    int bandwidthBoundCount() const;
    /// Estimate row of the point nearest to `pixel` within a few pixels, -1 when none.
    int rowAt(const QPointF& pixel) const;
    /// Pixel position of the point of this estimate row (for tests); invalid when the row has no point.
    QPointF pixelOfRow(int row) const;
    std::vector<int> highlightedRows() const { return highlighted_; }

public slots:
    void highlightRows(const std::vector<int>& rows);

signals:
    void layerClicked(int row);

private:
    struct Point {
        int row;
        double npuCycles;
        double ddrCycles;
    };
    void onMouseRelease(QMouseEvent* event);
    void onMouseMove(QMouseEvent* event);

    QCustomPlot* plot_;
    QCPGraph* compute_;
    QCPGraph* bandwidth_;
    QCPGraph* highlight_;
    std::vector<Point> points_;
    std::vector<int> highlighted_;
    std::function<QString(int)> toolTip_;
    QPoint pressPos_;
};

}  // namespace npuwb::ui
