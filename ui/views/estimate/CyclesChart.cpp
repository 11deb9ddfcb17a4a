#include "views/estimate/CyclesChart.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace npuwb::ui {

namespace {
constexpr double kHitRadiusPx = 8.0;

QCPGraph* makeScatter(QCustomPlot* plot, const QString& name, const QColor& color, double size) {
    auto* graph = plot->addGraph();
    graph->setName(name);
    graph->setLineStyle(QCPGraph::lsNone);
    QColor fill = color;
    fill.setAlpha(150);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color.darker(130), fill, size));
    graph->setSelectable(QCP::stNone);
    return graph;
}
}  // namespace

CyclesChart::CyclesChart(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)),
      compute_(makeScatter(plot_, tr("compute-bound (below x = y)"), QColor(0x1f, 0x77, 0xb4), 7)),
      bandwidth_(makeScatter(plot_, tr("bandwidth-bound (above x = y)"), QColor(0xd6, 0x27, 0x28), 7)),
      highlight_(plot_->addGraph()) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setMinimumHeight(160);
    highlight_->setLineStyle(QCPGraph::lsNone);
    highlight_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 2.5), Qt::NoBrush, 14));
    highlight_->removeFromLegend();
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
        axis->setNumberFormat(QStringLiteral("eb"));
        axis->setNumberPrecision(0);
    }
    plot_->xAxis->setLabel(tr("NPU cycles (compute)"));
    plot_->yAxis->setLabel(tr("DDR cycles\n(memory traffic)"));  // two lines: the axis is short
    // y = x is a straight line on log-log axes: through (1,1) and (10,10).
    auto* diagonal = new QCPItemStraightLine(plot_);
    diagonal->point1->setCoords(1, 1);
    diagonal->point2->setCoords(10, 10);
    diagonal->setPen(QPen(Qt::gray, 1, Qt::DashLine));
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), font().pointSize() - 1));
    // The legend gets its own row above the plot, so it never hides a bar or a point.
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    plot_->plotLayout()->setRowSpacing(0);
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setMargins(QMargins(4, 2, 4, 0));
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) { pressPos_ = event->pos(); });
    connect(plot_, &QCustomPlot::mouseRelease, this, &CyclesChart::onMouseRelease);
    plot_->setMouseTracking(true);
    connect(plot_, &QCustomPlot::mouseMove, this, &CyclesChart::onMouseMove);
}

QString CyclesChart::toolTipAt(const QPointF& pixel) const {
    const int row = rowAt(pixel);
    if (row < 0) return {};
    return toolTip_ ? toolTip_(row) : tr("Estimate row %1").arg(row);
}

void CyclesChart::onMouseMove(QMouseEvent* event) {
    const QString text = toolTipAt(event->pos());
    if (text.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
}

void CyclesChart::setLayers(const std::vector<LayerRow>& layers) {
    points_.clear();
    highlighted_.clear();
    for (QCPGraph* g : {compute_, bandwidth_, highlight_}) g->data()->clear();
    double lo = std::numeric_limits<double>::max(), hi = 0;
    for (size_t i = 0; i < layers.size(); ++i) {
        const LayerRow& row = layers[i];
        if (row.target != "NPU" || !row.cyclesNpu || !row.cyclesDdr) continue;
        // Log axes cannot show 0: a layer with no work on one side sits on the axis' floor of 1 cycle.
        const double npu = std::max<double>(1.0, double(*row.cyclesNpu));
        const double ddr = std::max<double>(1.0, double(*row.cyclesDdr));
        points_.push_back({int(i), npu, ddr});
        (ddr > npu ? bandwidth_ : compute_)->addData(npu, ddr);
        lo = std::min({lo, npu, ddr});
        hi = std::max({hi, npu, ddr});
    }
    if (points_.empty()) lo = 1, hi = 10;
    // The same range on both axes keeps the diagonal at 45 degrees, so "above the line" reads at a glance.
    const QCPRange range(lo / 2, hi * 2);
    plot_->xAxis->setRange(range);
    plot_->yAxis->setRange(range);
    plot_->replot();
}

int CyclesChart::bandwidthBoundCount() const {
    return bandwidth_->dataCount();
}

QPointF CyclesChart::pixelOfRow(int row) const {
    for (const Point& p : points_)
        if (p.row == row) return {plot_->xAxis->coordToPixel(p.npuCycles), plot_->yAxis->coordToPixel(p.ddrCycles)};
    return {};
}

int CyclesChart::rowAt(const QPointF& pixel) const {
    int best = -1;
    double bestDistance = kHitRadiusPx;
    for (const Point& p : points_) {
        const QPointF at(plot_->xAxis->coordToPixel(p.npuCycles), plot_->yAxis->coordToPixel(p.ddrCycles));
        const double distance = std::hypot(at.x() - pixel.x(), at.y() - pixel.y());
        if (distance <= bestDistance) bestDistance = distance, best = p.row;
    }
    return best;
}

void CyclesChart::onMouseRelease(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || (event->pos() - pressPos_).manhattanLength() > 3) return;  // a drag
    const int row = rowAt(event->pos());
    if (row >= 0) emit layerClicked(row);
}

void CyclesChart::highlightRows(const std::vector<int>& rows) {
    highlighted_.clear();
    highlight_->data()->clear();
    for (const Point& p : points_)
        if (std::find(rows.begin(), rows.end(), p.row) != rows.end()) {
            highlight_->addData(p.npuCycles, p.ddrCycles);
            highlighted_.push_back(p.row);
        }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace npuwb::ui
