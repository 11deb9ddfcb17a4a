#include "views/matmul/MatmulChart.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

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

QCPGraph* MatmulChart::measuredGraph(const MatmulBenchResult& result) const {
    const QString key = seriesName(result) + QLatin1Char('|') + QString::fromStdString(result.measuredOn);
    const auto found = measured_.find(key);
    return found == measured_.end() ? nullptr : found->second;
}

void MatmulChart::addResult(const MatmulBenchResult& result) {
    const QString name = seriesName(result);
    const bool onBoard = result.measuredOn != "cpu";
    auto spec = specs_.find(name);
    if (spec == specs_.end()) {
        Spec added;
        added.color = kColors[colorsUsed_++ % std::size(kColors)];
        added.estimate = plot_->addGraph();
        added.estimate->setPen(QPen(added.color, 1.5, Qt::DashLine));
        added.estimate->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangle, 6));
        added.estimate->setName(tr("%1, NPU estimate").arg(name));
        added.peak = plot_->addGraph();
        added.peak->setPen(QPen(added.color, 1, Qt::DotLine));
        spec = specs_.emplace(name, std::move(added)).first;
    }
    const QString host = QString::fromStdString(result.measuredOn);
    QCPGraph*& measured = measured_[name + QLatin1Char('|') + host];
    if (!measured) {
        measured = plot_->addGraph();
        // The board's series in a darker shade of the spec's color, so CPU and NPU stay apart at a glance.
        measured->setPen(QPen(onBoard ? spec->second.color.darker(150) : spec->second.color, 2));
        measured->setScatterStyle(
            QCPScatterStyle(onBoard ? QCPScatterStyle::ssSquare : QCPScatterStyle::ssCircle, onBoard ? 7 : 6));
        measured->setName(onBoard ? tr("%1, measured on the NPU of %2").arg(name, host)
                                  : tr("%1, measured on this CPU").arg(name));
    }
    QVector<double> ops, gops;
    for (const MatmulBenchPoint& point : result.points) {
        const double opCount = 2.0 * double(point.M) * double(point.K) * double(point.N);
        ops << opCount;
        gops << point.gops;
        if (point.estimate.timeUs > 0) spec->second.estimateGops[opCount] = opCount / point.estimate.timeUs / 1e3;
    }
    measured->setData(ops, gops);  // QCustomPlot sorts by key
    QVector<double> estimateOps, estimateGops;
    for (const auto& [opCount, value] : spec->second.estimateGops) {
        estimateOps << opCount;
        estimateGops << value;
    }
    spec->second.estimate->setData(estimateOps, estimateGops, true);
    const double first = estimateOps.isEmpty() ? 1.0 : estimateOps.front() / 2;
    const double last = estimateOps.isEmpty() ? 2.0 : estimateOps.back() * 2;
    spec->second.peak->setName(
        tr("%1 peak (%2 GOP/s)").arg(QString::fromStdString(result.chip)).arg(result.peakGops, 0, 'f', 0));
    spec->second.peak->setData(QVector<double>{first, last}, QVector<double>{result.peakGops, result.peakGops}, true);
    rescale();
}

void MatmulChart::clear() {
    plot_->clearGraphs();
    specs_.clear();
    measured_.clear();
    colorsUsed_ = 0;
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
