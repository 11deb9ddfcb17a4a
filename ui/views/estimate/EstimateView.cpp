#include "views/estimate/EstimateView.h"

#include <QAction>
#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QHash>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "core/LayerNameDelegate.h"
#include "core/OnnxOnlyAction.h"
#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "models/EstimateTableModel.h"
#include "models/Format.h"
#include "models/InputShapes.h"
#include "models/LayerFilter.h"
#include "models/LayerSelection.h"
#include "npuwb/CostModel.h"
#include "views/estimate/CyclesChart.h"
#include "views/estimate/EstimateTimeChart.h"

namespace npuwb::ui {

NPUWB_GUI_VIEW(EstimateView, "estimate", QT_TRANSLATE_NOOP("views", "&Estimate"), Qt::ALT | Qt::Key_2, 20);

EstimateView::EstimateView(Workbench& workbench, QWidget* parent)
    : WorkbenchView(workbench, parent), job_(new EstimateJob(this)),
      estimateAction_(new QAction(tr("&Estimate on Chip"), this)), totals_(new QLabel(this)), details_(new QLabel(this)),
      timeChart_(new EstimateTimeChart(this)), cyclesChart_(new CyclesChart(this)),
      tableModel_(new EstimateTableModel(this)), tableProxy_(new LayerFilterProxy(this)),
      table_(new QTableView(this)) {
    totals_->setTextFormat(Qt::RichText);
    totals_->setWordWrap(true);  // unwrapped, its length would be the view's minimum width and squeeze the docks
    totals_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    details_->setWordWrap(true);
    auto* charts = new QSplitter(Qt::Horizontal, this);
    charts->setObjectName(QStringLiteral("estimateSplitter"));
    charts->addWidget(timeChart_);
    charts->addWidget(cyclesChart_);
    charts->setStretchFactor(0, 3);
    charts->setStretchFactor(1, 2);
    tableProxy_->setSourceModel(tableModel_);
    tableProxy_->setSortRole(EstimateTableModel::SortRole);
    // The shared filter hides table rows and greys their bars in the time chart.
    tableProxy_->setLayerFilter(workbench.layerFilter(), [this](int row) { return filterRow(row); });
    connect(workbench.layerFilter(), &LayerFilter::changed, this, &EstimateView::applyFilterToChart);
    table_->setObjectName(QStringLiteral("estimateTable"));
    table_->setModel(tableProxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(-1, Qt::AscendingOrder);  // execution order until the user sorts
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->setItemDelegateForColumn(EstimateTableModel::FullNameColumn, new LayerNameDelegate(table_));
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setStretchLastSection(true);
    connect(tableModel_, &QAbstractItemModel::modelReset, this, [this] {
        table_->resizeColumnsToContents();
        const int maxWidth = fontMetrics().horizontalAdvance(QLatin1Char('x')) * 28;  // shapes: the tooltip has more
        for (int c = 0; c < EstimateTableModel::FullNameColumn; ++c)
            table_->setColumnWidth(c, std::min(table_->columnWidth(c), maxWidth));
    });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &EstimateView::onTableRowChanged);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->setObjectName(QStringLiteral("estimateTableSplitter"));
    split->addWidget(charts);
    split->addWidget(table_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(totals_);
    layout->addWidget(split, 1);
    layout->addWidget(details_);
    connect(timeChart_, &EstimateTimeChart::layerClicked, this, &EstimateView::onRowClicked);
    connect(cyclesChart_, &CyclesChart::layerClicked, this, &EstimateView::onRowClicked);
    timeChart_->setToolTipProvider([this](int row) { return layerToolTip(row); });
    cyclesChart_->setToolTipProvider([this](int row) { return layerToolTip(row); });
    clear(tr("Open a model, pick a chip and press Estimate (F6)"));

    estimateAction_->setShortcut(Qt::Key_F6);
    estimateAction_->setToolTip(tr("Estimate per-layer NPU time on the chosen chip, without a board (F6)"));
    connect(estimateAction_, &QAction::triggered, this, &EstimateView::startEstimate);
    workbench.trackJob(job_);
    connect(job_, &EstimateJob::finished, this, &EstimateView::onFinished);
    connect(job_, &EstimateJob::failed, this, [this](const QString& message) {
        this->workbench().hideProgress();
        this->workbench().reportError(tr("Estimate failed"), message);
    });
    connect(&workbench, &Workbench::stateChanged, this, &EstimateView::updateAction);
    connect(&workbench, &Workbench::modelLoaded, this, [this] {
        clear(this->workbench().hasCompiledModel()
                  ? tr("Estimate %1 (open the ONNX model it was converted from)").arg(onnxOnlyReason())
                  : tr("Pick a chip and press Estimate (F6)"));
    });
    connect(&workbench, &Workbench::modelChanged, this, &EstimateView::onModelChanged);
    LayerSelection* selection = workbench.selection();
    connect(this, &EstimateView::nodesClicked, selection, &LayerSelection::selectNodes);
    connect(selection, &LayerSelection::nodesSelected, this, &EstimateView::highlightNodes);
    connect(&workbench, &Workbench::reportChanged, this, [this] {  // a run renumbers the layers: follow it
        showLayers();
        highlightNodes(this->workbench().selection()->selectedNodes());
    });
    updateAction();
}

QList<ViewAction> EstimateView::viewActions() const {
    return {{.action = estimateAction_, .menu = MenuSlot::Analyze, .toolBar = ToolBarSlot::Target}};
}

bool EstimateView::startFromCommandLine() {
    startEstimate();
    return job_->isRunning();
}

void EstimateView::updateAction() {
    enableOnnxAction(estimateAction_, workbench(), workbench().hasModel() && !workbench().isBusy());
}

void EstimateView::startEstimate() {
    if (!workbench().hasOnnxModel() || workbench().isBusy()) return;  // a compiled model has no graph to estimate
    workbench().afterInputShapes([this] {  // symbolic input dims: asks for sizes first
        if (workbench().hasOnnxModel() && !workbench().isBusy()) start();
    });
}

void EstimateView::start() {
    if (job_->isRunning()) return;
    workbench().showProgress(0, 0);
    workbench().setStatus(tr("Estimating on %1 …").arg(workbench().target().chip));
    estimated_ = workbench().currentModel();
    job_->start(estimated_, workbench().target(), workbench().inputShapes());
}

void EstimateView::onFinished(std::shared_ptr<const EstimateResult> result) {
    if (estimated_ != workbench().currentModel()) {  // the model changed (undo, redo) while it ran: estimate that one
        if (workbench().hasOnnxModel()) start();
        return;
    }
    setResult(result);
    highlightNodes(workbench().selection()->selectedNodes());
    workbench().setStatus(totals_->text().remove(QRegularExpression(QStringLiteral("<[^>]*>"))));
    workbench().hideProgress();
    workbench().showEstimate(result);  // the Graph view colours and groups by it
    emit estimateShown(result);
    emit resultShown();
}

void EstimateView::onModelChanged() {
    // The estimate described the old graph (node names may be gone): recompute what was shown.
    const bool hadEstimate = result_ != nullptr;
    clear(tr("The model changed: press Estimate (F6) again"));
    if (hadEstimate) start();
}

void EstimateView::clear(const QString& hint) {
    result_.reset();
    totals_->setText(hint);
    details_->clear();
    timeChart_->setLayers({});
    cyclesChart_->setLayers({});
    tableModel_->clear();
}

void EstimateView::setResult(std::shared_ptr<const EstimateResult> result) {
    result_ = std::move(result);
    const Report& report = result_->report;
    int fallbacks = 0;
    double fallbackUs = 0;
    for (const LayerRow& row : report.layers)
        if (row.target != "NPU") ++fallbacks, fallbackUs += row.timeUs;
    showLayers();
    // The cost model's held-out error as a range (CLI: "likely A-B"); its basis in the tooltip.
    const bool ranged = !report.run.estimateBasis.empty() && report.run.minUs > 0 && report.run.maxUs > 0;
    const QString range = ranged ? tr(" (likely %1–%2)")
                                       .arg(1e6 / report.run.maxUs, 0, 'f', 1)
                                       .arg(1e6 / report.run.minUs, 0, 'f', 1)
                                 : QString();
    totals_->setToolTip(QString::fromStdString(report.run.estimateBasis));
    totals_->setText(tr("<b>%1</b> %2, %3 core(s): <b>%4</b> per inference, <b>%5 FPS</b>%13 · %6 layers · "
                        "<span style='color:%11'>%7 CPU fallback(s), %8</span> · %9 of %10 NPU layers "
                        "bandwidth-bound · %12")
                         .arg(QString::fromStdString(report.environment.device), result_->target.dtype)
                         .arg(result_->target.cores)
                         .arg(formatMicros(report.run.medianUs))
                         .arg(estimatedFps(report), 0, 'f', 1)
                         .arg(report.layers.size())
                         .arg(fallbacks)
                         .arg(formatMicros(fallbackUs))
                         .arg(cyclesChart_->bandwidthBoundCount())
                         .arg(cyclesChart_->pointCount())
                         .arg(fallbacks > 0 ? QStringLiteral("#d06000") : QStringLiteral("#404040"))
                         .arg(inputShapesText(report.model).toHtmlEscaped())
                         .arg(range));
    details_->setText(tr("Click a bar, a point or a row to select its layer (and its ONNX nodes) everywhere; hover "
                         "for its figures."));
}

void EstimateView::showLayers() {
    if (!result_) return;
    const Report& report = result_->report;
    // One ID per layer in every tab: the opened model's ID of the layer's anchor node, not the estimate's row.
    std::vector<int> ids;
    for (size_t i = 0; i < report.layers.size(); ++i) {
        const QStringList& nodes = result_->layerNodes[i];
        ids.push_back(nodes.isEmpty() ? -1 : workbench().selection()->numberLayer(nodes.front()));
    }
    // The estimate names fused layers in RKNN's words (ConvolutionRelu); the filter's op types are ONNX's, so a
    // row also reads as the op type of its anchor node.
    QHash<QString, QString> opOfNode;
    if (const auto loaded = workbench().loadedModel())
        for (const LayerRow& row : loaded->layers)
            opOfNode.insert(QString::fromStdString(row.fullName), QString::fromStdString(row.opType));
    anchorOps_.clear();
    for (const QStringList& nodes : result_->layerNodes)
        anchorOps_.push_back(nodes.isEmpty() ? QString() : opOfNode.value(nodes.front()));
    tableModel_->setLayers(report.layers, ids, int(report.environment.cores), result_->target.cores);
    QStringList idTexts;
    for (int i = 0; i < int(report.layers.size()); ++i) idTexts << tableModel_->idText(i);
    timeChart_->setLayers(report.layers, idTexts);
    applyFilterToChart();
    cyclesChart_->setLayers(report.layers);
}

LayerFilterProxy::RowLayer EstimateView::filterRow(int row) const {
    const LayerRow& layer = tableModel_->layers()[size_t(row)];
    const QString anchorOp = size_t(row) < anchorOps_.size() ? anchorOps_[size_t(row)] : QString();
    return {anchorOp.isEmpty() ? QString::fromStdString(layer.opType) : anchorOp, QString::fromStdString(layer.target),
            QString::fromStdString(layer.fullName), layer.timeUs};
}

void EstimateView::applyFilterToChart() {
    const LayerFilter& filter = *workbench().layerFilter();
    std::vector<bool> matches;
    for (int row = 0; row < int(tableModel_->layers().size()); ++row) {
        const LayerFilterProxy::RowLayer layer = filterRow(row);
        matches.push_back(filter.matches(layer.opType, layer.target, layer.name, layer.timeUs));
    }
    timeChart_->setRowMatches(matches);
}

std::vector<int> EstimateView::rowsOfNodes(const QStringList& names) const {
    std::vector<int> rows;
    if (!result_) return rows;
    for (size_t i = 0; i < result_->layerNodes.size(); ++i)
        for (const QString& name : result_->layerNodes[i])
            if (names.contains(name)) {
                rows.push_back(int(i));
                break;
            }
    return rows;
}

void EstimateView::highlightNodes(const QStringList& names) {
    const std::vector<int> rows = rowsOfNodes(names);
    timeChart_->highlightRows(rows);
    cyclesChart_->highlightRows(rows);
    selectTableRows(rows);
    showDetails(rows);
}

void EstimateView::selectTableRows(const std::vector<int>& rows) {
    followingSelection_ = true;
    QItemSelection selection;
    for (int row : rows) {
        const QModelIndex index = tableProxy_->mapFromSource(tableModel_->index(row, 0));
        if (index.isValid()) selection.select(index, index.siblingAtColumn(EstimateTableModel::ColumnCount - 1));
    }
    table_->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    if (!rows.empty()) {
        const QModelIndex first = tableProxy_->mapFromSource(tableModel_->index(rows.front(), 0));
        table_->selectionModel()->setCurrentIndex(first, QItemSelectionModel::NoUpdate);
        table_->scrollTo(first);
    }
    followingSelection_ = false;
}

void EstimateView::onTableRowChanged() {
    if (followingSelection_) return;
    const QModelIndex current = table_->currentIndex();
    if (current.isValid()) onRowClicked(current.data(EstimateTableModel::EstimateRowRole).toInt());
}

QString EstimateView::layerToolTip(int row) const {
    if (!result_ || row < 0 || row >= int(result_->report.layers.size())) return {};
    const LayerRow& l = result_->report.layers[size_t(row)];
    QString text = tr("Layer %1: %2\n%3 on %4 · %5")
                       .arg(tableModel_->idText(row), QString::fromStdString(l.fullName),
                            QString::fromStdString(l.opType), QString::fromStdString(l.target), formatMicros(l.timeUs));
    if (l.cyclesDdr && l.cyclesNpu && l.cyclesTotal)
        text += tr("\ncycles DDR %1 / NPU %2 / total %3 (%4)")
                    .arg(formatCount(*l.cyclesDdr), formatCount(*l.cyclesNpu), formatCount(*l.cyclesTotal),
                         *l.cyclesDdr > *l.cyclesNpu ? tr("bandwidth-bound") : tr("compute-bound"));
    if (l.macUsagePercent) text += tr("\nMAC usage %1%").arg(*l.macUsagePercent, 0, 'f', 1);
    if (!l.fusedNodes.empty()) text += tr("\nfused: %1 node(s)").arg(l.fusedNodes.size() + 1);
    return text;
}

void EstimateView::onRowClicked(int row) {
    if (result_ && row >= 0 && row < int(result_->layerNodes.size())) emit nodesClicked(result_->layerNodes[size_t(row)]);
}

void EstimateView::showDetails(const std::vector<int>& rows) {
    if (!result_ || rows.empty()) return;
    const LayerRow& row = result_->report.layers[size_t(rows.front())];
    QString text = tr("Layer %1 · %2 · %3 on %4 · %5").arg(tableModel_->idText(rows.front()),
                                              QString::fromStdString(row.fullName),
                                              QString::fromStdString(row.opType),
                                              QString::fromStdString(row.target), formatMicros(row.timeUs));
    if (row.cyclesNpu && row.cyclesDdr)
        text += tr(" · NPU %1 / DDR %2 cycles (%3) · MAC usage %4%")
                    .arg(formatCount(*row.cyclesNpu), formatCount(*row.cyclesDdr),
                         *row.cyclesDdr > *row.cyclesNpu ? tr("bandwidth-bound") : tr("compute-bound"))
                    .arg(row.macUsagePercent.value_or(0), 0, 'f', 1);
    const QStringList& nodes = result_->layerNodes[size_t(rows.front())];
    if (nodes.size() > 1) text += tr(" · fused: %1").arg(nodes.join(QStringLiteral(" + ")));
    if (rows.size() > 1) text += tr(" (and %1 more layers)").arg(rows.size() - 1);
    details_->setText(text);
}

}  // namespace npuwb::ui
