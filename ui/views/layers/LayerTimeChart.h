#pragma once
// Per-layer time as horizontal bars, slowest layer on top, one color per op type (legend). Clicking a bar
// emits layerClicked; highlightLayer outlines the bar of the shared selection.
#include <QHash>
#include <QPoint>
#include <QWidget>

#include <vector>

#include "npuwb/Report.h"

class QCustomPlot;
class QCPBars;
class QCPItemText;
class QMouseEvent;

namespace npuwb::ui {

class LayerFilter;

class LayerTimeChart : public QWidget {
    Q_OBJECT
public:
    explicit LayerTimeChart(QWidget* parent = nullptr);

    /// `timed` false (a model that has not run yet) shows a hint instead of bars.
    void setLayers(const std::vector<LayerRow>& layers, bool timed);
    /// Shows only the bars of layers the shared filter matches, from now on.
    void setLayerFilter(const LayerFilter* filter);
    QCustomPlot* plot() const { return plot_; }
    /// Bars over all op-type series: one per layer after a run.
    int barCount() const;
    /// Layer id of the bar in this rank (1 = slowest), -1 when none.
    int layerAtRank(int rank) const;
    int highlightedLayer() const { return highlighted_; }

public slots:
    void highlightLayer(int id);

signals:
    void layerClicked(int id);

private:
    /// Draws the layers the filter matches.
    void rebuild();
    void onMouseRelease(QMouseEvent* event);
    /// Thins the layer-name ticks to what fits, so zoomed-out charts stay readable.
    void updateTicks();
    void showHint(const QString& text);

    QCustomPlot* plot_;
    QCPItemText* hint_ = nullptr;
    std::vector<int> layerOfRank_;            // index rank-1
    std::vector<QString> labelOfRank_;
    QHash<int, QCPBars*> barsOfLayer_;        // layer id -> its op type's series
    QHash<int, double> rankOfLayer_;
    int highlighted_ = -1;
    std::vector<LayerRow> layers_;
    bool timed_ = false;
    const LayerFilter* filter_ = nullptr;
    QPoint pressPos_;
};

}  // namespace npuwb::ui
