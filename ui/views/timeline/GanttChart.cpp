#include "views/timeline/GanttChart.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

#include "models/Format.h"
#include "models/PartitionTableModel.h"

namespace npuwb::ui {

namespace {

// A lane's row is one unit high around its index: the bar above, the wait strip below it.
constexpr double kBarTop = -0.38, kBarBottom = 0.20, kWaitTop = 0.24, kWaitBottom = 0.40;
const QColor kTransferColor(175, 175, 175);
const QColor kWholeModelColor(0x6f, 0x86, 0xa6);

double ms(double us) { return us / 1000.0; }

bool isDark(const QColor& c) { return 0.299 * c.redF() + 0.587 * c.greenF() + 0.114 * c.blueF() < 0.5; }

}  // namespace

/// Draws one timeline's bars in an axis rect: key = time (ms), value = lane index.
class GanttPlottable : public QCPAbstractPlottable {
public:
    GanttPlottable(QCPAxis* keyAxis, QCPAxis* valueAxis, std::function<int64_t(const TraceEvent&)> stageOf)
        : QCPAbstractPlottable(keyAxis, valueAxis), stageOf_(std::move(stageOf)) {
        setSelectable(QCP::stNone);
    }

    void setTrace(Trace trace) {
        trace_ = std::move(trace);
        laneOf_.clear();
        for (size_t i = 0; i < trace_.lanes.size(); ++i) laneOf_[trace_.lanes[i]] = static_cast<int>(i);
        for (const TraceEvent& e : trace_.events)  // a lane missing from the order still gets a row
            if (!laneOf_.count(e.lane)) {
                laneOf_[e.lane] = static_cast<int>(trace_.lanes.size());
                trace_.lanes.push_back(e.lane);
            }
    }
    const Trace& trace() const { return trace_; }
    int laneOf(const std::string& lane) const {
        const auto it = laneOf_.find(lane);
        return it == laneOf_.end() ? -1 : it->second;
    }
    void setHighlighted(int64_t stage) { highlighted_ = stage; }
    void setHighlightedName(std::string name) { highlightedName_ = std::move(name); }

    void setNameColours(std::map<std::string, QColor> colours) { nameColours_ = std::move(colours); }

    QColor colourOf(const TraceEvent& e) const {
        if (e.kind == "transfer") return kTransferColor;
        if (const auto it = nameColours_.find(e.name); it != nameColours_.end()) return it->second;
        const int64_t stage = stageOf_(e);
        return stage >= 0 ? PartitionTableModel::stageColor(stage) : kWholeModelColor;
    }

    /// The bar (or, below it, the wait strip) under a pixel; nullptr when none.
    const TraceEvent* eventAt(const QPointF& pixel) const {
        double key = 0, value = 0;
        pixelsToCoords(pixel, key, value);
        const int lane = static_cast<int>(std::lround(value));
        const double offset = value - lane;
        const bool onBar = offset >= kBarTop && offset <= kBarBottom;
        const bool onWait = offset > kBarBottom && offset <= kWaitBottom;
        if (lane < 0 || lane >= static_cast<int>(trace_.lanes.size()) || (!onBar && !onWait)) return nullptr;
        // The nearest piece within two pixels, so thin bars stay hittable beside wide ones.
        const double slackMs = std::abs(keyAxis()->pixelToCoord(pixel.x() + 2) - key);
        const TraceEvent* nearest = nullptr;
        double nearestMs = slackMs;
        for (const TraceEvent& e : trace_.events) {
            if (laneOf(e.lane) != lane) continue;
            const double from = onBar ? ms(e.startUs) : ms(e.readyUs.value_or(e.startUs));
            const double to = onBar ? ms(e.endUs) : ms(e.startUs);
            if (onWait && to <= from) continue;
            const double distance = std::max({from - key, key - to, 0.0});
            if (distance <= nearestMs && (!nearest || distance < nearestMs)) nearest = &e, nearestMs = distance;
        }
        return nearest;
    }

    double selectTest(const QPointF& pos, bool onlySelectable, QVariant*) const override {
        if (onlySelectable && !selectable()) return -1;
        return eventAt(pos) ? 0 : -1;
    }
    QCPRange getKeyRange(bool& foundRange, QCP::SignDomain) const override {
        QCPRange range(0, 0);
        foundRange = false;
        for (const TraceEvent& e : trace_.events) {
            const double from = ms(e.readyUs.value_or(e.startUs));
            range = foundRange ? QCPRange(std::min(range.lower, from), std::max(range.upper, ms(e.endUs)))
                               : QCPRange(from, ms(e.endUs));
            foundRange = true;
        }
        return range;
    }
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain, const QCPRange&) const override {
        foundRange = !trace_.lanes.empty();
        return QCPRange(-0.5, static_cast<double>(trace_.lanes.size()) - 0.5);
    }

protected:
    void draw(QCPPainter* painter) override {
        const QFontMetrics metrics(painter->font());
        for (const TraceEvent& e : trace_.events) {
            const int lane = laneOf(e.lane);
            const QColor colour = colourOf(e);
            if (e.readyUs && e.startUs - *e.readyUs > 0) {
                const QRectF wait = rectOf(ms(*e.readyUs), ms(e.startUs), lane + kWaitTop, lane + kWaitBottom);
                painter->setPen(QPen(colour.darker(140), 0.8));
                painter->setBrush(QBrush(colour.darker(120), Qt::BDiagPattern));
                painter->drawRect(wait);
            }
            const QRectF bar = rectOf(ms(e.startUs), ms(e.endUs), lane + kBarTop, lane + kBarBottom);
            const bool highlighted = (highlighted_ >= 0 && stageOf_(e) == highlighted_) ||
                                     (!highlightedName_.empty() && e.name == highlightedName_);
            painter->setPen(highlighted ? QPen(Qt::black, 2.2) : QPen(colour.darker(150), 0.8));
            painter->setBrush(colour);
            painter->drawRect(bar);
            const QString label = e.kind == "kernel" ? QString::fromStdString(e.name) : QString::number(e.frame);
            if (e.kind != "transfer" && bar.width() > metrics.horizontalAdvance(label) + 4) {
                painter->setPen(isDark(colour) ? Qt::white : Qt::black);
                painter->drawText(bar, Qt::AlignCenter, label);
            }
        }
    }
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override {
        painter->setBrush(PartitionTableModel::stageColor(0));
        painter->drawRect(rect);
    }

private:
    QRectF rectOf(double fromMs, double toMs, double top, double bottom) const {
        QRectF r(coordsToPixels(fromMs, top), coordsToPixels(toMs, bottom));
        r = r.normalized();
        if (r.width() < 1) r.setWidth(1);  // a very short piece still shows
        return r;
    }

    Trace trace_;
    std::map<std::string, int> laneOf_;
    std::function<int64_t(const TraceEvent&)> stageOf_;
    int64_t highlighted_ = -1;
    std::string highlightedName_;  // a run timeline's layer
    std::map<std::string, QColor> nameColours_;  // a run timeline's kernels: their layer's op type colour
};

namespace {

QCPAxisRect* makeRect(QCustomPlot* plot, QCPMarginGroup* margins, const QString& timeLabel) {
    auto* rect = new QCPAxisRect(plot);
    rect->axis(QCPAxis::atTop)->setVisible(false);
    rect->axis(QCPAxis::atRight)->setVisible(false);
    rect->axis(QCPAxis::atLeft)->setRangeReversed(true);  // first lane on top
    rect->axis(QCPAxis::atLeft)->grid()->setVisible(false);
    rect->axis(QCPAxis::atBottom)->setLabel(timeLabel);
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    rect->setRangeDrag(Qt::Horizontal);
    rect->setRangeZoom(Qt::Horizontal);
    return rect;
}

void setLanes(QCPAxis* axis, const std::vector<std::string>& lanes) {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (size_t i = 0; i < lanes.size(); ++i) ticker->addTick(static_cast<double>(i), QString::fromStdString(lanes[i]));
    axis->setTicker(ticker);
    axis->setSubTicks(false);
    axis->setRange(-0.6, std::max(1.0, static_cast<double>(lanes.size())) - 0.4);
}

}  // namespace

GanttChart::GanttChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setMinimumHeight(220);
    plot_->setObjectName(QStringLiteral("ganttPlot"));
    plot_->setMouseTracking(true);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);

    QCPLayoutGrid* grid = plot_->plotLayout();
    grid->clear();  // the default axis rect goes: two rects, each under its title
    auto* margins = new QCPMarginGroup(plot_);
    QFont titleFont = font();
    titleFont.setBold(true);
    predictedTitle_ = new QCPTextElement(plot_, QString(), titleFont);
    measuredTitle_ = new QCPTextElement(plot_, QString(), titleFont);
    QCPAxisRect* predictedRect = makeRect(plot_, margins, QString());
    QCPAxisRect* measuredRect = makeRect(plot_, margins, tr("time since the first frame (ms)"));
    grid->addElement(0, 0, predictedTitle_);
    grid->addElement(1, 0, predictedRect);
    grid->addElement(2, 0, measuredTitle_);
    grid->addElement(3, 0, measuredRect);
    grid->setRowSpacing(0);
    auto stageOf = [this](const TraceEvent& e) { return this->stageOf(e); };
    predicted_ = new GanttPlottable(predictedRect->axis(QCPAxis::atBottom), predictedRect->axis(QCPAxis::atLeft), stageOf);
    measured_ = new GanttPlottable(measuredRect->axis(QCPAxis::atBottom), measuredRect->axis(QCPAxis::atLeft), stageOf);
    // One time axis: dragging or zooming either timeline moves both.
    QCPAxis* predictedTime = predictedRect->axis(QCPAxis::atBottom);
    QCPAxis* measuredTime = measuredRect->axis(QCPAxis::atBottom);
    connect(predictedTime, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), measuredTime,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(measuredTime, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), predictedTime,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(plot_, &QCustomPlot::mouseMove, this, &GanttChart::onMouseMove);
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) { pressPos_ = event->pos(); });
    connect(plot_, &QCustomPlot::mouseRelease, this, &GanttChart::onMouseRelease);
    clear(QString());
}

void GanttChart::setTimelines(const std::optional<Trace>& predicted, const std::optional<Trace>& measured,
                              const PartitionSection& partition, const QString& predictedTitle,
                              const QString& measuredTitle) {
    stageOfName_.clear();
    for (const PartitionStage& stage : partition.stages) stageOfName_[stage.name] = stage.id;
    if (!measured.has_value() || measured->name != "kernels") measured_->setNameColours({});
    highlighted_ = -1;
    highlightedName_.clear();
    predicted_->setHighlighted(-1);
    measured_->setHighlighted(-1);
    measured_->setHighlightedName({});
    predicted_->setTrace(predicted.value_or(Trace{}));
    measured_->setTrace(measured.value_or(Trace{}));
    predictedTitle_->setText(predictedTitle);
    QCPAxisRect* prediction = predicted_->keyAxis()->axisRect();  // shown again after a run timeline hid it
    prediction->setVisible(true);
    prediction->setAutoMargins(QCP::msAll);
    prediction->setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
    predictedTitle_->setVisible(true);
    predictedTitle_->setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX);
    measuredTitle_->setText(measuredTitle);
    double endMs = 0;
    for (GanttPlottable* g : {predicted_, measured_}) {
        setLanes(g->valueAxis(), g->trace().lanes);
        bool found = false;
        const QCPRange keys = g->getKeyRange(found, QCP::sdBoth);
        if (found) endMs = std::max(endMs, keys.upper);
    }
    // Rows as tall as their lanes need: the prediction has link lanes the measurement does not.
    QCPLayoutGrid* grid = plot_->plotLayout();
    grid->setRowStretchFactor(0, 0.001);
    grid->setRowStretchFactor(2, 0.001);
    grid->setRowStretchFactor(1, std::max<double>(1, predicted_->trace().lanes.size()));
    grid->setRowStretchFactor(3, std::max<double>(1, measured_->trace().lanes.size()));
    predicted_->keyAxis()->setRange(0, endMs > 0 ? endMs * 1.01 : 1.0);
    plot_->replot();
}

void GanttChart::setRunTimeline(const Trace& trace, const QString& title, std::map<std::string, QColor> colours) {
    measured_->setNameColours(std::move(colours));
    setTimelines(std::nullopt, trace, {}, QString(), title);
    QCPAxisRect* prediction = predicted_->keyAxis()->axisRect();  // no prediction: its rows take no room
    prediction->setVisible(false);
    prediction->setAutoMargins(QCP::msNone);
    prediction->setMargins({});
    prediction->setMaximumSize(QWIDGETSIZE_MAX, 0);
    predictedTitle_->setVisible(false);
    predictedTitle_->setMaximumSize(QWIDGETSIZE_MAX, 0);
    plot_->replot();
}

QColor GanttChart::runBarColour(const std::string& name) const {
    TraceEvent event;
    event.name = name;
    return measured_->colourOf(event);
}

void GanttChart::clear(const QString& hint) {
    setTimelines(std::nullopt, std::nullopt, {}, hint, QString());
}

const Trace& GanttChart::timeline(Source source) const {
    return (source == Source::Predicted ? predicted_ : measured_)->trace();
}

QCPAxisRect* GanttChart::axisRect(Source source) const {
    return (source == Source::Predicted ? predicted_ : measured_)->keyAxis()->axisRect();
}

int64_t GanttChart::stageOf(const TraceEvent& event) const {
    if (event.kind == "transfer") return -1;
    const auto it = stageOfName_.find(event.name);
    return it == stageOfName_.end() ? -1 : it->second;
}

const TraceEvent* GanttChart::eventAt(const QPoint& pos, Source* source) const {
    for (Source s : {Source::Predicted, Source::Measured}) {
        const GanttPlottable* g = s == Source::Predicted ? predicted_ : measured_;
        if (!axisRect(s)->rect().contains(pos)) continue;
        if (const TraceEvent* e = g->eventAt(pos)) {
            if (source) *source = s;
            return e;
        }
    }
    return nullptr;
}

QPoint GanttChart::centreOf(Source source, const TraceEvent& event) const {
    const GanttPlottable* g = source == Source::Predicted ? predicted_ : measured_;
    const double lane = g->laneOf(event.lane);
    const double x = g->keyAxis()->coordToPixel(ms(event.startUs + event.endUs) / 2);
    const double y = g->valueAxis()->coordToPixel(lane + (kBarTop + kBarBottom) / 2);
    return QPoint(static_cast<int>(std::lround(x)), static_cast<int>(std::lround(y)));
}

QString GanttChart::describe(const TraceEvent& e) {
    QString text = tr("%1 · %2 on %3 · frame %4 · %5 → %6 (%7)")
                       .arg(QString::fromStdString(e.name), QString::fromStdString(e.kind),
                            QString::fromStdString(e.lane))
                       .arg(e.frame)
                       .arg(formatMicros(e.startUs), formatMicros(e.endUs), formatMicros(e.endUs - e.startUs));
    if (e.readyUs) {
        const double wait = e.startUs - *e.readyUs;
        text += wait > 0 ? tr(" · waited %1 for the lane").arg(formatMicros(wait)) : tr(" · no wait");
    }
    return text;
}

void GanttChart::highlightName(const QString& name) {
    highlightedName_ = name;
    measured_->setHighlightedName(name.toStdString());
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void GanttChart::highlightStage(int64_t stage) {
    highlighted_ = stage;
    predicted_->setHighlighted(stage);
    measured_->setHighlighted(stage);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void GanttChart::onMouseMove(QMouseEvent* event) {
    const TraceEvent* e = eventAt(event->pos());
    const QString text = e ? describe(*e) : QString();
    if (e)
        QToolTip::showText(plot_->mapToGlobal(event->pos()), text, plot_);
    else
        QToolTip::hideText();
    emit hovered(text);
}

void GanttChart::onMouseRelease(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || (event->pos() - pressPos_).manhattanLength() > 3) return;  // a drag
    if (const TraceEvent* e = eventAt(event->pos())) {
        emit stageClicked(stageOf(*e));
        emit eventClicked(QString::fromStdString(e->name), QString::fromStdString(e->kind));
    }
}

}  // namespace npuwb::ui
