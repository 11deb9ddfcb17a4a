#include "views/matmul/MatmulChart.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <iterator>

namespace npuwb::ui {

namespace {
// Tableau 10: one color per series, its estimate and peak in the same color.
const QColor kColors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                          QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b)};

QString seriesName(const MatmulBenchResult& result) {
    const MatmulTypeInfo& info = matmulTypeInfo(result.type);
    const std::string shortName = matmulTypeShortName(result.type);
    QString name = QStringLiteral("%1 %2 B %3").arg(QString::fromStdString(result.chip),
                                                    QString::fromStdString(shortName.empty() ? std::string(info.name)
                                                                                             : shortName),
                                                    QString::fromLatin1(matmulLayoutName(result.bLayout)));
    if (result.acLayout != MatmulLayout::Norm) name += QStringLiteral(" A/C ") + QString::fromLatin1(matmulLayoutName(result.acLayout));
    return name;
}
}  // namespace

MatmulChart::MatmulChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    setMinimumHeight(200);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
        axis->setScaleType(QCPAxis::stLogarithmic);
        axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        axis->setNumberFormat(QStringLiteral("eb"));
        axis->setNumberPrecision(0);
    }
    plot_->xAxis->setLabel(tr("Operations per run (2·M·K·N)"));
    plot_->yAxis->setLabel(tr("GOP/s"));
    plot_->legend->setVisible(true);
    plot_->legend->setFont(QFont(font().family(), font().pointSize() - 1));
    plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
}

void MatmulChart::addResult(const MatmulBenchResult& result) {
    const QString name = seriesName(result);
    auto found = series_.find(name);
    if (found == series_.end()) {
        const QColor color = kColors[series_.size() % std::size(kColors)];
        Series series;
        series.measured = plot_->addGraph();
        series.measured->setPen(QPen(color, 2));
        series.measured->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
        series.estimate = plot_->addGraph();
        series.estimate->setPen(QPen(color, 1.5, Qt::DashLine));
        series.estimate->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle, 6));
        series.peak = plot_->addGraph();
        series.peak->setPen(QPen(color, 1, Qt::DotLine));
        found = series_.emplace(name, series).first;
    }
    const Series& series = found->second;
    const QString measuredOn = result.measuredOn == "cpu" ? tr("CPU") : QString::fromStdString(result.measuredOn);
    series.measured->setName(tr("%1, measured on %2").arg(name, measuredOn));
    series.estimate->setName(tr("%1, NPU estimate").arg(name));
    series.peak->setName(tr("%1 peak (%2 GOP/s)").arg(QString::fromStdString(result.chip)).arg(result.peakGops, 0, 'f', 0));
    QVector<double> ops, measured, estimated;
    std::vector<MatmulBenchPoint> points = result.points;
    std::sort(points.begin(), points.end(), [](const MatmulBenchPoint& a, const MatmulBenchPoint& b) {
        return double(a.M) * a.K * a.N < double(b.M) * b.K * b.N;
    });
    for (const MatmulBenchPoint& point : points) {
        const double opCount = 2.0 * double(point.M) * double(point.K) * double(point.N);
        ops << opCount;
        measured << point.gops;
        estimated << (point.estimate.timeUs > 0 ? opCount / point.estimate.timeUs / 1e3 : 0.0);
    }
    series.measured->setData(ops, measured, true);
    series.estimate->setData(ops, estimated, true);
    series.peak->setData(QVector<double>{ops.isEmpty() ? 1.0 : ops.front() / 2, ops.isEmpty() ? 2.0 : ops.back() * 2},
                         QVector<double>{result.peakGops, result.peakGops}, true);
    rescale();
}

void MatmulChart::clear() {
    plot_->clearGraphs();
    series_.clear();
    plot_->replot();
}

void MatmulChart::rescale() {
    plot_->rescaleAxes();
    // Some room around the points on the log axes.
    plot_->xAxis->setRange(plot_->xAxis->range().lower / 2, plot_->xAxis->range().upper * 2);
    plot_->yAxis->setRange(plot_->yAxis->range().lower / 2, plot_->yAxis->range().upper * 2);
    plot_->replot();
}

}  // namespace npuwb::ui
