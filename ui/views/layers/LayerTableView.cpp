#include "views/layers/LayerTableView.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "core/LayerNameDelegate.h"
#include "models/LayerFilterProxy.h"
#include "models/LayerTableModel.h"

namespace npuwb::ui {

LayerTableView::LayerTableView(LayerTableModel* model, QWidget* parent)
    : QWidget(parent), model_(model), proxy_(new LayerFilterProxy(this)), table_(new QTableView(this)),
      filter_(new QLineEdit(this)) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(LayerTableModel::SortRole);
    proxy_->setFilterKeyColumn(-1);  // the filter matches name, op type, shapes ... alike
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);

    filter_->setPlaceholderText(tr("Filter layers by name, op type or shape"));
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);

    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(LayerTableModel::IdColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setAlternatingRowColors(true);
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideMiddle);  // symbolic shapes: both ends tell them apart
    table_->setItemDelegateForColumn(LayerTableModel::NameColumn, new LayerNameDelegate(table_));
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    // Fitting the columns measures the visible rows and this many more: Qt's 1,000 took ~40 ms of the GUI thread
    // on a 10,000-layer model; names and shapes are capped below anyway.
    table_->horizontalHeader()->setResizeContentsPrecision(200);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &LayerTableView::onCurrentRowChanged);
    connect(model_, &QAbstractItemModel::modelReset, this, &LayerTableView::onModelReset);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(filter_);
    layout->addWidget(table_);
}

void LayerTableView::setLayerFilter(const LayerFilter* filter) {
    proxy_->setLayerFilter(filter, [this](int row) {
        const LayerRow& layer = model_->layers()[size_t(row)];
        return LayerFilterProxy::RowLayer{QString::fromStdString(layer.opType), QString::fromStdString(layer.target),
                                          QString::fromStdString(layer.fullName),
                                          model_->isTimed() && model_->removedBy(row).empty() ? layer.timeUs : -1.0,
                                          !layer.fusedInto.empty()};
    });
}

void LayerTableView::onModelReset() {
    const bool vendor = model_->hasVendorColumns();
    table_->setColumnHidden(LayerTableModel::CyclesColumn, !vendor);
    table_->setColumnHidden(LayerTableModel::MacUsageColumn, !vendor);
    // Before the first run the measured columns are empty: they come with the run, leaving room for the shapes.
    for (int c : {LayerTableModel::TimeColumn, LayerTableModel::TimePercentColumn, LayerTableModel::TimeMinColumn,
                  LayerTableModel::ReadWriteColumn})
        table_->setColumnHidden(c, !model_->isTimed());
    table_->resizeColumnsToContents();
    // Long node names and shape lists would push the last columns off screen at 1400x900 (the shapes, which come
    // last): cap them, the tooltips have the full texts.
    const int x = fontMetrics().horizontalAdvance(QLatin1Char('x'));
    table_->setColumnWidth(LayerTableModel::NameColumn,
                           std::min(table_->columnWidth(LayerTableModel::NameColumn), 28 * x));
    for (int c : {LayerTableModel::InputShapesColumn, LayerTableModel::OutputShapesColumn})
        table_->setColumnWidth(c, std::min(table_->columnWidth(c), 24 * x));
}

void LayerTableView::onCurrentRowChanged() {
    if (updatingFromSelection_) return;
    const QModelIndex current = table_->currentIndex();
    if (current.isValid()) emit layerClicked(current.data(LayerTableModel::LayerIdRole).toInt());
}

void LayerTableView::highlightLayer(int id) {
    updatingFromSelection_ = true;
    const int sourceRow = model_->rowOfLayer(id);
    const QModelIndex index = sourceRow < 0 ? QModelIndex() : proxy_->mapFromSource(model_->index(sourceRow, 0));
    if (index.isValid()) {
        table_->selectionModel()->setCurrentIndex(
            index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        table_->scrollTo(index);
    } else {
        table_->selectionModel()->clearSelection();
    }
    updatingFromSelection_ = false;
}

void LayerTableView::highlightNodes(const QStringList& names) {
    if (names.size() < 2) return;
    updatingFromSelection_ = true;
    QItemSelection rows;
    for (size_t i = 0; i < model_->layers().size(); ++i) {
        if (!names.contains(QString::fromStdString(model_->layers()[i].fullName))) continue;
        const QModelIndex index = proxy_->mapFromSource(model_->index(int(i), 0));
        if (index.isValid()) rows.select(index, index);
    }
    // The selection model takes several rows even in SingleSelection mode; only the mouse is limited to one. The
    // rows replace the last selection: layerSelected (which clears) does not come when the first node stays the same.
    table_->selectionModel()->select(rows, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    updatingFromSelection_ = false;
}

}  // namespace npuwb::ui
