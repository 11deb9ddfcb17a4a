#include "core/ItemViewCopy.h"

#include <QAbstractItemView>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QTableView>
#include <QTreeView>

#include <algorithm>

namespace npuwb::ui {

namespace {
const char* const kCopyActionName = "copyRowsAction";

QHeaderView* headerOf(const QAbstractItemView* view) {
    if (auto* table = qobject_cast<const QTableView*>(view)) return table->horizontalHeader();
    if (auto* tree = qobject_cast<const QTreeView*>(view)) return tree->header();
    return nullptr;
}

/// The row's place in a depth-first walk of the model: parents before children, siblings by row.
QList<int> pathOf(QModelIndex index) {
    QList<int> path;
    for (; index.isValid(); index = index.parent()) path.prepend(index.row());
    return path;
}

QString cellText(const QModelIndex& index) {
    QString text = index.data(Qt::DisplayRole).toString();
    text.replace(QLatin1Char('\t'), QLatin1Char(' '));
    text.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return text;
}
}  // namespace

QString selectedRowsText(const QAbstractItemView* view) {
    const QAbstractItemModel* model = view ? view->model() : nullptr;
    if (!model || !view->selectionModel()) return {};
    // Rows with any selected cell: a view may select items rather than rows.
    QModelIndexList rows;
    for (const QModelIndex& index : view->selectionModel()->selectedIndexes()) {
        const QModelIndex first = index.siblingAtColumn(0);
        if (!rows.contains(first)) rows << first;
    }
    if (rows.isEmpty()) return {};
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex& a, const QModelIndex& b) { return pathOf(a) < pathOf(b); });
    QList<int> columns;  // logical columns in visual order, hidden ones left out
    const QHeaderView* header = headerOf(view);
    const int count = model->columnCount(rows.front().parent());
    for (int visual = 0; visual < count; ++visual) {
        const int logical = header ? header->logicalIndex(visual) : visual;
        if (logical >= 0 && !(header && header->isSectionHidden(logical))) columns << logical;
    }
    QStringList lines;
    QStringList titles;
    for (int c : columns) titles << model->headerData(c, Qt::Horizontal).toString();
    lines << titles.join(QLatin1Char('\t'));
    for (const QModelIndex& row : rows) {
        QStringList cells;
        for (int c : columns) cells << cellText(row.siblingAtColumn(c));
        lines << cells.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QAction* addCopyAction(QAbstractItemView* view) {
    if (auto* existing = view->findChild<QAction*>(QLatin1String(kCopyActionName), Qt::FindDirectChildrenOnly))
        return existing;
    auto* copy = new QAction(QAbstractItemView::tr("&Copy"), view);
    copy->setObjectName(QLatin1String(kCopyActionName));
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    copy->setToolTip(QAbstractItemView::tr("Copy the selected rows as tab-separated text (Ctrl+C)"));
    QObject::connect(copy, &QAction::triggered, view, [view] {
        const QString text = selectedRowsText(view);
        if (!text.isEmpty()) QApplication::clipboard()->setText(text);
    });
    // Views that fill their own context menu keep it; the rest show their actions (Copy first).
    if (view->contextMenuPolicy() == Qt::DefaultContextMenu) view->setContextMenuPolicy(Qt::ActionsContextMenu);
    view->insertAction(view->actions().value(0), copy);
    return copy;
}

}  // namespace npuwb::ui
