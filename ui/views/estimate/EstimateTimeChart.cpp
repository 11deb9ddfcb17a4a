#include "views/estimate/EstimateTimeChart.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace npuwb::ui {

namespace {
const QColor kNpuColor(0x1f, 0x77, 0xb4);
const QColor kCpuColor(0xff, 0x7f, 0x0e);
const QColor kFilteredOutColor(0xdd, 0xdd, 0xdd);

QCPBars* makeBars(QCustomPlot* plot, const QString& name, const QColor& color) {
    auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
    bars->setName(name);
    bars->setWidth(0.8);
    bars->setPen(QPen(color.darker(130), 1));
    bars->setBrush(color);
    bars->setSelectable(QCP::stMultipleDataRanges);
    bars->selectionDecorator()->setPen(QPen(Qt::black, 2.5));
    bars->selectionDecorator()->setBrush(color.darker(170));
    return bars;
}

/// Integer ticks on bar positions, labelled with the layer IDs instead of the row numbers.
class LayerIdTicker : public QCPAxisTicker {
public:
    explicit LayerIdTicker(const EstimateTimeChart& chart) : chart_(chart) {}

protected:
    double getTickStep(const QCPRange& range) override {
        return std::max(1.0, std::round(QCPAxisTicker::getTickStep(range)));
    }
    QString getTickLabel(double tick, const QLocale&, QChar, int) override {
        return chart_.tickLabel(int(std::lround(tick)));
    }

private:
    const EstimateTimeChart& chart_;
};
}  // namespace

EstimateTimeChart::EstimateTimeChart(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)), npu_(makeBars(plot_, tr("NPU"), kNpuColor)),
      cpu_(makeBars(plot_, tr("CPU fallback"), kCpuColor)), dimmed_(makeBars(plot_, tr("Filtered out"), kFilteredOutColor)) {
    dimmed_->removeFromLegend();  // until a filter is active
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setMinimumHeight(160);
    // The shared selection alone decides what is highlighted (see onMouseRelease), as in LayerTimeChart.
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);
    plot_->xAxis->setLabel(tr("Layer ID (execution order)"));
    plot_->xAxis->setTicker(QSharedPointer<LayerIdTicker>::create(*this));
    plot_->setMouseTracking(true);
    connect(plot_, &QCustomPlot::mouseMove, this, &EstimateTimeChart::onMouseMove);
    plot_->yAxis->setLabel(tr("Time (µs)"));  // the view says it is an estimate; the axis is short
    plot_->xAxis->grid()->setVisible(false);
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
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) { pressPos_ = event->pos(); });
    connect(plot_, &QCustomPlot::mouseRelease, this, &EstimateTimeChart::onMouseRelease);
}

void EstimateTimeChart::setLayers(const std::vector<LayerRow>& layers, const QStringList& ids) {
    ids_ = ids;
    layers_ = layers;
    matches_.clear();
    fillBars();
    double maxTime = 0;
    for (const LayerRow& layer : layers) maxTime = std::max(maxTime, layer.timeUs);
    plot_->xAxis->setRange(-0.6, std::max<double>(1.0, double(layers.size()) - 0.4));
    plot_->yAxis->setRange(0, maxTime > 0 ? maxTime * 1.08 : 1.0);
    plot_->replot();
}

void EstimateTimeChart::setRowMatches(const std::vector<bool>& matches) {
    const auto allMatch = [](const std::vector<bool>& v) { return std::find(v.begin(), v.end(), false) == v.end(); };
    const bool unchanged = allMatch(matches) && allMatch(matches_);
    matches_ = matches;
    if (unchanged) return;  // no filter before or now: the bars stay as they are
    const std::vector<int> keep = highlighted_;
    fillBars();
    highlightRows(keep);
}

void EstimateTimeChart::fillBars() {
    npu_->data()->clear();
    cpu_->data()->clear();
    dimmed_->data()->clear();
    onCpu_.clear();
    highlighted_.clear();
    for (size_t i = 0; i < layers_.size(); ++i) {
        onCpu_.push_back(layers_[i].target != "NPU");
        barsOfRow(i)->addData(double(i), layers_[i].timeUs);
    }
    // The legend names the grey bars only while a filter greys some.
    const bool filtering = std::find(matches_.begin(), matches_.end(), false) != matches_.end();
    if (filtering && !plot_->legend->hasItemWithPlottable(dimmed_)) dimmed_->addToLegend();
    if (!filtering && plot_->legend->hasItemWithPlottable(dimmed_)) dimmed_->removeFromLegend();
    npu_->setSelection(QCPDataSelection());
    cpu_->setSelection(QCPDataSelection());
    dimmed_->setSelection(QCPDataSelection());
}

QCPBars* EstimateTimeChart::barsOfRow(size_t row) const {
    if (row < matches_.size() && !matches_[row]) return dimmed_;
    return onCpu_[row] ? cpu_ : npu_;
}

int EstimateTimeChart::barCount() const {
    return npu_->dataCount() + cpu_->dataCount() + dimmed_->dataCount();
}

int EstimateTimeChart::rowAt(const QPoint& pixel) const {
    if (!plot_->axisRect()->rect().contains(pixel)) return -1;
    // The whole column of a bar counts: low bars are too short to hit.
    const long row = std::lround(plot_->xAxis->pixelToCoord(pixel.x()));
    return row >= 0 && row < long(onCpu_.size()) ? int(row) : -1;
}

QString EstimateTimeChart::toolTipAt(const QPoint& pixel) const {
    const int row = rowAt(pixel);
    if (row < 0) return {};
    return toolTip_ ? toolTip_(row) : tr("Layer %1").arg(tickLabel(row));
}

void EstimateTimeChart::onMouseMove(QMouseEvent* event) {
    const QString text = toolTipAt(event->pos());
    if (text.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(event->globalPosition().toPoint(), text, plot_);
}

void EstimateTimeChart::onMouseRelease(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || (event->pos() - pressPos_).manhattanLength() > 3) return;  // a drag
    const int row = rowAt(event->pos());
    if (row >= 0) emit layerClicked(row);
}

void EstimateTimeChart::highlightRows(const std::vector<int>& rows) {
    highlighted_.clear();
    std::map<QCPBars*, QCPDataSelection> selections{
        {npu_, QCPDataSelection()}, {cpu_, QCPDataSelection()}, {dimmed_, QCPDataSelection()}};
    for (int row : rows) {
        if (row < 0 || row >= int(onCpu_.size())) continue;
        highlighted_.push_back(row);
        QCPBars* bars = barsOfRow(size_t(row));
        const int index = int(bars->data()->findBegin(double(row), false) - bars->data()->constBegin());
        selections[bars].addDataRange(QCPDataRange(index, index + 1));
    }
    for (auto& [bars, selection] : selections) bars->setSelection(selection);
    if (!highlighted_.empty()) {  // bring the first highlighted bar into view when scrolled away
        const double x = highlighted_.front();
        const QCPRange range = plot_->xAxis->range();
        if (x < range.lower || x > range.upper) plot_->xAxis->setRange(x - range.size() / 2, x + range.size() / 2);
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace npuwb::ui
