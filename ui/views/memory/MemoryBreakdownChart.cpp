#include "views/memory/MemoryBreakdownChart.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>

#include "models/Format.h"

namespace npuwb::ui {

namespace {
double mib(int64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }
}  // namespace

MemoryBreakdownChart::MemoryBreakdownChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(plot_);
    plot_->setObjectName(QStringLiteral("memoryBreakdownPlot"));
    plot_->yAxis->setRangeReversed(true);  // first row on top
    plot_->yAxis->grid()->setVisible(false);
    plot_->xAxis->setLabel(tr("MiB"));
    draw();
}

std::vector<MemoryBreakdownChart::Row> MemoryBreakdownChart::rowsOf(const Report& report) {
    const MemorySummary& m = report.memory;
    std::vector<Row> rows;
    rows.push_back({tr("Weights"), m.weightBytes, tr("initializers of the model")});
    if (m.arenaBytes > 0 || !m.tensors.empty())
        rows.push_back({tr("Activation arena"), m.arenaBytes, tr("the planner's arena for intermediate tensors")});
    if (m.lowerBoundBytes > 0)
        rows.push_back({tr("Lower bound"), m.lowerBoundBytes, tr("the most intermediate bytes live at one step")});
    rows.push_back({tr("Inputs + outputs"), m.ioBytes, tr("graph inputs and outputs")});
    // What the model needs, apart from the process that happened to run it.
    rows.push_back({tr("Model total"), m.weightBytes + m.arenaBytes + m.ioBytes,
                    tr("weights + activation arena + inputs and outputs: what the model itself needs")});
    if (m.peakRssBytes > 0)
        rows.push_back({tr("Process peak RSS"), m.peakRssBytes,
                        tr("the peak resident set of the whole process that ran it (code, runtime, allocator and, "
                           "for a run from the GUI, the GUI itself): not the model's memory")});
    if (const auto& rt = report.runtime) {
        const QString runtime = QString::fromStdString(rt->runtime);
        rows.push_back({tr("%1: weights (shared)").arg(runtime), rt->weightBytes,
                        tr("the runtime's weight memory, counted once for every context")});
        for (const RuntimeContext& c : rt->contexts)
            rows.push_back({tr("%1: context %2 internal").arg(runtime).arg(c.index), c.internalBytes,
                            tr("the runtime's memory query for this context (core mask %1)")
                                .arg(QString::fromStdString(c.coreMask))});
        rows.push_back({tr("%1: total").arg(runtime), rt->totalBytes, tr("shared weights + every context")});
    }
    return rows;
}

void MemoryBreakdownChart::setReport(const Report& report) {
    rows_ = rowsOf(report);
    draw();
}

void MemoryBreakdownChart::clear() {
    rows_.clear();
    draw();
}

void MemoryBreakdownChart::draw() {
    plot_->clearPlottables();
    plot_->clearItems();
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    auto* bars = new QCPBars(plot_->yAxis, plot_->xAxis);
    bars->setWidth(0.6);
    bars->setPen(QPen(QColor(0x4a, 0x5f, 0x7e)));
    bars->setBrush(QColor(0x6f, 0x86, 0xa6));
    double widest = 0;
    for (size_t i = 0; i < rows_.size(); ++i) {
        ticker->addTick(double(i), rows_[i].label);
        bars->addData(double(i), mib(rows_[i].bytes));
        widest = std::max(widest, mib(rows_[i].bytes));
        auto* value = new QCPItemText(plot_);
        value->position->setCoords(mib(rows_[i].bytes), double(i));
        value->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
        value->setPadding(QMargins(6, 0, 0, 0));
        value->setText(formatBytes(rows_[i].bytes));
    }
    plot_->yAxis->setTicker(ticker);
    plot_->yAxis->setSubTicks(false);
    plot_->yAxis->setRange(-0.6, std::max<double>(1, double(rows_.size())) - 0.4);
    plot_->xAxis->setRange(0, std::max(widest, 1e-3) * 1.75);  // room for the values beside the bars
    plot_->replot();
}

}  // namespace npuwb::ui
