#include "views/layers/LayersView.h"

#include <QSettings>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "models/LayerSelection.h"
#include "models/LayerTableModel.h"
#include "views/layers/LayerTableView.h"
#include "views/layers/LayerTimeChart.h"

namespace npuwb::ui {

NPUWB_GUI_VIEW(LayersView, "layers", QT_TRANSLATE_NOOP("views", "&Layers"), Qt::ALT | Qt::Key_1, 10);

LayersView::LayersView(Workbench& workbench, QWidget* parent)
    : WorkbenchView(workbench, parent), model_(new LayerTableModel(this)), table_(new LayerTableView(model_, this)),
      chart_(new LayerTimeChart(this)), splitter_(new QSplitter(Qt::Vertical, this)) {
    splitter_->setObjectName(QStringLiteral("layerSplitter"));
    splitter_->addWidget(table_);
    splitter_->addWidget(chart_);
    splitter_->setStretchFactor(0, 1);
    splitter_->setStretchFactor(1, 1);
    splitter_->setSizes({380, 440});  // the chart needs room for readable bar labels
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter_);

    connect(&workbench, &Workbench::modelLoaded, this, &LayersView::showModelLayers);
    connect(&workbench, &Workbench::modelChanged, this, &LayersView::showModelLayers);
    connect(&workbench, &Workbench::reportChanged, this, &LayersView::showReport);
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
}

void LayersView::showReport() {
    const Report& report = *workbench().lastReport();
    const bool firstTimes = !model_->isTimed();
    model_->setLayers(report.layers, true);
    if (firstTimes)  // the first results: slowest layers on top, as in the chart; later runs keep the user's sort
        table_->tableView()->sortByColumn(LayerTableModel::TimeColumn, Qt::DescendingOrder);
    chart_->setLayers(report.layers, true);
}

void LayersView::saveSettings(QSettings& settings) const {
    settings.setValue(QStringLiteral("splitter"), splitter_->saveState());
}

void LayersView::restoreSettings(QSettings& settings) {
    splitter_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
}

}  // namespace npuwb::ui
