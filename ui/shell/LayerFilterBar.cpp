#include "shell/LayerFilterBar.h"

#include <QAction>
#include <QComboBox>
#include <QDoubleValidator>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSet>

#include <algorithm>

#include "core/Workbench.h"
#include "models/LayerFilter.h"

namespace npuwb::ui {

namespace {
/// The rows the bar counts and takes op types from: the last run's layers, else the open model's.
const std::vector<LayerRow>* currentLayers(const Workbench& workbench) {
    if (const Report* report = workbench.lastReport()) return &report->layers;
    if (const auto loaded = workbench.loadedModel()) return &loaded->layers;
    return nullptr;
}

std::optional<double> timeOf(const QLineEdit* edit) {
    bool ok = false;
    const double value = edit->text().trimmed().toDouble(&ok);
    return ok ? std::optional<double>(value) : std::nullopt;
}

QLineEdit* timeEdit(const QString& placeholder, QWidget* parent) {
    auto* edit = new QLineEdit(parent);
    edit->setPlaceholderText(placeholder);
    edit->setValidator(new QDoubleValidator(0, 1e12, 3, edit));
    edit->setClearButtonEnabled(true);
    edit->setMaximumWidth(edit->fontMetrics().horizontalAdvance(QLatin1Char('x')) * 14);
    return edit;
}
}  // namespace

LayerFilterBar::LayerFilterBar(Workbench& workbench, QWidget* parent)
    : QWidget(parent), workbench_(workbench), toggle_(new QAction(tr("&Filter Layers"), this)),
      opType_(new QComboBox(this)), target_(new QComboBox(this)), name_(new QLineEdit(this)),
      minTime_(timeEdit(tr("min µs"), this)), maxTime_(timeEdit(tr("max µs"), this)),
      clear_(new QPushButton(tr("Clear"), this)), count_(new QLabel(this)) {
    setObjectName(QStringLiteral("layerFilterBar"));
    toggle_->setObjectName(QStringLiteral("showLayerFilterAction"));
    toggle_->setCheckable(true);
    toggle_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    toggle_->setToolTip(tr("One filter for the Layers and Estimate tables, their charts, the graph and the memory"));
    connect(toggle_, &QAction::toggled, this, &QWidget::setVisible);
    opType_->setToolTip(tr("Op type"));
    opType_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    target_->addItem(tr("any target"), QString());
    target_->addItem(QStringLiteral("NPU"), QStringLiteral("NPU"));
    target_->addItem(QStringLiteral("CPU"), QStringLiteral("CPU"));
    target_->setToolTip(tr("Where the layer runs (the run's or the estimate's target)"));
    name_->setPlaceholderText(tr("Name contains…"));
    name_->setClearButtonEnabled(true);
    minTime_->setToolTip(tr("Layers at least this slow (µs, the last run's or the estimate's time)"));
    maxTime_->setToolTip(tr("Layers at most this slow (µs)"));

    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 2, 6, 2);
    layout->addWidget(new QLabel(tr("Filter:"), this));
    layout->addWidget(opType_);
    layout->addWidget(target_);
    layout->addWidget(name_, 1);
    layout->addWidget(new QLabel(tr("Time"), this));
    layout->addWidget(minTime_);
    layout->addWidget(new QLabel(QStringLiteral("–"), this));
    layout->addWidget(maxTime_);
    layout->addWidget(clear_);
    layout->addWidget(count_);

    LayerFilter* filter = workbench.layerFilter();
    connect(opType_, &QComboBox::currentIndexChanged, this, &LayerFilterBar::apply);
    connect(target_, &QComboBox::currentIndexChanged, this, &LayerFilterBar::apply);
    connect(name_, &QLineEdit::textChanged, this, &LayerFilterBar::apply);
    connect(minTime_, &QLineEdit::textChanged, this, &LayerFilterBar::apply);
    connect(maxTime_, &QLineEdit::textChanged, this, &LayerFilterBar::apply);
    connect(clear_, &QPushButton::clicked, filter, &LayerFilter::clear);
    connect(filter, &LayerFilter::changed, this, &LayerFilterBar::follow);
    connect(&workbench, &Workbench::modelLoaded, this, &LayerFilterBar::fillOpTypes);
    connect(&workbench, &Workbench::modelChanged, this, &LayerFilterBar::fillOpTypes);
    connect(&workbench, &Workbench::reportChanged, this, &LayerFilterBar::fillOpTypes);
    fillOpTypes();
    hide();
}

void LayerFilterBar::fillOpTypes() {
    QStringList ops;
    if (const auto* layers = currentLayers(workbench_))
        for (const LayerRow& row : *layers) ops << QString::fromStdString(row.opType);
    ops.removeDuplicates();
    std::sort(ops.begin(), ops.end());
    const QSet<QString> chosen = workbench_.layerFilter()->opTypes();
    following_ = true;
    opType_->clear();
    opType_->addItem(tr("all op types"), QString());
    for (const QString& op : ops) opType_->addItem(op, op);
    following_ = false;
    // Keep the chosen op type when the new model has it too; drop it otherwise.
    const QString keep = chosen.size() == 1 ? *chosen.begin() : QString();
    const int index = opType_->findData(keep);
    opType_->setCurrentIndex(std::max(0, index));
    if (index < 0 && !chosen.isEmpty()) workbench_.layerFilter()->setOpTypes({});
    follow();
}

void LayerFilterBar::apply() {
    if (following_) return;
    LayerFilter* filter = workbench_.layerFilter();
    const QString op = opType_->currentData().toString();
    // Each setter emits on its own change; one edit changes one criterion, so the views refilter once.
    filter->setOpTypes(op.isEmpty() ? QSet<QString>() : QSet<QString>{op});
    filter->setTarget(target_->currentData().toString());
    filter->setName(name_->text().trimmed());
    filter->setTimeRange(timeOf(minTime_), timeOf(maxTime_));
}

void LayerFilterBar::follow() {
    const LayerFilter* filter = workbench_.layerFilter();
    following_ = true;
    const QSet<QString> ops = filter->opTypes();
    opType_->setCurrentIndex(std::max(0, opType_->findData(ops.size() == 1 ? *ops.begin() : QString())));
    target_->setCurrentIndex(std::max(0, target_->findData(filter->target())));
    if (name_->text().trimmed() != filter->name()) name_->setText(filter->name());
    if (timeOf(minTime_) != filter->minTimeUs())
        minTime_->setText(filter->minTimeUs() ? QString::number(*filter->minTimeUs()) : QString());
    if (timeOf(maxTime_) != filter->maxTimeUs())
        maxTime_->setText(filter->maxTimeUs() ? QString::number(*filter->maxTimeUs()) : QString());
    following_ = false;
    clear_->setEnabled(filter->isActive());
    const auto* layers = currentLayers(workbench_);
    if (!filter->isActive() || !layers) {
        count_->clear();
        return;
    }
    const bool timed = workbench_.lastReport() != nullptr;
    const auto matching = std::count_if(layers->begin(), layers->end(), [&](const LayerRow& row) {
        return filter->matches(QString::fromStdString(row.opType), QString::fromStdString(row.target),
                               QString::fromStdString(row.fullName), timed ? row.timeUs : -1.0);
    });
    count_->setText(tr("%1 of %2 layers").arg(matching).arg(layers->size()));
}

}  // namespace npuwb::ui
