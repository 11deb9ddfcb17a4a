#include "shell/LayerFilterBar.h"

#include <QAction>
#include <QComboBox>
#include <QDoubleValidator>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSet>
#include <QSettings>

#include <algorithm>

#include "core/Workbench.h"
#include "models/LayerFilter.h"
#include "shell/OpTypeChooser.h"

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
      opType_(new OpTypeChooser(this)), target_(new QComboBox(this)), name_(new QLineEdit(this)),
      minTime_(timeEdit(tr("min µs"), this)), maxTime_(timeEdit(tr("max µs"), this)),
      clear_(new QPushButton(tr("Clear"), this)), count_(new QLabel(this)) {
    setObjectName(QStringLiteral("layerFilterBar"));
    toggle_->setObjectName(QStringLiteral("showLayerFilterAction"));
    toggle_->setCheckable(true);
    toggle_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    toggle_->setToolTip(tr("One filter for the Layers and Estimate tables, their charts, the graph and the memory"));
    connect(toggle_, &QAction::toggled, this, &QWidget::setVisible);
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
    connect(opType_, &OpTypeChooser::checkedChanged, this, &LayerFilterBar::apply);
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
    const auto* layers = currentLayers(workbench_);
    if (layers)
        for (const LayerRow& row : *layers) ops << QString::fromStdString(row.opType);
    if (const Report* report = workbench_.lastReport())
        for (const RemovedLayer& row : report->removedLayers) ops << QString::fromStdString(row.opType);
    const QSet<QString> chosen = workbench_.layerFilter()->opTypes();
    if (!layers) ops = QStringList(chosen.begin(), chosen.end());  // restored before a model: shown as chosen
    ops.removeDuplicates();
    std::sort(ops.begin(), ops.end());
    // Keep the chosen op types the new model has too; drop the others.
    QSet<QString> keep;
    for (const QString& op : chosen)
        if (ops.contains(op)) keep.insert(op);
    following_ = true;
    opType_->setOpTypes(ops);
    opType_->setChecked(keep);
    following_ = false;
    if (keep != chosen) workbench_.layerFilter()->setOpTypes(keep);
    follow();
}

void LayerFilterBar::apply() {
    if (following_) return;
    LayerFilter* filter = workbench_.layerFilter();
    // Each setter emits on its own change; one edit changes one criterion, so the views refilter once.
    filter->setOpTypes(opType_->checked());
    filter->setTarget(target_->currentData().toString());
    filter->setName(name_->text().trimmed());
    filter->setTimeRange(timeOf(minTime_), timeOf(maxTime_));
}

void LayerFilterBar::follow() {
    const LayerFilter* filter = workbench_.layerFilter();
    following_ = true;
    if (opType_->checked() != filter->opTypes()) opType_->setChecked(filter->opTypes());
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
    // A fused kernel's nodes after the first are its row, not layers of their own.
    const auto shown = std::count_if(layers->begin(), layers->end(), [](const LayerRow& row) {
        return row.fusedInto.empty();
    });
    auto matching = std::count_if(layers->begin(), layers->end(), [&](const LayerRow& row) {
        return row.fusedInto.empty() &&
               filter->matches(QString::fromStdString(row.opType), QString::fromStdString(row.target),
                               QString::fromStdString(row.fullName), timed ? row.timeUs : -1.0);
    });
    // The nodes a run's rewrites removed are rows of the table too: layers with no time of their own.
    const std::vector<RemovedLayer> none;
    const auto& removed = timed ? workbench_.lastReport()->removedLayers : none;
    matching += std::count_if(removed.begin(), removed.end(), [&](const RemovedLayer& row) {
        return filter->matches(QString::fromStdString(row.opType), QString(), QString::fromStdString(row.fullName), -1.0);
    });
    count_->setText(tr("%1 of %2 layers").arg(matching).arg(shown + qsizetype(removed.size())));
}

void LayerFilterBar::saveSettings(QSettings& settings) const {
    const LayerFilter* filter = workbench_.layerFilter();
    settings.beginGroup(QStringLiteral("layerFilter"));
    const QSet<QString> chosen = filter->opTypes();
    QStringList ops(chosen.begin(), chosen.end());
    std::sort(ops.begin(), ops.end());
    settings.setValue(QStringLiteral("opTypes"), ops);
    settings.setValue(QStringLiteral("target"), filter->target());
    settings.setValue(QStringLiteral("name"), filter->name());
    settings.setValue(QStringLiteral("minTimeUs"), filter->minTimeUs() ? QVariant(*filter->minTimeUs()) : QVariant());
    settings.setValue(QStringLiteral("maxTimeUs"), filter->maxTimeUs() ? QVariant(*filter->maxTimeUs()) : QVariant());
    settings.setValue(QStringLiteral("shown"), toggle_->isChecked());
    settings.endGroup();
}

void LayerFilterBar::restoreSettings(QSettings& settings) {
    settings.beginGroup(QStringLiteral("layerFilter"));
    const auto time = [&settings](const QString& key) {
        bool ok = false;
        const double value = settings.value(key).toDouble(&ok);
        return ok && value >= 0 ? std::optional<double>(value) : std::nullopt;
    };
    const QStringList ops = settings.value(QStringLiteral("opTypes")).toStringList();
    LayerFilter* filter = workbench_.layerFilter();
    filter->setOpTypes(QSet<QString>(ops.begin(), ops.end()));
    filter->setTarget(settings.value(QStringLiteral("target")).toString());
    filter->setName(settings.value(QStringLiteral("name")).toString());
    filter->setTimeRange(time(QStringLiteral("minTimeUs")), time(QStringLiteral("maxTimeUs")));
    // A filter that hides layers is never restored out of sight.
    toggle_->setChecked(settings.value(QStringLiteral("shown"), false).toBool() || filter->isActive());
    settings.endGroup();
    fillOpTypes();  // the chosen op types, in the button and the list
}

}  // namespace npuwb::ui
