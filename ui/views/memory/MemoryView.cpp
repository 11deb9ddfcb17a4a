#include "views/memory/MemoryView.h"

#include <QFileInfo>
#include <QHash>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "models/Format.h"
#include "models/InputShapes.h"
#include "models/LayerFilter.h"
#include "models/LayerSelection.h"
#include "models/TensorLifetimeModel.h"
#include "views/memory/LifetimeChart.h"
#include "views/memory/MemoryBreakdownChart.h"

namespace npuwb::ui {

NPUWB_GUI_VIEW(MemoryView, "memory", QT_TRANSLATE_NOOP("views", "Mem&ory"), Qt::ALT | Qt::Key_8, 35);

MemoryView::MemoryView(Workbench& workbench, QWidget* parent)
    : WorkbenchView(workbench, parent), header_(new QLabel(this)), filterNote_(new QLabel(this)), breakdown_(new MemoryBreakdownChart(this)),
      chart_(new LifetimeChart(this)), model_(new TensorLifetimeModel(this)), proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView(this)), splitter_(new QSplitter(Qt::Vertical, this)),
      lower_(new QSplitter(Qt::Horizontal, this)) {
    header_->setObjectName(QStringLiteral("memoryHeader"));
    header_->setTextFormat(Qt::RichText);
    header_->setWordWrap(true);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(TensorLifetimeModel::SortRole);
    table_->setObjectName(QStringLiteral("tensorTable"));
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(TensorLifetimeModel::BytesColumn, Qt::DescendingOrder);  // the big ones first
    table_->setWordWrap(false);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setColumnWidth(TensorLifetimeModel::NameColumn, 200);
    table_->setColumnWidth(TensorLifetimeModel::ProducerColumn, 200);
    lower_->addWidget(breakdown_);
    lower_->addWidget(table_);
    lower_->setSizes({380, 620});
    splitter_->addWidget(chart_);
    splitter_->addWidget(lower_);
    splitter_->setStretchFactor(0, 3);
    splitter_->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 0);
    layout->addWidget(header_);
    filterNote_->setObjectName(QStringLiteral("memoryFilterNote"));
    filterNote_->hide();
    layout->addWidget(filterNote_);
    layout->addWidget(splitter_, 1);

    connect(&workbench, &Workbench::reportChanged, this, &MemoryView::showReport);
    connect(&workbench, &Workbench::modelLoaded, this, [this] { clear(tr("Run the model (F5) to see its memory.")); });
    // Views talk only to the shared selection: a tensor selects the layer that makes it.
    LayerSelection* selection = workbench.selection();
    connect(chart_, &LifetimeChart::tensorClicked, this, &MemoryView::selectRow);
    connect(table_, &QTableView::clicked, this,
            [this](const QModelIndex& index) { selectRow(proxy_->mapToSource(index).row()); });
    connect(selection, &LayerSelection::layerSelected, this, &MemoryView::highlightLayer);
    connect(workbench.layerFilter(), &LayerFilter::changed, this, &MemoryView::applyFilter);
    connect(chart_, &LifetimeChart::hovered, this, [this](const QString& text) {
        if (!text.isEmpty()) this->workbench().showMessage(text, 4000);
    });
    clear(tr("Open a model and run it (F5) to see its memory."));
}

void MemoryView::clear(const QString& hint) {
    header_->setText(hint);
    model_->setReport({}, {});
    breakdown_->clear();
    chart_->clear(hint);
    applyFilter();
}

void MemoryView::showReport() {
    const Report* report = workbench().lastReport();
    if (!report) return;
    model_->setReport(report->memory, report->layers);
    breakdown_->setReport(*report);
    chart_->setTensors(*model_, report->memory);
    const bool board = report->environment.device != "local";
    QString where = board && report->runtime
                        ? tr("%1 runtime on %2").arg(QString::fromStdString(report->environment.backend),
                                                     QString::fromStdString(report->environment.device))
                        : tr("%1, %2 thread(s) on %3")
                              .arg(QString::fromStdString(report->environment.backend))
                              .arg(report->environment.threads)
                              .arg(QString::fromStdString(report->environment.device));
    if (report->runtime)
        where += tr(", %1 context(s), batch %2").arg(report->runtime->contexts.size()).arg(report->runtime->batch);
    const QString shapes = inputShapesText(report->model);
    QString text = tr("<b>%1</b> · %2 of %3 · %4 · model: weights %5, arena %6 (lower bound %7), I/O %8")
                       .arg(QFileInfo(QString::fromStdString(report->model.path)).fileName().toHtmlEscaped(),
                            QString::fromStdString(report->kind), where.toHtmlEscaped(), shapes.toHtmlEscaped())
                       .arg(formatBytes(report->memory.weightBytes), formatBytes(report->memory.arenaBytes),
                            formatBytes(report->memory.lowerBoundBytes), formatBytes(report->memory.ioBytes));
    if (report->memory.peakRssBytes > 0)  // the whole process that ran it, the GUI included: not the model's
        text += tr(" · process peak RSS %1").arg(formatBytes(report->memory.peakRssBytes));
    if (report->memory.tensors.empty())
        text += tr("<br>This report has no tensor lifetimes (a board runtime or an imported log plans its own "
                   "memory).");
    header_->setText(text);
    highlightLayer(workbench().selection()->selectedLayer());
    applyFilter();
    emit resultShown();
}

void MemoryView::applyFilter() {
    const LayerFilter& filter = *workbench().layerFilter();
    const Report* report = workbench().lastReport();
    QHash<int, const LayerRow*> layerOfId;
    if (report)
        for (const LayerRow& layer : report->layers) layerOfId.insert(int(layer.id), &layer);
    std::vector<bool> dimmed;
    matching_ = 0;
    for (int row = 0; row < model_->rowCount(); ++row) {
        const LayerRow* layer = layerOfId.value(model_->producerOfRow(row));
        // A tensor no layer made (a graph input) only matches an inactive filter.
        const bool match = !filter.isActive() ||
                           (layer && filter.matches(QString::fromStdString(layer->opType),
                                                    QString::fromStdString(layer->target),
                                                    QString::fromStdString(layer->fullName), layer->timeUs));
        dimmed.push_back(!match);
        matching_ += match ? 1 : 0;
    }
    chart_->setDimmedRows(filter.isActive() ? dimmed : std::vector<bool>());
    filterNote_->setVisible(filter.isActive() && model_->rowCount() > 0);
    filterNote_->setText(tr("Filter: %1 of %2 tensors made by matching layers (the others are grey)")
                             .arg(matching_)
                             .arg(model_->rowCount()));
}

void MemoryView::selectRow(int row) {
    const int layer = model_->producerOfRow(row);
    if (layer >= 0) workbench().selection()->selectLayer(layer);
}

void MemoryView::highlightLayer(int id) {
    const std::vector<int> rows = model_->rowsOfProducer(id);
    chart_->highlightRows(rows);
    if (rows.empty()) {
        table_->clearSelection();
        return;
    }
    const QModelIndex index = proxy_->mapFromSource(model_->index(rows.front(), 0));
    table_->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    table_->scrollTo(index);
}

void MemoryView::saveSettings(QSettings& settings) const {
    settings.setValue(QStringLiteral("splitter"), splitter_->saveState());
    settings.setValue(QStringLiteral("lowerSplitter"), lower_->saveState());
}

void MemoryView::restoreSettings(QSettings& settings) {
    splitter_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
    lower_->restoreState(settings.value(QStringLiteral("lowerSplitter")).toByteArray());
}

}  // namespace npuwb::ui
