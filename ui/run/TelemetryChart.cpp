#include "run/TelemetryChart.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>

namespace npuwb::ui {

TelemetryChart::TelemetryChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    setObjectName(QStringLiteral("telemetryChart"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setMinimumHeight(180);

    plot_->xAxis->setLabel(tr("time (s)"));
    plot_->yAxis->setLabel(tr("NPU load (%)"));
    plot_->yAxis->setRange(0, 100);
    plot_->yAxis2->setVisible(true);
    plot_->yAxis2->setLabel(tr("clock (MHz)"));
    auto addGraph = [this](QCPAxis* valueAxis, const QString& name, const QColor& color, Qt::PenStyle style) {
        QCPGraph* g = plot_->addGraph(plot_->xAxis, valueAxis);
        g->setName(name);
        QPen pen(color, 2);
        pen.setStyle(style);
        g->setPen(pen);
        return g;
    };
    load_ = addGraph(plot_->yAxis, tr("NPU load"), QColor(0xd6, 0x27, 0x28), Qt::SolidLine);
    load_->setBrush(QColor(0xd6, 0x27, 0x28, 40));
    cpu_ = addGraph(plot_->yAxis2, tr("CPU clock (fastest core)"), QColor(0x1f, 0x77, 0xb4), Qt::SolidLine);
    npu_ = addGraph(plot_->yAxis2, tr("NPU clock"), QColor(0xff, 0x7f, 0x0e), Qt::DashLine);
    ddr_ = addGraph(plot_->yAxis2, tr("DDR clock"), QColor(0x2c, 0xa0, 0x2c), Qt::DotLine);
    // The legend gets its own row above the plot, in one line, so it never hides a curve.
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setFont(QFont(font().family(), font().pointSize() - 1));
    plot_->legend->setVisible(true);

    hint_ = new QCPItemText(plot_);
    hint_->position->setType(QCPItemPosition::ptAxisRectRatio);
    hint_->position->setCoords(0.5, 0.5);
    hint_->setColor(Qt::gray);
    clear(tr("Run a model on a board to see its NPU load and clocks here"));
}

void TelemetryChart::clear(const QString& hint) {
    for (QCPGraph* g : {load_, cpu_, npu_, ddr_}) g->data()->clear();
    samples_ = 0;
    maxMHz_ = 0.0;
    plot_->xAxis->setRange(0, 1);
    plot_->yAxis2->setRange(0, 2500);
    hint_->setText(hint);
    hint_->setVisible(!hint.isEmpty());
    plot_->replot();
}

void TelemetryChart::addSample(const TelemetrySample& s) {
    ++samples_;
    hint_->setVisible(false);
    if (s.npuLoadPercent) load_->addData(s.seconds, *s.npuLoadPercent);
    const std::pair<QCPGraph*, std::optional<double>> clocks[] = {{cpu_, s.cpuMHz}, {npu_, s.npuMHz}, {ddr_, s.ddrMHz}};
    for (const auto& [graph, mhz] : clocks)
        if (mhz) {
            graph->addData(s.seconds, *mhz);
            maxMHz_ = std::max(maxMHz_, *mhz);
        }
    plot_->xAxis->setRange(0, std::max(0.5, s.seconds * 1.05));  // fit the run, short or long
    plot_->yAxis2->setRange(0, std::max(500.0, maxMHz_ * 1.1));
    plot_->replot(QCustomPlot::rpQueuedReplot);  // samples arrive every 250 ms; never replot more than once per frame
}

}  // namespace npuwb::ui
