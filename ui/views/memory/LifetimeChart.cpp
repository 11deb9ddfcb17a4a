#include "views/memory/LifetimeChart.h"

#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "models/Format.h"
#include "models/TensorLifetimeModel.h"

namespace npuwb::ui {

namespace {

double mib(int64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }

const QColor kTensorColor(0x6f, 0x86, 0xa6);
const QColor kHighlightColor(0xe0, 0x8a, 0x1e);
const QColor kDimmedColor(0xc8, 0xc8, 0xc8);

}  // namespace

/// One rectangle per tensor: key = step (a tensor covers [firstStep, lastStep + 1)), value = arena offset in MiB.
class LifetimePlottable : public QCPAbstractPlottable {
public:
    LifetimePlottable(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis) {
        setSelectable(QCP::stNone);
    }

    void setTensors(std::vector<TensorLifetime> tensors) { tensors_ = std::move(tensors); }
    const std::vector<TensorLifetime>& tensors() const { return tensors_; }
    void setHighlighted(std::vector<int> rows) { highlighted_ = std::move(rows); }
    void setDimmed(std::vector<bool> dimmed) { dimmed_ = std::move(dimmed); }

    QRectF rectOf(const TensorLifetime& t) const {
        QRectF r(coordsToPixels(double(t.firstStep), mib(t.offset)),
                 coordsToPixels(double(t.lastStep + 1), mib(t.offset + t.bytes)));
        r = r.normalized();
        if (r.width() < 1) r.setWidth(1);
        if (r.height() < 1) r.setHeight(1);  // a tiny tensor still shows
        return r;
    }

    /// The smallest rectangle under a pixel (small ones sit inside the arena's big picture), -1 when none.
    int rowAt(const QPointF& pixel) const {
        int best = -1;
        double bestArea = 0;
        for (size_t i = 0; i < tensors_.size(); ++i) {
            const QRectF r = rectOf(tensors_[i]).adjusted(-1, -1, 1, 1);
            if (!r.contains(pixel)) continue;
            const double area = r.width() * r.height();
            if (best < 0 || area < bestArea) best = static_cast<int>(i), bestArea = area;
        }
        return best;
    }

    double selectTest(const QPointF& pos, bool onlySelectable, QVariant*) const override {
        if (onlySelectable && !selectable()) return -1;
        return rowAt(pos) >= 0 ? 0 : -1;
    }
    QCPRange getKeyRange(bool& foundRange, QCP::SignDomain) const override {
        foundRange = !tensors_.empty();
        QCPRange range(0, 1);
        for (const TensorLifetime& t : tensors_) range.upper = std::max(range.upper, double(t.lastStep + 1));
        return range;
    }
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain, const QCPRange&) const override {
        foundRange = !tensors_.empty();
        QCPRange range(0, 0);
        for (const TensorLifetime& t : tensors_) range.upper = std::max(range.upper, mib(t.offset + t.bytes));
        return range;
    }

protected:
    void draw(QCPPainter* painter) override {
        for (size_t i = 0; i < tensors_.size(); ++i) {
            const bool lit = std::find(highlighted_.begin(), highlighted_.end(), int(i)) != highlighted_.end();
            const bool dim = !lit && i < dimmed_.size() && dimmed_[i];  // the shared filter rejects its producer
            const QColor fill = lit ? kHighlightColor : dim ? kDimmedColor : kTensorColor;
            painter->setPen(QPen(fill.darker(lit ? 170 : 140), lit ? 2.0 : 0.6));
            painter->setBrush(lit ? fill : QColor(fill.red(), fill.green(), fill.blue(), dim ? 90 : 170));
            painter->drawRect(rectOf(tensors_[i]));
        }
    }
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override {
        painter->setBrush(kTensorColor);
        painter->drawRect(rect);
    }

private:
    std::vector<TensorLifetime> tensors_;
    std::vector<int> highlighted_;
    std::vector<bool> dimmed_;
};

namespace {

QCPItemStraightLine* makeLine(QCustomPlot* plot, QCPAxisRect* rect, const QPen& pen) {
    auto* line = new QCPItemStraightLine(plot);
    line->setClipAxisRect(rect);
    for (QCPItemPosition* p : {line->point1, line->point2})
        p->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    line->setPen(pen);
    return line;
}

}  // namespace

LifetimeChart::LifetimeChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setMinimumHeight(260);
    plot_->setObjectName(QStringLiteral("lifetimePlot"));
    plot_->setMouseTracking(true);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);

    lifetimeRect_ = plot_->axisRect();
    liveRect_ = new QCPAxisRect(plot_);
    plot_->plotLayout()->addElement(1, 0, liveRect_);
    plot_->plotLayout()->setRowStretchFactor(0, 2.2);
    plot_->plotLayout()->setRowStretchFactor(1, 1);
    auto* margins = new QCPMarginGroup(plot_);
    for (QCPAxisRect* r : {lifetimeRect_, liveRect_}) {
        r->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
        r->setRangeDrag(Qt::Horizontal);
        r->setRangeZoom(Qt::Horizontal);
    }
    lifetimeRect_->axis(QCPAxis::atLeft)->setLabel(tr("arena offset (MiB)"));
    lifetimeRect_->axis(QCPAxis::atBottom)->setTickLabels(false);
    liveRect_->axis(QCPAxis::atLeft)->setLabel(tr("live (MiB)"));
    liveRect_->axis(QCPAxis::atBottom)->setLabel(tr("execution step"));
    QCPAxis* topSteps = lifetimeRect_->axis(QCPAxis::atBottom);
    QCPAxis* liveSteps = liveRect_->axis(QCPAxis::atBottom);
    connect(topSteps, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), liveSteps,
            qOverload<const QCPRange&>(&QCPAxis::setRange));
    connect(liveSteps, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), topSteps,
            qOverload<const QCPRange&>(&QCPAxis::setRange));

    rects_ = new LifetimePlottable(topSteps, lifetimeRect_->axis(QCPAxis::atLeft));
    rects_->setName(tr("tensor"));
    live_ = plot_->addGraph(liveSteps, liveRect_->axis(QCPAxis::atLeft));
    live_->setLineStyle(QCPGraph::lsStepLeft);
    live_->setPen(QPen(kTensorColor.darker(130), 1.4));
    live_->setBrush(QColor(kTensorColor.red(), kTensorColor.green(), kTensorColor.blue(), 70));

    const QPen peakPen(QColor(0xc0, 0x30, 0x30), 1.4, Qt::DashLine);
    peakLine_ = makeLine(plot_, lifetimeRect_, peakPen);
    peakLineLive_ = makeLine(plot_, liveRect_, peakPen);
    lowerBoundLine_ = makeLine(plot_, lifetimeRect_, QPen(QColor(0x20, 0x90, 0x40), 1.4, Qt::DashLine));
    arenaLine_ = makeLine(plot_, lifetimeRect_, QPen(QColor(0x40, 0x40, 0x40), 1.2, Qt::DotLine));
    peakLabel_ = new QCPItemText(plot_);
    peakLabel_->setClipAxisRect(lifetimeRect_);
    peakLabel_->position->setType(QCPItemPosition::ptAxisRectRatio);
    peakLabel_->position->setAxisRect(lifetimeRect_);
    peakLabel_->position->setCoords(0.01, 0.02);
    peakLabel_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    peakLabel_->setTextAlignment(Qt::AlignLeft);
    peakLabel_->setBrush(QColor(255, 255, 255, 220));
    peakLabel_->setPadding(QMargins(4, 2, 4, 2));
    hint_ = new QCPItemText(plot_);
    hint_->setClipAxisRect(lifetimeRect_);
    hint_->position->setType(QCPItemPosition::ptAxisRectRatio);
    hint_->position->setAxisRect(lifetimeRect_);
    hint_->position->setCoords(0.5, 0.5);

    connect(plot_, &QCustomPlot::mouseMove, this, &LifetimeChart::onMouseMove);
    connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) { pressPos_ = event->pos(); });
    connect(plot_, &QCustomPlot::mouseRelease, this, &LifetimeChart::onMouseRelease);
    clear(tr("Run the model (F5): its activation tensors appear here"));
}

void LifetimeChart::setTensors(const TensorLifetimeModel& model, const MemorySummary& memory) {
    highlighted_.clear();
    rects_->setHighlighted({});
    dimmed_.clear();
    rects_->setDimmed({});
    rects_->setTensors(model.tensors());
    const std::vector<int64_t>& live = model.liveBytes();
    QVector<double> steps, bytes;
    for (size_t s = 0; s < live.size(); ++s) steps << double(s), bytes << mib(live[s]);
    if (!live.empty()) steps << double(live.size()), bytes << 0.0;  // the last step's right edge
    live_->setData(steps, bytes, true);
    peakStep_ = model.peakStep();
    const bool any = !model.tensors().empty();
    hint_->setVisible(!any);
    for (QCPItemStraightLine* l : {peakLine_, peakLineLive_, lowerBoundLine_, arenaLine_}) l->setVisible(any);
    peakLabel_->setVisible(any);
    if (any) {
        const double peakX = double(peakStep_) + 0.5;
        for (QCPItemStraightLine* l : {peakLine_, peakLineLive_}) {
            l->point1->setCoords(peakX, 0);
            l->point2->setCoords(peakX, 1);
        }
        lowerBoundLine_->point1->setCoords(0, mib(memory.lowerBoundBytes));
        lowerBoundLine_->point2->setCoords(1, mib(memory.lowerBoundBytes));
        arenaLine_->point1->setCoords(0, mib(memory.arenaBytes));
        arenaLine_->point2->setCoords(1, mib(memory.arenaBytes));
        peakLabel_->setText(tr("%1 tensors · arena %2 (dotted) · lower bound %3 (green) · peak at step %4 (red): "
                               "%5 live")
                                .arg(model.tensors().size())
                                .arg(formatBytes(memory.arenaBytes), formatBytes(memory.lowerBoundBytes))
                                .arg(peakStep_)
                                .arg(formatBytes(live[size_t(peakStep_)])));
        lifetimeRect_->axis(QCPAxis::atBottom)->setRange(0, std::max<double>(1, double(live.size())));
        const double top = std::max(mib(memory.arenaBytes), mib(memory.lowerBoundBytes));
        lifetimeRect_->axis(QCPAxis::atLeft)->setRange(0, std::max(top, 1e-3) * 1.18);
        const double liveTop = live.empty() ? 1e-3 : mib(*std::max_element(live.begin(), live.end()));
        liveRect_->axis(QCPAxis::atLeft)->setRange(0, std::max(liveTop, 1e-3) * 1.1);
    }
    plot_->replot();
}

void LifetimeChart::clear(const QString& hint) {
    TensorLifetimeModel empty;
    setTensors(empty, {});
    hint_->setText(hint);
    plot_->replot();
}

int LifetimeChart::rectCount() const {
    return static_cast<int>(rects_->tensors().size());
}

int LifetimeChart::tensorAt(const QPoint& pos) const {
    if (!lifetimeRect_->rect().contains(pos)) return -1;
    return rects_->rowAt(pos);
}

QPoint LifetimeChart::centreOf(int row) const {
    if (row < 0 || row >= rectCount()) return {};
    const QPointF c = rects_->rectOf(rects_->tensors()[size_t(row)]).center();
    return QPoint(static_cast<int>(std::lround(c.x())), static_cast<int>(std::lround(c.y())));
}

void LifetimeChart::setDimmedRows(const std::vector<bool>& dimmed) {
    dimmed_ = dimmed;
    rects_->setDimmed(dimmed);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void LifetimeChart::highlightRows(const std::vector<int>& rows) {
    highlighted_ = rows;
    rects_->setHighlighted(rows);
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void LifetimeChart::onMouseMove(QMouseEvent* event) {
    const int row = tensorAt(event->pos());
    QString text;
    if (row >= 0) {
        const TensorLifetime& t = rects_->tensors()[size_t(row)];
        text = tr("%1 · %2 at offset %3 · steps %4 to %5")
                   .arg(QString::fromStdString(t.name), formatBytes(t.bytes), formatBytes(t.offset))
                   .arg(t.firstStep)
                   .arg(t.lastStep);
        QToolTip::showText(plot_->mapToGlobal(event->pos()), text, plot_);
    } else {
        QToolTip::hideText();
    }
    emit hovered(text);
}

void LifetimeChart::onMouseRelease(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || (event->pos() - pressPos_).manhattanLength() > 3) return;  // a drag
    const int row = tensorAt(event->pos());
    if (row >= 0) emit tensorClicked(row);
}

}  // namespace npuwb::ui
