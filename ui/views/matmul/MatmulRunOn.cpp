#include "views/matmul/MatmulRunOn.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>

#include "models/BoardListModel.h"

namespace npuwb::ui {

MatmulRunOn::MatmulRunOn(BoardListModel* boards, QWidget* parent)
    : QWidget(parent), boards_(boards), target_(new QComboBox(this)), coreMask_(new QComboBox(this)),
      timeLimit_(new QSpinBox(this)), follow_(new QCheckBox(tr("As the toolbars"), this)) {
    for (NpuCoreMask mask : {NpuCoreMask::Auto, NpuCoreMask::Core0, NpuCoreMask::Core1, NpuCoreMask::Core2,
                             NpuCoreMask::Cores01, NpuCoreMask::Cores012, NpuCoreMask::All})
        coreMask_->addItem(QString::fromLatin1(coreMaskName(mask)), int(mask));
    coreMask_->setToolTip(tr("The board's NPU cores (rknn_matmul_set_core_mask); the estimate and the peak count as "
                             "many cores"));
    target_->setObjectName(QStringLiteral("matmulRunOn"));
    target_->setToolTip(tr("Where Run measures the sweep: this computer's CPU, or a saved board's NPU (Boards tab) "
                           "through its agent"));
    timeLimit_->setObjectName(QStringLiteral("matmulTimeLimit"));
    timeLimit_->setRange(10, 24 * 3600);
    timeLimit_->setValue(600);
    timeLimit_->setSuffix(tr(" s"));
    timeLimit_->setToolTip(tr("A board sweep (connect, deploy and all points) is stopped after this long, with a "
                              "message saying so"));
    follow_->setObjectName(QStringLiteral("matmulFollowToolbars"));
    follow_->setChecked(true);
    follow_->setToolTip(tr("Run on follows the Run toolbar's Target and the chip the Chip toolbar; choosing here "
                           "turns this off"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(target_, 1);
    layout->addWidget(new QLabel(tr("NPU cores"), this));
    layout->addWidget(coreMask_);
    layout->addWidget(new QLabel(tr("Time limit"), this));
    layout->addWidget(timeLimit_);
    layout->addWidget(follow_);
    fillBoards();
    connect(boards_, &BoardListModel::boardsChanged, this, &MatmulRunOn::fillBoards);
    connect(target_, &QComboBox::currentIndexChanged, this, [this] {
        updateEnabled();
        emit changed();
    });
    connect(coreMask_, &QComboBox::currentIndexChanged, this, &MatmulRunOn::changed);
    connect(target_, &QComboBox::activated, this, [this] { setFollows(false); });  // the user's own choice
    connect(follow_, &QCheckBox::toggled, this, &MatmulRunOn::followChanged);
}

void MatmulRunOn::followRunTarget(const QString& board) {
    if (!follows()) return;
    const int index = board.isEmpty() ? 0 : target_->findText(board);
    if (index >= 0) target_->setCurrentIndex(index);
}

bool MatmulRunOn::follows() const { return follow_->isChecked(); }

void MatmulRunOn::setFollows(bool follow) { follow_->setChecked(follow); }

int MatmulRunOn::timeLimitSeconds() const { return timeLimit_->value(); }

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
    follow_->setEnabled(!running_);
    coreMask_->setEnabled(!running_ && target_->currentIndex() > 0);  // the CPU has no NPU cores
    timeLimit_->setEnabled(!running_ && target_->currentIndex() > 0);  // a CPU sweep has Cancel only
}

void MatmulRunOn::save(QSettings& settings) const {
    settings.setValue(QStringLiteral("runOn"), target_->currentIndex() > 0 ? target_->currentText() : QString());
    settings.setValue(QStringLiteral("coreMask"), coreMask_->currentText());
    settings.setValue(QStringLiteral("timeLimitSeconds"), timeLimit_->value());
    settings.setValue(QStringLiteral("followToolbars"), follow_->isChecked());
}

void MatmulRunOn::restore(QSettings& settings) {
    follow_->setChecked(settings.value(QStringLiteral("followToolbars"), true).toBool());
    timeLimit_->setValue(settings.value(QStringLiteral("timeLimitSeconds"), timeLimit_->value()).toInt());
    // A board since removed, or a mask word not known, keeps the current choice; following, the toolbar's wins.
    const int index = target_->findText(settings.value(QStringLiteral("runOn")).toString());
    if (index > 0 && !follows()) target_->setCurrentIndex(index);
    const int mask = coreMask_->findText(settings.value(QStringLiteral("coreMask")).toString());
    if (mask >= 0) coreMask_->setCurrentIndex(mask);
}

}  // namespace npuwb::ui
