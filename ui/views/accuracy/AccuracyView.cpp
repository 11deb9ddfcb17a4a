#include "views/accuracy/AccuracyView.h"

#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolTip>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "core/LayerNameDelegate.h"
#include "core/OnnxOnlyAction.h"
#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "dialogs/QuantizeDialog.h"
#include "jobs/QuantizeJob.h"
#include "npuwb/RknnConversion.h"
#include "models/AccuracyModel.h"
#include "models/LayerSelection.h"
#include "npuwb/Error.h"

namespace npuwb::ui {

namespace {

// The precision column edits with a combo box of the choices the quantizer knows.
class PrecisionDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex&) const override {
        auto* box = new QComboBox(parent);
        box->addItems(AccuracyModel::precisionChoices());
        return box;
    }
    void setEditorData(QWidget* editor, const QModelIndex& index) const override {
        static_cast<QComboBox*>(editor)->setCurrentText(index.data(Qt::EditRole).toString());
    }
    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override {
        model->setData(index, static_cast<QComboBox*>(editor)->currentText(), Qt::EditRole);
    }
};

QCPGraph* makeSeries(QCustomPlot* plot, const QString& name, const QColor& colour, QCPScatterStyle::ScatterShape shape) {
    QCPGraph* g = plot->addGraph();
    g->setName(name);
    g->setPen(QPen(colour, 1.6));
    g->setScatterStyle(QCPScatterStyle(shape, colour, colour, 5));
    return g;
}

QString summaryOf(const QuantizeOutcome& o) {
    const AccuracySection& a = o.accuracy;
    double worst = 1.0;
    QString worstName;
    for (const AccuracyLayer& l : a.layers)
        if (l.entireCosine < worst) worst = l.entireCosine, worstName = QString::fromStdString(l.fullName);
    QStringList outputs;
    for (const AccuracyOutput& out : a.outputs)
        outputs << QStringLiteral("%1 %2").arg(QString::fromStdString(out.name)).arg(out.cosine, 0, 'f', 6);
    QString text = AccuracyView::tr("<b>%1</b>, %2 observer, %3 weight rounding, %4 calibration samples, analysis on "
                                    "%5 · output cosine: %6 · lowest entire cosine %7 (%8)")
                       .arg(QString::fromStdString(a.scheme))
                       .arg(QString::fromStdString(std::string(quant::observerName(o.calibration.observer))))
                       .arg(QString::fromStdString(std::string(quant::weightRoundingName(o.calibration.weightRounding))))
                       .arg(o.calibration.samples)
                       .arg(a.samples)
                       .arg(outputs.join(QStringLiteral(", ")))
                       .arg(worst, 0, 'f', 6)
                       .arg(worstName.toHtmlEscaped());
    if (o.hybrid) {
        int kept = 0;
        for (const quant::HybridLayer& l : o.hybrid->layers) kept += l.kept;
        text += AccuracyView::tr(" · auto-hybrid kept %1 layer(s) in higher precision (cosine %2 → %3)")
                    .arg(kept)
                    .arg(o.hybrid->cosineBefore, 0, 'f', 4)
                    .arg(o.hybrid->cosineAfter, 0, 'f', 4);
    }
    return text;
}

}  // namespace

NPUWB_GUI_VIEW(AccuracyView, "accuracy", QT_TRANSLATE_NOOP("views", "Acc&uracy"), Qt::ALT | Qt::Key_4, 40);

AccuracyView::AccuracyView(Workbench& workbench, QWidget* parent)
    : WorkbenchView(workbench, parent), job_(new QuantizeJob(this)), quantizeAction_(new QAction(tr("&Quantize…"), this)),
      model_(new AccuracyModel(this)), proxy_(new QSortFilterProxyModel(this)),
      summary_(new QLabel(this)), plot_(new QCustomPlot(this)), placeholder_(new QLabel(this)),
      table_(new QTableView(this)),
      reevaluate_(new QPushButton(tr("Re-evaluate"), this)) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(AccuracyModel::SortRole);
    summary_->setWordWrap(true);
    summary_->setTextFormat(Qt::RichText);
    reevaluate_->setObjectName(QStringLiteral("reevaluateButton"));
    reevaluate_->setToolTip(tr("Rebuild the quantized model with the precisions chosen in the table and analyse it "
                               "again (no recalibration)"));

    entire_ = makeSeries(plot_, tr("entire (quantized up to the layer)"), QColor(0x1f, 0x77, 0xb4), QCPScatterStyle::ssCircle);
    single_ = makeSeries(plot_, tr("single (only this layer quantized)"), QColor(0xff, 0x7f, 0x0e), QCPScatterStyle::ssDiamond);
    marker_ = new QCPItemStraightLine(plot_);
    marker_->setPen(QPen(QColor(200, 0, 0), 1.5, Qt::DashLine));
    marker_->setVisible(false);
    plot_->xAxis->setLabel(tr("Layer ID (the table's order)"));
    plot_->yAxis->setLabel(tr("Cosine vs float"));
    plot_->legend->setVisible(true);
    plot_->plotLayout()->insertRow(0);
    plot_->plotLayout()->addElement(0, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);
    plot_->setMinimumHeight(180);
    connect(plot_, &QCustomPlot::mouseRelease, this, &AccuracyView::onPlotClicked);
    connect(plot_, &QCustomPlot::mouseMove, this, &AccuracyView::onPlotHovered);
    // Before each replot: zoom, pan and resize change how many ID labels fit.
    connect(plot_, &QCustomPlot::beforeReplot, this, &AccuracyView::updateTicks);

    table_->setModel(proxy_);
    table_->setObjectName(QStringLiteral("accuracyTable"));
    table_->setSortingEnabled(true);
    table_->sortByColumn(AccuracyModel::IdColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setAlternatingRowColors(true);
    table_->setItemDelegateForColumn(AccuracyModel::LayerColumn, new LayerNameDelegate(table_));
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(AccuracyModel::LayerColumn, QHeaderView::Stretch);
    table_->setItemDelegateForColumn(AccuracyModel::PrecisionColumn, new PrecisionDelegate(table_));
    table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::SelectedClicked);
    connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
        const int row = proxy_->mapToSource(index).row();
        if (row >= 0) emit nodesClicked({QString::fromStdString(model_->accuracy().layers[static_cast<size_t>(row)].fullName)});
    });
    connect(model_, &AccuracyModel::overridesChanged, this, &AccuracyView::updateReevaluate);
    // The chart follows the table's order: a sort, or new layer IDs (a run renumbers them), reorders its points.
    connect(proxy_, &QAbstractItemModel::layoutChanged, this, &AccuracyView::replotInTableOrder);
    connect(proxy_, &QAbstractItemModel::modelReset, this, &AccuracyView::replotInTableOrder);
    connect(model_, &QAbstractItemModel::dataChanged, this, &AccuracyView::replotInTableOrder);
    connect(reevaluate_, &QPushButton::clicked, this, &AccuracyView::reevaluate);

    auto* top = new QHBoxLayout;
    top->addWidget(summary_, 1);
    top->addWidget(reevaluate_);
    // Before any analysis the plot would show bare 0-5 axes: a text says what fills it instead.
    placeholder_->setObjectName(QStringLiteral("accuracyPlaceholder"));
    placeholder_->setAlignment(Qt::AlignCenter);
    placeholder_->setWordWrap(true);
    placeholder_->setEnabled(false);  // drawn greyed, as a hint
    auto* plotArea = new QWidget(this);
    auto* plotLayout = new QVBoxLayout(plotArea);
    plotLayout->setContentsMargins(0, 0, 0, 0);
    plotLayout->addWidget(plot_);
    plotLayout->addWidget(placeholder_);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(plotArea);
    splitter->addWidget(table_);
    splitter->setSizes({360, 420});
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);
    clearQuantization();

    quantizeAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Q));
    quantizeAction_->setToolTip(tr("Calibrate on a data set, quantize, and analyse per-layer accuracy (Ctrl+Shift+Q)"));
    connect(quantizeAction_, &QAction::triggered, this,
            [this] { this->workbench().afterInputShapes([this] { openQuantizeDialog(); }); });
    connect(&workbench, &Workbench::stateChanged, this, [this] {
        enableOnnxAction(quantizeAction_, this->workbench(), this->workbench().hasModel() && !this->workbench().isBusy());
    });
    enableOnnxAction(quantizeAction_, workbench, false);
    connect(&workbench, &Workbench::modelLoaded, this, &AccuracyView::clearQuantization);
    connect(&workbench, &Workbench::modelChanged, this, &AccuracyView::clearQuantization);
    LayerSelection* selection = workbench.selection();
    connect(this, &AccuracyView::nodesClicked, selection, &LayerSelection::selectNodes);
    connect(selection, &LayerSelection::nodesSelected, this, &AccuracyView::highlightNodes);
    connect(&workbench, &Workbench::reportChanged, this, &AccuracyView::showLayerIds);  // a run renumbers the layers

    workbench.trackJob(job_);
    connect(job_, &QuantizeJob::progress, this, [this](const QString& phase, int done, int total) {
        this->workbench().showProgress(done, std::max(total, 1), phase + QStringLiteral(" %v/%m"));
    });
    connect(job_, &QuantizeJob::finished, this, [this](std::shared_ptr<const QuantizeOutcome> outcome) {
        onJobEnded();
        showQuantization(outcome);
        this->workbench().setStatus(tr("Quantized model re-evaluated"));
    });
    connect(job_, &QuantizeJob::cancelled, this, &AccuracyView::onJobEnded);
    connect(job_, &QuantizeJob::failed, this, [this](const QString& message) {
        onJobEnded();
        this->workbench().reportError(tr("Quantization failed"), message);
    });
}

QList<ViewAction> AccuracyView::viewActions() const {
    return {{.action = quantizeAction_, .menu = MenuSlot::Run}};
}

QuantizeDialog* AccuracyView::openQuantizeDialog() {
    if (!workbench().hasOnnxModel() || workbench().isBusy()) return nullptr;  // a compiled model has no graph
    auto* dialog = new QuantizeDialog(workbench().currentModel(), window());
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QuantizeDialog::quantized, this, &AccuracyView::showQuantization);
    dialog->setInputShapes(workbench().inputShapes());
    dialog->show();
    return dialog;
}

void AccuracyView::quantizeWithDataset(const QString& dataset) {
    if (workbench().hasCompiledModel()) {  // asked for on the command line: say why nothing happens
        workbench().reportError(tr("Cannot quantize %1").arg(QFileInfo(workbench().loadedModel()->path).fileName()),
                                tr("Quantization %1.").arg(onnxOnlyReason()));
        return;
    }
    QuantizeDialog* dialog = openQuantizeDialog();
    if (!dialog) return;
    dialog->setAskToSave(false);
    dialog->setDataset(dataset);
    // The dialog shows the error itself; an unattended run (--quantize-dataset) must learn of it too.
    connect(dialog->job(), &QuantizeJob::failed, this, [this](const QString& message) {
        workbench().reportFailure(tr("Quantization failed") + QLatin1Char('\n') + message);
    });
    connect(dialog, &QuantizeDialog::quantized, dialog, &QDialog::accept);
    dialog->startQuantize();
}

void AccuracyView::showQuantization(std::shared_ptr<const QuantizeOutcome> outcome) {
    outcome_ = std::move(outcome);
    const QuantizeRequest& request = outcome_->request;
    workbench().setLastQuantization(std::make_shared<const rknn::QuantizationFacts>(rknn::quantizationFactsFromRun(
        request.options, outcome_->precisions, &outcome_->accuracy, request.dataset.toStdString(),
        request.preprocessing)));
    setAccuracy(outcome_->accuracy, summaryOf(*outcome_));
    highlightNodes(workbench().selection()->selectedNodes());
    bringToFront();
    emit quantizationShown(outcome_);
    emit resultShown();
}

void AccuracyView::clearQuantization() {
    outcome_.reset();
    clear(workbench().hasCompiledModel()
              ? tr("Quantize %1 (open the ONNX model it was converted from)").arg(onnxOnlyReason())
              : tr("Quantize the model (Run ▸ Quantize…, Ctrl+Shift+Q) to see per-layer accuracy here"));
}

bool AccuracyView::showAccuracyReport(const QString& path) {
    try {
        const Report report = loadReport(path.toStdString());
        if (!report.accuracy)
            throw Error(ErrorKind::InvalidInput, path.toStdString() + ": the report has no accuracy section");
        outcome_.reset();
        setAccuracy(*report.accuracy, tr("<b>%1</b> vs %2 · %3 samples (from %4)")
                                          .arg(QString::fromStdString(report.accuracy->scheme),
                                               QString::fromStdString(report.accuracy->floatModel))
                                          .arg(report.accuracy->samples)
                                          .arg(path.toHtmlEscaped()));
        bringToFront();
        return true;
    } catch (const std::exception& e) {
        workbench().reportError(tr("Cannot show accuracy"), QString::fromStdString(e.what()));
        return false;
    }
}

void AccuracyView::reevaluate() {
    if (!outcome_ || workbench().isBusy()) return;
    std::map<std::string, quant::Precision> precisions;
    try {
        for (const auto& [node, name] : model_->overrides()) precisions[node] = quant::precisionFromName(name);
    } catch (const std::exception& e) {
        workbench().reportError(tr("Re-evaluate"), QString::fromStdString(e.what()));
        return;
    }
    workbench().showProgress(0, 0);
    workbench().setStatus(tr("Re-evaluating with %1 precision change(s) …").arg(precisions.size()));
    job_->reevaluate(outcome_, precisions);
    updateReevaluate();
}

void AccuracyView::onJobEnded() {
    workbench().hideProgress();
    updateReevaluate();
}

void AccuracyView::showLayerIds() {
    // One layer ID in every tab: the opened model's for the node, not the analysis' own step in its float graph
    // (a prepared copy, whose fused nodes the model did not have: they get fresh numbers, never another's).
    LayerSelection* selection = workbench().selection();
    model_->setLayerIds([selection](const QString& node) { return selection->numberLayer(node); });
}

void AccuracyView::setAccuracy(const AccuracySection& accuracy, const QString& summary) {
    model_->setAccuracy(accuracy);
    workbench().showAccuracy(std::make_shared<const AccuracySection>(accuracy));  // the Graph view colours by it
    showLayerIds();
    placeholder_->setVisible(accuracy.layers.empty());
    plot_->setVisible(!accuracy.layers.empty());
    summary_->setText(summary);
    double lowest = 1.0;
    for (const AccuracyLayer& l : accuracy.layers)
        lowest = std::min({lowest, l.entireCosine, l.singleCosine.value_or(1.0)});
    plot_->xAxis->setRange(-1, std::max<double>(1.0, static_cast<double>(accuracy.layers.size())));
    plot_->yAxis->setRange(std::max(-1.0, lowest - (1.0 - lowest) * 0.1 - 1e-4), 1.0 + (1.0 - lowest) * 0.05 + 1e-5);
    marker_->setVisible(false);
    replotInTableOrder();
    updateReevaluate();
}

void AccuracyView::replotInTableOrder() {
    const std::vector<AccuracyLayer>& layers = model_->accuracy().layers;
    sourceOfX_.clear();
    QVector<double> x, entire, single;
    for (int p = 0; p < proxy_->rowCount(); ++p) {
        const int row = proxy_->mapToSource(proxy_->index(p, 0)).row();
        if (row < 0 || size_t(row) >= layers.size()) continue;
        const AccuracyLayer& l = layers[size_t(row)];
        x << double(sourceOfX_.size());
        sourceOfX_.push_back(row);
        entire << l.entireCosine;
        single << l.singleCosine.value_or(std::nan(""));
    }
    entire_->setData(x, entire, true);
    single_->setData(x, single, true);
    const int column = proxy_->sortColumn();
    plot_->xAxis->setLabel(column < 0 || column == AccuracyModel::IdColumn
                               ? tr("Layer ID (execution order, as the table)")
                               : tr("Layer ID, in the table's order (sorted by %1)")
                                     .arg(model_->headerData(column, Qt::Horizontal).toString()));
    // The marker stays on the selected layer, wherever the sort put it.
    const QModelIndexList selected = table_->selectionModel() ? table_->selectionModel()->selectedRows() : QModelIndexList();
    if (!selected.isEmpty() && marker_->visible()) {
        marker_->point1->setCoords(selected.front().row(), 0);
        marker_->point2->setCoords(selected.front().row(), 1);
    }
    plot_->replot();
}

void AccuracyView::updateTicks() {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    const int n = int(sourceOfX_.size());
    if (n > 0) {
        // As many labels as fit side by side in the visible range, each the layer ID of its row.
        const QCPRange range = plot_->xAxis->range();
        // The plot's width, not the axis rect's: that is laid out after this runs, and is stale on a resize.
        const int width = std::max(1, plot_->width() - 90);
        const int label = QFontMetrics(plot_->xAxis->tickLabelFont()).horizontalAdvance(QStringLiteral("00000"));
        const int step = std::max(1, int(std::ceil(range.size() / std::max(1.0, double(width) / label))));
        for (int p = 0; p < n; p += step)
            ticker->addTick(p, proxy_->index(p, AccuracyModel::IdColumn).data().toString());
    }
    plot_->xAxis->setTicker(ticker);
}

int AccuracyView::sourceRowAt(int position) const {
    return position >= 0 && size_t(position) < sourceOfX_.size() ? sourceOfX_[size_t(position)] : -1;
}

QString AccuracyView::pointToolTip(int position) const {
    const int row = sourceRowAt(position);
    if (row < 0) return {};
    const auto cell = [this, row](int column) { return model_->index(row, column).data().toString(); };
    QString tip = tr("<b>Layer %1</b> %2<br>%3 · %4<br>entire cosine %5")
                      .arg(cell(AccuracyModel::IdColumn), cell(AccuracyModel::LayerColumn).toHtmlEscaped(),
                           cell(AccuracyModel::OpColumn).toHtmlEscaped(), cell(AccuracyModel::PrecisionColumn),
                           cell(AccuracyModel::EntireCosineColumn));
    if (const QString single = cell(AccuracyModel::SingleCosineColumn); !single.isEmpty())
        tip += tr(" · single %1").arg(single);
    return tip;
}

void AccuracyView::onPlotHovered(QMouseEvent* event) {
    const int position = int(std::lround(plot_->xAxis->pixelToCoord(event->pos().x())));
    const QString tip = plot_->axisRect()->rect().contains(event->pos()) ? pointToolTip(position) : QString();
    if (tip.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), tip, plot_);
}

void AccuracyView::clear(const QString& hint) {
    model_->setAccuracy({});
    if (workbench().lastAccuracy()) workbench().showAccuracy(nullptr);
    summary_->setText(hint);
    placeholder_->setText(tr("No accuracy analysis yet.\n%1").arg(QString(hint).remove(QRegularExpression(
        QStringLiteral("<[^>]*>")))));
    placeholder_->show();
    plot_->hide();
    entire_->data()->clear();
    single_->data()->clear();
    marker_->setVisible(false);
    plot_->replot();
    updateReevaluate();
}

void AccuracyView::updateReevaluate() {
    // Only a quantization made in this session can be rebuilt (a loaded report has no calibration).
    reevaluate_->setEnabled(outcome_ && !job_->isRunning() && model_->rowCount() > 0);
    const size_t n = model_->overrides().size();
    reevaluate_->setText(n ? tr("Re-evaluate (%1 change(s))").arg(n) : tr("Re-evaluate"));
}

void AccuracyView::highlightNodes(const QStringList& names) {
    for (const QString& name : names)
        if (const int row = model_->rowOfLayer(name); row >= 0) return selectRow(row);
    table_->clearSelection();
    marker_->setVisible(false);
    plot_->replot();
}

void AccuracyView::selectRow(int row) {
    const QModelIndex index = proxy_->mapFromSource(model_->index(row, 0));
    table_->selectRow(index.row());
    table_->scrollTo(index);
    marker_->point1->setCoords(index.row(), 0);  // the chart's x is the table's row
    marker_->point2->setCoords(index.row(), 1);
    marker_->setVisible(true);
    plot_->replot();
}

void AccuracyView::onPlotClicked(QMouseEvent* event) {
    if (model_->rowCount() == 0) return;
    const int row = sourceRowAt(static_cast<int>(std::lround(plot_->xAxis->pixelToCoord(event->pos().x()))));
    if (row < 0 || row >= model_->rowCount()) return;
    emit nodesClicked({QString::fromStdString(model_->accuracy().layers[static_cast<size_t>(row)].fullName)});
}

}  // namespace npuwb::ui
