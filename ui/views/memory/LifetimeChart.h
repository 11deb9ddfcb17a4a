#pragma once
// Tensor lifetimes as the memory planner placed them, and the memory they hold over a run, on one step axis:
// above, one rectangle per activation tensor (x: the steps it lives, first to last inclusive; y: its arena
// offset and size), with the planned arena, the lower bound (the most bytes ever live at once) and the peak step
// marked; below, the live bytes at each step. Hovering a rectangle shows its tensor, bytes and steps; clicking one
// emits its row; highlightRows outlines the tensors of the selected layer.
#include <QPoint>
#include <QWidget>

#include <vector>

#include "npuwb/Report.h"

class QCustomPlot;
class QCPAxisRect;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QMouseEvent;

namespace npuwb::ui {

class LifetimePlottable;
class TensorLifetimeModel;

class LifetimeChart : public QWidget {
    Q_OBJECT
public:
    explicit LifetimeChart(QWidget* parent = nullptr);

    /// Draws the model's tensors (rows) with the report's arena and lower bound.
    void setTensors(const TensorLifetimeModel& model, const MemorySummary& memory);
    void clear(const QString& hint);

    QCustomPlot* plot() const { return plot_; }
    int rectCount() const;
    /// Row of the tensor under a point of the plot (widget coordinates), -1 when none.
    int tensorAt(const QPoint& pos) const;
    /// Widget coordinates of the middle of a tensor's rectangle: what a mouse would point at.
    QPoint centreOf(int row) const;
    const std::vector<int>& highlightedRows() const { return highlighted_; }
    /// Per tensor row: true draws it grey (the shared filter rejects the layer that made it); empty: none.
    void setDimmedRows(const std::vector<bool>& dimmed);
    const std::vector<bool>& dimmedRows() const { return dimmed_; }
    /// Step marked as the peak, -1 when nothing is drawn.
    int64_t markedPeakStep() const { return peakStep_; }

public slots:
    void highlightRows(const std::vector<int>& rows);

signals:
    void tensorClicked(int row);
    /// The text of the tensor under the mouse (empty when none).
    void hovered(const QString& text);

private:
    void onMouseMove(QMouseEvent* event);
    void onMouseRelease(QMouseEvent* event);

    QCustomPlot* plot_;
    QCPAxisRect* lifetimeRect_;
    QCPAxisRect* liveRect_;
    LifetimePlottable* rects_;
    QCPGraph* live_;
    QCPItemStraightLine* peakLine_;
    QCPItemStraightLine* peakLineLive_;
    QCPItemStraightLine* lowerBoundLine_;
    QCPItemStraightLine* arenaLine_;
    QCPItemText* peakLabel_;
    QCPItemText* hint_;
    std::vector<int> highlighted_;
    std::vector<bool> dimmed_;
    int64_t peakStep_ = -1;
    QPoint pressPos_;
};

}  // namespace npuwb::ui
