#include "shell/TargetOptionsBar.h"

#include <QComboBox>
#include <QLabel>
#include <QSpinBox>

#include <exception>

#include "core/Workbench.h"
#include "npuwb/ChipProfile.h"

namespace npuwb::ui {

TargetOptionsBar::TargetOptionsBar(Workbench& workbench, QWidget* parent)
    : QToolBar(tr("Target"), parent), chip_(new QComboBox(this)), dtype_(new QComboBox(this)),
      cores_(new QSpinBox(this)) {
    setObjectName(QStringLiteral("targetToolBar"));  // saveState() needs a name
    try {
        for (const std::string& name : availableChipProfiles()) chip_->addItem(QString::fromStdString(name));
    } catch (const std::exception&) {
        // No profile folder: the empty box says it; estimating then reports the lookup error.
    }
    chip_->setToolTip(tr("Chip profile the estimate and the advice are for (resources/chips)"));
    dtype_->addItems({QStringLiteral("int8"), QStringLiteral("fp16")});
    dtype_->setToolTip(tr("Precision the model runs at on the NPU"));
    cores_->setRange(1, 1);
    cores_->setToolTip(tr("NPU cores used; only ops the chip lists as multi-core split across them"));

    addSeparator();
    addWidget(new QLabel(tr(" Chip "), this));
    addWidget(chip_);
    addWidget(new QLabel(tr("  Type "), this));
    addWidget(dtype_);
    addWidget(new QLabel(tr("  Cores "), this));
    addWidget(cores_);
    setOptions(workbench.target());
    connect(chip_, &QComboBox::currentTextChanged, this, &TargetOptionsBar::onChipChanged);
    connect(chip_, &QComboBox::currentTextChanged, this, &TargetOptionsBar::optionsChanged);
    connect(dtype_, &QComboBox::currentTextChanged, this, &TargetOptionsBar::optionsChanged);
    connect(cores_, &QSpinBox::valueChanged, this, &TargetOptionsBar::optionsChanged);
    connect(this, &TargetOptionsBar::optionsChanged, &workbench, [this, &workbench] { workbench.setTarget(options()); });
    connect(&workbench, &Workbench::stateChanged, this, [this, &workbench] { setEnabled(!workbench.isBusy()); });
    connect(&workbench, &Workbench::targetChanged, this, [this, &workbench] {
        const QSignalBlocker block(this);  // the workbench already has it
        setOptions(workbench.target());
    });
}

TargetOptions TargetOptionsBar::options() const {
    return {chip_->currentText(), dtype_->currentText(), cores_->value()};
}

void TargetOptionsBar::setOptions(const TargetOptions& options) {
    int chip = chip_->findText(options.chip, Qt::MatchFixedString);
    if (chip < 0) chip = chip_->findText(QString::fromLatin1(kDefaultChip), Qt::MatchFixedString);
    if (chip >= 0) chip_->setCurrentIndex(chip);
    onChipChanged();
    const int dtype = dtype_->findText(options.dtype);
    dtype_->setCurrentIndex(dtype >= 0 ? dtype : 0);
    cores_->setValue(options.cores);  // clamped to the chip's cores
}

void TargetOptionsBar::onChipChanged() {
    int cores = 1;
    try {
        cores = int(findChipProfile(chip_->currentText().toStdString()).cores);
    } catch (const std::exception&) {
        // A malformed profile: estimating names the file and field; keep one core meanwhile.
    }
    cores_->setRange(1, std::max(1, cores));
}

}  // namespace npuwb::ui
