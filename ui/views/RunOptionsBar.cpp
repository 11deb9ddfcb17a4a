#include "views/RunOptionsBar.h"

#include <QLabel>
#include <QSpinBox>

namespace npuwb::ui {

RunOptionsBar::RunOptionsBar(QWidget* parent)
    : QToolBar(tr("Run"), parent), runs_(new QSpinBox(this)), warmup_(new QSpinBox(this)) {
    setObjectName(QStringLiteral("runToolBar"));  // saveState() needs a name
    runs_->setRange(1, 10000);
    runs_->setValue(kDefaultRuns);
    runs_->setToolTip(tr("Timed runs; layer times are the median over these"));
    warmup_->setRange(0, 1000);
    warmup_->setValue(kDefaultWarmup);
    warmup_->setToolTip(tr("Untimed runs first, to warm caches and allocators"));
    addSeparator();
    addWidget(new QLabel(tr(" Runs "), this));
    addWidget(runs_);
    addWidget(new QLabel(tr("  Warm-up "), this));
    addWidget(warmup_);
    connect(runs_, &QSpinBox::valueChanged, this, &RunOptionsBar::optionsChanged);
    connect(warmup_, &QSpinBox::valueChanged, this, &RunOptionsBar::optionsChanged);
}

RunOptions RunOptionsBar::options() const {
    RunOptions options;
    options.runs = runs_->value();
    options.warmup = warmup_->value();
    return options;
}

void RunOptionsBar::setRuns(int runs) {
    runs_->setValue(runs);
}

void RunOptionsBar::setWarmup(int warmup) {
    warmup_->setValue(warmup);
}

}  // namespace npuwb::ui
