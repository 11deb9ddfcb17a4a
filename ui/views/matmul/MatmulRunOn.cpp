#include "views/matmul/MatmulRunOn.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QSignalBlocker>

#include <algorithm>

#include "models/BoardListModel.h"

namespace npuwb::ui {

MatmulRunOn::MatmulRunOn(BoardListModel* boards, QWidget* parent)
    : QWidget(parent), boards_(boards), target_(new QComboBox(this)), coreMask_(new QComboBox(this)) {
    for (NpuCoreMask mask : {NpuCoreMask::Auto, NpuCoreMask::Core0, NpuCoreMask::Core1, NpuCoreMask::Core2,
                             NpuCoreMask::Cores01, NpuCoreMask::Cores012, NpuCoreMask::All})
        coreMask_->addItem(QString::fromLatin1(coreMaskName(mask)), int(mask));
    coreMask_->setToolTip(tr("The board's NPU cores (rknn_matmul_set_core_mask); the estimate and the peak count as "
                             "many cores"));
    target_->setObjectName(QStringLiteral("matmulRunOn"));
    target_->setToolTip(tr("Where Run measures the sweep: this computer's CPU, or a saved board's NPU (Boards tab) "
                           "through its agent"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(target_, 1);
    layout->addWidget(new QLabel(tr("NPU cores"), this));
    layout->addWidget(coreMask_);
    fillBoards();
    connect(boards_, &BoardListModel::boardsChanged, this, &MatmulRunOn::fillBoards);
    connect(target_, &QComboBox::currentIndexChanged, this, [this] {
        updateEnabled();
        emit changed();
    });
    connect(coreMask_, &QComboBox::currentIndexChanged, this, &MatmulRunOn::changed);
}

// The saved boards after "This computer's CPU", the chosen one kept by name while it is there.
void MatmulRunOn::fillBoards() {
    const QString chosen = target_->currentIndex() > 0 ? target_->currentText() : QString();
    {
        const QSignalBlocker block(target_);
        target_->clear();
        target_->addItem(tr("This computer's CPU"));
        for (const BoardEntry& board : boards_->boards()) target_->addItem(board.name);
        target_->setCurrentIndex(std::max(0, target_->findText(chosen)));
    }
    updateEnabled();
    emit changed();
}

std::optional<BoardEntry> MatmulRunOn::board() const {
    const int row = target_->currentIndex() - 1;
    if (row < 0 || row >= boards_->rowCount()) return std::nullopt;
    return boards_->board(row);
}

QString MatmulRunOn::targetName() const {
    return target_->currentText();
}

NpuCoreMask MatmulRunOn::coreMask() const {
    return NpuCoreMask(coreMask_->currentData().toInt());
}

int64_t MatmulRunOn::coresOf(NpuCoreMask mask, const ChipProfile& chip) {
    switch (mask) {
        case NpuCoreMask::Cores01: return std::min<int64_t>(2, chip.cores);
        case NpuCoreMask::Cores012: return std::min<int64_t>(3, chip.cores);
        case NpuCoreMask::All: return chip.cores;
        default: return 1;
    }
}

bool MatmulRunOn::select(const QString& target, const QString& coreMask) {
    const int index = target.isEmpty() || target == QLatin1String("CPU") ? 0 : target_->findText(target);
    const int mask = coreMask_->findText(coreMask);
    if (index < 0 || mask < 0) return false;
    target_->setCurrentIndex(index);
    coreMask_->setCurrentIndex(mask);
    return true;
}

void MatmulRunOn::setRunning(bool running) {
    running_ = running;
    updateEnabled();
}

void MatmulRunOn::updateEnabled() {
    target_->setEnabled(!running_);
    coreMask_->setEnabled(!running_ && target_->currentIndex() > 0);  // the CPU has no NPU cores
}

void MatmulRunOn::save(QSettings& settings) const {
    settings.setValue(QStringLiteral("runOn"), target_->currentIndex() > 0 ? target_->currentText() : QString());
    settings.setValue(QStringLiteral("coreMask"), coreMask_->currentText());
}

void MatmulRunOn::restore(QSettings& settings) {
    // A board since removed, or a mask word not known, keeps the current choice.
    const int index = target_->findText(settings.value(QStringLiteral("runOn")).toString());
    if (index > 0) target_->setCurrentIndex(index);
    const int mask = coreMask_->findText(settings.value(QStringLiteral("coreMask")).toString());
    if (mask >= 0) coreMask_->setCurrentIndex(mask);
}

}  // namespace npuwb::ui
