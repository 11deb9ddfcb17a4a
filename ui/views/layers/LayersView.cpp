#include "views/layers/LayersView.h"

#include <QFileInfo>
#include <QLabel>
#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "models/Format.h"
#include "models/InputShapes.h"
#include "models/LayerSelection.h"
#include "models/LayerTableModel.h"
#include "npuwb/RunSpread.h"
#include "views/layers/LayerTableView.h"
#include "views/layers/LayerTimeChart.h"

namespace npuwb::ui {

NPUWB_GUI_VIEW(LayersView, "layers", QT_TRANSLATE_NOOP("views", "&Layers"), Qt::ALT | Qt::Key_1, 10);

LayersView::LayersView(Workbench& workbench, QWidget* parent)
    : WorkbenchView(workbench, parent), header_(new QLabel(this)), model_(new LayerTableModel(this)), table_(new LayerTableView(model_, this)),
      chart_(new LayerTimeChart(this)), splitter_(new QSplitter(Qt::Vertical, this)) {
    splitter_->setObjectName(QStringLiteral("layerSplitter"));
    splitter_->addWidget(table_);
    splitter_->addWidget(chart_);
    splitter_->setStretchFactor(0, 1);
    splitter_->setStretchFactor(1, 1);
    splitter_->setSizes({380, 440});  // the chart needs room for readable bar labels
    header_->setObjectName(QStringLiteral("layersHeader"));
    header_->setTextFormat(Qt::RichText);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    header_->setContentsMargins(6, 4, 6, 2);
    header_->setWordWrap(true);  // several inputs' shapes and a busy-run warning must not widen the window
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(header_);
    layout->addWidget(splitter_, 1);
    updateHeader();

    connect(&workbench, &Workbench::modelLoaded, this, &LayersView::showModelLayers);
    connect(&workbench, &Workbench::modelChanged, this, &LayersView::showModelLayers);
    connect(&workbench, &Workbench::reportChanged, this, &LayersView::showReport);
    connect(&workbench, &Workbench::inputShapesChanged, this, &LayersView::updateHeader);
    // Views talk only to the shared selection, never to each other.
    table_->setLayerFilter(workbench.layerFilter());
    chart_->setLayerFilter(workbench.layerFilter());
    LayerSelection* selection = workbench.selection();
    connect(table_, &LayerTableView::layerClicked, selection, &LayerSelection::selectLayer);
    connect(chart_, &LayerTimeChart::layerClicked, selection, &LayerSelection::selectLayer);
    connect(selection, &LayerSelection::layerSelected, table_, &LayerTableView::highlightLayer);
    connect(selection, &LayerSelection::layerSelected, chart_, &LayerTimeChart::highlightLayer);
    connect(selection, &LayerSelection::nodesSelected, table_, &LayerTableView::highlightNodes);
}

void LayersView::showModelLayers() {
    const auto loaded = workbench().loadedModel();
    model_->setLayers(loaded->layers, false);
    chart_->setLayers(loaded->layers, false);
    updateHeader();
}

void LayersView::showReport() {
    const Report& report = *workbench().lastReport();
    const bool firstTimes = !model_->isTimed();
    model_->setLayers(report.layers, true, report.removedLayers);
    if (firstTimes)  // the first results: slowest layers on top, as in the chart; later runs keep the user's sort
        table_->tableView()->sortByColumn(LayerTableModel::TimeColumn, Qt::DescendingOrder);
    chart_->setLayers(report.layers, true);
    updateHeader();
}

void LayersView::updateHeader() {
    const auto loaded = workbench().loadedModel();
    if (!loaded) {
        header_->setText(tr("Open a model (File > Open) to list its layers."));
        return;
    }
    const Report* report = workbench().lastReport();
    const QString file = QFileInfo(loaded->path).fileName().toHtmlEscaped();
    if (report && model_->isTimed()) {  // the rows are the run's: the shapes it ran with
        const QString where = QStringLiteral("%1, %2").arg(QString::fromStdString(report->environment.backend),
                                                           QString::fromStdString(report->environment.device));
        QString layers = formatLayerCount(report->layers);
        if (!report->removedLayers.empty())
            layers += tr(", %n removed before it ran", nullptr, int(report->removedLayers.size()));
        QString text = tr("<b>%1</b> · %2 from the %3 on %4 · %5")
                           .arg(file)
                           .arg(layers)
                           .arg(QString::fromStdString(report->kind), where.toHtmlEscaped(),
                                inputShapesText(report->model).toHtmlEscaped());
        if (const std::string busy = busyMachineWarning(*report); !busy.empty())  // the times below carry noise
            text += QStringLiteral("<br><span style='color:#b00020'>%1</span>")
                        .arg(tr("Warning: %1.").arg(QString::fromStdString(busy)).toHtmlEscaped());
        header_->setText(text);
        return;
    }
    // Before a run: the shapes are the model's own, a symbolic dim ("p2o.DynamicDimension.0") shown as ?; say what
    // Run will use once given.
    ModelSummary declared = loaded->summary;
    for (TensorDesc& input : declared.inputs)
        for (std::string& dim : input.shape)
            if (dim.empty() || dim.find_first_not_of("0123456789") != std::string::npos) dim.clear();
    QString text = tr("<b>%1</b> · %2 layers from the model, not run yet · %3")
                       .arg(file)
                       .arg(loaded->layers.size())
                       .arg(inputShapesText(declared).toHtmlEscaped());
    if (!workbench().inputShapes().empty())
        text += tr(" · Run uses %1").arg(inputShapesText(workbench().inputShapes()).toHtmlEscaped());
    else if (workbench().needsInputShapes())
        text += tr(" · symbolic dims: Run asks for sizes (Run > Input Shapes…)");
    header_->setText(text);
}

void LayersView::saveSettings(QSettings& settings) const {
    settings.setValue(QStringLiteral("splitter"), splitter_->saveState());
}

void LayersView::restoreSettings(QSettings& settings) {
    splitter_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
}

}  // namespace npuwb::ui
