#include "shell/OpTypeChooser.h"

#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QVBoxLayout>
#include <QWidgetAction>

#include <algorithm>

namespace npuwb::ui {

OpTypeChooser::OpTypeChooser(QWidget* parent) : QToolButton(parent), list_(new QListWidget) {
    setObjectName(QStringLiteral("opTypeChooser"));
    setToolTip(tr("Op types: tick several to see them together; none ticked shows every op type"));
    setPopupMode(QToolButton::InstantPopup);
    setToolButtonStyle(Qt::ToolButtonTextOnly);
    list_->setObjectName(QStringLiteral("opTypeList"));
    list_->setSelectionMode(QAbstractItemView::NoSelection);
    auto* any = new QPushButton(tr("Any op type"));
    any->setObjectName(QStringLiteral("anyOpTypeButton"));
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(list_);
    layout->addWidget(any);
    // A widget in the menu, not checkable actions: a QMenu closes at each click, and ticking five types would
    // take five trips.
    auto* menu = new QMenu(this);
    auto* action = new QWidgetAction(menu);
    action->setDefaultWidget(box);
    menu->addAction(action);
    setMenu(menu);

    connect(list_, &QListWidget::itemChanged, this, [this] {
        if (filling_) return;
        updateText();
        emit checkedChanged();
    });
    connect(any, &QPushButton::clicked, this, [this, menu] {
        const bool had = !checked().isEmpty();
        setChecked({});
        menu->close();
        if (had) emit checkedChanged();
    });
    updateText();
}

void OpTypeChooser::setOpTypes(const QStringList& opTypes) {
    const QSet<QString> keep = checked();
    filling_ = true;
    list_->clear();
    for (const QString& op : opTypes) {
        auto* item = new QListWidgetItem(op, list_);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        item->setCheckState(keep.contains(op) ? Qt::Checked : Qt::Unchecked);
    }
    // Tall enough for a dozen types without scrolling, never taller than that.
    const int rows = std::clamp(int(opTypes.size()), 1, 14);
    list_->setFixedHeight(rows * list_->fontMetrics().height() * 3 / 2 + 2 * list_->frameWidth());
    list_->setMinimumWidth(list_->sizeHintForColumn(0) + 40);
    filling_ = false;
    updateText();
}

QStringList OpTypeChooser::opTypes() const {
    QStringList ops;
    for (int i = 0; i < list_->count(); ++i) ops << list_->item(i)->text();
    return ops;
}

void OpTypeChooser::setChecked(const QSet<QString>& opTypes) {
    filling_ = true;
    for (int i = 0; i < list_->count(); ++i)
        list_->item(i)->setCheckState(opTypes.contains(list_->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
    filling_ = false;
    updateText();
}

QSet<QString> OpTypeChooser::checked() const {
    QSet<QString> ops;
    for (int i = 0; i < list_->count(); ++i)
        if (list_->item(i)->checkState() == Qt::Checked) ops.insert(list_->item(i)->text());
    return ops;
}

void OpTypeChooser::updateText() {
    QStringList ops;  // in the list's (sorted) order
    for (int i = 0; i < list_->count(); ++i)
        if (list_->item(i)->checkState() == Qt::Checked) ops << list_->item(i)->text();
    setText(ops.isEmpty()      ? tr("any op type")
            : ops.size() <= 2 ? ops.join(QStringLiteral(", "))
                              : tr("%1 op types").arg(ops.size()));
    setToolTip(ops.size() > 2 ? ops.join(QStringLiteral(", "))
                              : tr("Op types: tick several to see them together; none ticked shows every op type"));
}

}  // namespace npuwb::ui
