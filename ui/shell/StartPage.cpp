#include "shell/StartPage.h"

#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "shell/InstalledFiles.h"

namespace npuwb::ui {

StartPage::StartPage(QWidget* parent) : QWidget(parent), sample_(new QPushButton(this)), recent_(new QListWidget(this)) {
    setObjectName(QStringLiteral("startPage"));
    auto* title = new QLabel(tr("<h2>NPU Workbench</h2><p>Open an ONNX model, or a compiled .rknn model, to see its "
                                "graph, shapes and memory, run and profile it here or on a board, estimate it on "
                                "a Rockchip NPU and quantize it.</p>"),
                             this);
    title->setWordWrap(true);
    auto* open = new QPushButton(tr("Open Model…  (Ctrl+O)"), this);
    open->setObjectName(QStringLiteral("startOpenButton"));
    connect(open, &QPushButton::clicked, this, &StartPage::openRequested);

    const QStringList samples = sampleModels();
    sample_->setObjectName(QStringLiteral("startSampleButton"));
    sample_->setVisible(!samples.isEmpty());
    if (!samples.isEmpty()) {
        const QString sample = samples.front();
        sample_->setText(tr("Try the sample: %1").arg(QFileInfo(sample).fileName()));
        sample_->setToolTip(QDir::toNativeSeparators(sample));
        connect(sample_, &QPushButton::clicked, this, [this, sample] { emit fileChosen(sample); });
    }

    auto* recentTitle = new QLabel(tr("<b>Recent models</b> (Enter or double-click opens one)"), this);
    recent_->setObjectName(QStringLiteral("startRecentList"));
    recent_->setMaximumHeight(10 * fontMetrics().height() * 2);
    connect(recent_, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { emit fileChosen(item->data(Qt::UserRole).toString()); });
    auto* drop = new QLabel(tr("Or drop a model file anywhere on this window."), this);

    auto* column = new QVBoxLayout;
    column->addWidget(title);
    column->addSpacing(8);
    column->addWidget(open);
    column->addWidget(sample_);
    column->addSpacing(12);
    column->addWidget(recentTitle);
    column->addWidget(recent_);
    column->addWidget(drop);
    column->addStretch(1);
    auto* centre = new QHBoxLayout(this);
    centre->addStretch(1);
    centre->addLayout(column, 3);
    centre->addStretch(1);
    setRecentFiles({});
}

void StartPage::setRecentFiles(const QStringList& files) {
    recent_->clear();
    for (const QString& path : files) {
        if (!QFileInfo::exists(path)) continue;
        auto* item = new QListWidgetItem(QStringLiteral("%1    %2").arg(QFileInfo(path).fileName(),
                                                                         QDir::toNativeSeparators(path)),
                                         recent_);
        item->setData(Qt::UserRole, path);
        item->setToolTip(QDir::toNativeSeparators(path));
    }
    if (recent_->count() == 0) {
        auto* none = new QListWidgetItem(tr("(none yet: the models you open are listed here)"), recent_);
        none->setFlags(Qt::NoItemFlags);
    }
}

}  // namespace npuwb::ui
