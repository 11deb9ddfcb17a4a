#include "views/layers/LayerTimeChart.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <unordered_map>

#include "core/LayerNameDelegate.h"
#include "models/LayerFilter.h"
#include "models/OpTypeColors.h"

namespace npuwb::ui {

namespace {
constexpr int kInitialVisibleBars = 25;  // more would squeeze the labels; the rest is a wheel/drag away
constexpr int kLegendColumns = 8;
constexpr int kLabelWidthChars = 34;  // the label column's width, in average characters
}  // namespace

LayerTimeChart::LayerTimeChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setMinimumHeight(200);

    // No iSelectPlottables: the shared LayerSelection alone decides what is highlighted (see onMouseRelease).
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Vertical);  // scroll through layers; the time axis stays fitted
    plot_->axisRect()->setRangeZoom(Qt::Vertical);
    plot_->yAxis->setRangeReversed(true);  // rank 1 (slowest) on top
    plot_->yAxis->setTickLabelFont(QFont(font().family(), font().pointSize() - 1));
    plot_->yAxis->grid()->setVisible(false);
    plot_->yAxis->setSubTicks(false);
    plot_->yAxis->setTickLength(0, 3);
    // The legend goes in its own row above the bars (wrapping into columns), so it never hides a bar.
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    plot_->plotLayout()->setRowSpacing(0);
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot_->legend->setWrap(kLegendColumns);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setFont(QFont(font().family(), font().pointSize() - 1));
    plot_->legend->setIconSize(14, 10);
    plot_->legend->setRowSpacing(0);
    plot_->legend->setColumnSpacing(12);
    plot_->legend->setMargins(QMargins(4, 2, 4, 0));
    plot_->legend->setVisible(false);

    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) { pressPos_ = event->pos(); });
    connect(plot_, &QCustomPlot::mouseRelease, this, &LayerTimeChart::onMouseRelease);
    connect(plot_->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, &LayerTimeChart::updateTicks);
    connect(plot_, &QCustomPlot::afterLayout, this, &LayerTimeChart::updateTicks);
    showHint(tr("Open a model and run it (F5) to see per-layer times"));
}

void LayerTimeChart::showHint(const QString& text) {
    if (!hint_) {
        hint_ = new QCPItemText(plot_);
        hint_->position->setType(QCPItemPosition::ptViewportRatio);  // the axis rect is degenerate when empty
        hint_->position->setCoords(0.5, 0.5);
        hint_->setColor(Qt::gray);
        hint_->setFont(QFont(font().family(), font().pointSize() + 2));
        hint_->setClipToAxisRect(false);
    }
    hint_->setText(text);
    hint_->setVisible(!text.isEmpty());
    // Empty axes with made-up ticks would only distract from the hint.
    plot_->xAxis->setVisible(text.isEmpty());
    plot_->yAxis->setVisible(text.isEmpty());
}

void LayerTimeChart::setLayerFilter(const LayerFilter* filter) {
    filter_ = filter;
    connect(filter, &LayerFilter::changed, this, [this] {
        const int keep = highlighted_;
        rebuild();
        highlightLayer(keep);
    });
}

void LayerTimeChart::setLayers(const std::vector<LayerRow>& layers, bool timed) {
    layers_ = layers;
    timed_ = timed;
    rebuild();
}

void LayerTimeChart::rebuild() {
    std::vector<const LayerRow*> layers;  // not copies: a 10,000-layer model's rows are megabytes of strings
    if (timed_)
        for (const LayerRow& row : layers_)
            if (row.fusedInto.empty() &&  // a fused kernel is one bar, its first node's
                (!filter_ || filter_->matches(QString::fromStdString(row.opType), QString::fromStdString(row.target),
                                              QString::fromStdString(row.fullName), row.timeUs)))
                layers.push_back(&row);
    const bool timed = timed_;
    plot_->clearPlottables();
    plot_->legend->clearItems();
    layerOfRank_.clear();
    labelOfRank_.clear();
    barsOfLayer_.clear();
    rankOfLayer_.clear();
    highlighted_ = -1;

    if (!timed || layers.empty()) {
        plot_->legend->setVisible(false);
        plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
        plot_->yAxis->setRange(0, 1);
        plot_->xAxis->setRange(0, 1);
        showHint(!layers_.empty() && timed ? tr("No layer matches the filter")
                 : layers_.empty() ? tr("Open a model and run it (F5) to see per-layer times")
                                : tr("Run the model (F5) to see per-layer times"));
        plot_->replot();
        return;
    }
    showHint({});

    std::vector<size_t> order(layers.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return layers[a]->timeUs > layers[b]->timeUs; });

    // One series per op type: the legend then names the colors, and QCustomPlot selects per series.
    std::map<QString, QCPBars*> seriesOfOp;
    const QFontMetrics labelMetrics(plot_->yAxis->tickLabelFont());
    const int labelWidth = labelMetrics.averageCharWidth() * kLabelWidthChars;
    double maxTime = 0.0;
    for (size_t rank = 1; rank <= order.size(); ++rank) {
        const LayerRow& row = *layers[order[rank - 1]];
        const QString op = QString::fromStdString(row.opType);
        QCPBars*& bars = seriesOfOp[op];
        if (!bars) {
            bars = new QCPBars(plot_->yAxis, plot_->xAxis);
            const QColor color = opTypeColor(op);
            bars->setName(op);
            bars->setWidth(0.75);
            bars->setPen(QPen(color.darker(130), 1));
            bars->setBrush(color);
            bars->setSelectable(QCP::stSingleData);
            bars->selectionDecorator()->setPen(QPen(Qt::black, 2.5));
            bars->selectionDecorator()->setBrush(color.darker(160));
        }
        bars->addData(double(rank), row.timeUs);
        layerOfRank_.push_back(int(row.id));
        labelOfRank_.push_back(elideLayerName(QString::fromStdString(row.fullName), labelMetrics, labelWidth));
        barsOfLayer_.insert(int(row.id), bars);
        rankOfLayer_.insert(int(row.id), double(rank));
        maxTime = std::max(maxTime, row.timeUs);
    }
    // The nodes of a fused kernel select their layer's bar.
    std::unordered_map<std::string, int> idOfName;
    for (const LayerRow& row : layers_) idOfName.emplace(row.fullName, int(row.id));
    for (const LayerRow& row : layers_) {
        auto anchor = row.fusedInto.empty() ? idOfName.end() : idOfName.find(row.fusedInto);
        if (anchor == idOfName.end() || !barsOfLayer_.contains(anchor->second)) continue;
        barsOfLayer_.insert(int(row.id), barsOfLayer_.value(anchor->second));
        rankOfLayer_.insert(int(row.id), rankOfLayer_.value(anchor->second));
    }
    // Legend ordered by the op type's slowest layer, as the bars are.
    plot_->legend->setVisible(true);
    plot_->xAxis->setLabel(order.size() > size_t(kInitialVisibleBars)
                               ? tr("Time per layer (µs, median); wheel or drag over the bars to see all %1 layers")
                                     .arg(order.size())
                               : tr("Time per layer (µs, median)"));

    plot_->xAxis->setRange(0, maxTime > 0 ? maxTime * 1.05 : 1.0);
    const int visible = std::min<int>(int(order.size()), kInitialVisibleBars);
    plot_->yAxis->setRange(0.4, visible + 0.6);
    updateTicks();
    plot_->replot();
}

void LayerTimeChart::updateTicks() {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    if (!layerOfRank_.empty()) {
        const QCPRange range = plot_->yAxis->range();
        const double visibleBars = std::max(1.0, range.size());
        const int lineHeight = QFontMetrics(plot_->yAxis->tickLabelFont()).height() + 1;
        const double fitting = std::max(1.0, double(plot_->axisRect()->height()) / lineHeight);
        const int step = std::max(1, int(std::ceil(visibleBars / fitting)));
        for (size_t i = 0; i < labelOfRank_.size(); i += size_t(step)) ticker->addTick(double(i + 1), labelOfRank_[i]);
    }
    plot_->yAxis->setTicker(ticker);
}

int LayerTimeChart::barCount() const {
    int count = 0;
    for (int i = 0; i < plot_->plottableCount(); ++i)
        if (auto* bars = qobject_cast<QCPBars*>(plot_->plottable(i))) count += bars->dataCount();
    return count;
}

int LayerTimeChart::layerAtRank(int rank) const {
    return rank >= 1 && rank <= int(layerOfRank_.size()) ? layerOfRank_[size_t(rank - 1)] : -1;
}

void LayerTimeChart::onMouseRelease(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || (event->pos() - pressPos_).manhattanLength() > 3) return;  // a drag
    // A click anywhere in a bar's row, or on its label, picks the layer: most bars are too thin to hit, and
    // QCustomPlot's own hit test lets the axes win near the plot's edges.
    const QRect area = plot_->axisRect()->rect();
    if (event->pos().y() < area.top() || event->pos().y() > area.bottom() || event->pos().x() > area.right()) return;
    const int id = layerAtRank(int(std::lround(plot_->yAxis->pixelToCoord(event->pos().y()))));
    if (id >= 0) emit layerClicked(id);
}

void LayerTimeChart::highlightLayer(int id) {
    highlighted_ = barsOfLayer_.contains(id) ? id : -1;
    for (int i = 0; i < plot_->plottableCount(); ++i) plot_->plottable(i)->setSelection(QCPDataSelection());
    if (highlighted_ >= 0) {
        QCPBars* bars = barsOfLayer_.value(id);
        const double rank = rankOfLayer_.value(id);
        const int index = int(bars->data()->findBegin(rank, false) - bars->data()->constBegin());
        bars->setSelection(QCPDataSelection(QCPDataRange(index, index + 1)));
        // Bring the bar into view when it is scrolled away.
        const QCPRange range = plot_->yAxis->range();
        if (rank < range.lower || rank > range.upper) {
            const double half = range.size() / 2;
            plot_->yAxis->setRange(rank - half, rank + half);
        }
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace npuwb::ui
