#include "shell/RecentFiles.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace npuwb::ui {

namespace {
const QString kKey = QStringLiteral("recentFiles");
}

RecentFiles::RecentFiles(QMenu* menu, QObject* parent) : QObject(parent), menu_(menu) {
    rebuildMenu();
}

QStringList RecentFiles::files() const {
    return QSettings().value(kKey).toStringList();
}

void RecentFiles::add(const QString& path) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = files();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxEntries) list.removeLast();
    store(list);
}

void RecentFiles::remove(const QString& path) {
    QStringList list = files();
    list.removeAll(QFileInfo(path).absoluteFilePath());
    store(list);
}

void RecentFiles::store(const QStringList& list) {
    QSettings().setValue(kKey, list);
    rebuildMenu();
}

void RecentFiles::rebuildMenu() {
    menu_->clear();
    const QStringList list = files();
    for (int i = 0; i < list.size(); ++i) {
        const QString& path = list[i];
        // &1..&9 as keyboard accelerators; the full path goes in the tooltip and status tip.
        const QString text = i < 9 ? QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName())
                                   : QFileInfo(path).fileName();
        QAction* action = menu_->addAction(text);
        action->setToolTip(QDir::toNativeSeparators(path));
        action->setStatusTip(QDir::toNativeSeparators(path));
        // Queued: opening a file rebuilds this menu, which must not delete the action while it is emitting.
        connect(action, &QAction::triggered, this, [this, path] { emit fileChosen(path); }, Qt::QueuedConnection);
    }
    if (!list.isEmpty()) {
        menu_->addSeparator();
        connect(menu_->addAction(tr("Clear list")), &QAction::triggered, this, [this] { store({}); },
                Qt::QueuedConnection);
    }
    menu_->setEnabled(!list.isEmpty());
}

}  // namespace npuwb::ui
