#include "views/AccuracyView.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "models/AccuracyModel.h"

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

}  // namespace

AccuracyView::AccuracyView(QWidget* parent)
    : QWidget(parent), model_(new AccuracyModel(this)), proxy_(new QSortFilterProxyModel(this)),
      summary_(new QLabel(this)), plot_(new QCustomPlot(this)), table_(new QTableView(this)),
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
    plot_->xAxis->setLabel(tr("Layer (execution order)"));
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

    table_->setModel(proxy_);
    table_->setObjectName(QStringLiteral("accuracyTable"));
    table_->setSortingEnabled(true);
    table_->sortByColumn(AccuracyModel::IdColumn, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setAlternatingRowColors(true);
    table_->setTextElideMode(Qt::ElideLeft);  // long TF-style names differ at the end
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
    connect(reevaluate_, &QPushButton::clicked, this, [this] { emit reevaluateRequested(model_->overrides()); });

    auto* top = new QHBoxLayout;
    top->addWidget(summary_, 1);
    top->addWidget(reevaluate_);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(plot_);
    splitter->addWidget(table_);
    splitter->setSizes({360, 420});
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(splitter, 1);
    clear(tr("Quantize the model (Run ▸ Quantize…, Ctrl+Shift+Q) to see per-layer accuracy here"));
}

void AccuracyView::setAccuracy(const AccuracySection& accuracy, const QString& summary) {
    model_->setAccuracy(accuracy);
    summary_->setText(summary);
    QVector<double> x, entire, single;
    double lowest = 1.0;
    for (size_t i = 0; i < accuracy.layers.size(); ++i) {
        const AccuracyLayer& l = accuracy.layers[i];
        x << static_cast<double>(i);
        entire << l.entireCosine;
        single << l.singleCosine.value_or(std::nan(""));
        lowest = std::min({lowest, l.entireCosine, l.singleCosine.value_or(1.0)});
    }
    entire_->setData(x, entire, true);
    single_->setData(x, single, true);
    plot_->xAxis->setRange(-1, std::max<double>(1.0, static_cast<double>(x.size())));
    plot_->yAxis->setRange(std::max(-1.0, lowest - (1.0 - lowest) * 0.1 - 1e-4), 1.0 + (1.0 - lowest) * 0.05 + 1e-5);
    marker_->setVisible(false);
    plot_->replot();
    updateReevaluate();
}

void AccuracyView::clear(const QString& hint) {
    model_->setAccuracy({});
    summary_->setText(hint);
    entire_->data()->clear();
    single_->data()->clear();
    marker_->setVisible(false);
    plot_->replot();
    setReevaluateAvailable(false);
}

void AccuracyView::setReevaluateAvailable(bool available) {
    available_ = available;
    updateReevaluate();
}

void AccuracyView::updateReevaluate() {
    reevaluate_->setEnabled(available_ && model_->rowCount() > 0);
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
    marker_->point1->setCoords(row, 0);
    marker_->point2->setCoords(row, 1);
    marker_->setVisible(true);
    plot_->replot();
}

void AccuracyView::onPlotClicked(QMouseEvent* event) {
    if (model_->rowCount() == 0) return;
    const int row = static_cast<int>(std::lround(plot_->xAxis->pixelToCoord(event->pos().x())));
    if (row < 0 || row >= model_->rowCount()) return;
    emit nodesClicked({QString::fromStdString(model_->accuracy().layers[static_cast<size_t>(row)].fullName)});
}

}  // namespace npuwb::ui
