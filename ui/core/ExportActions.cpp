#include "core/ExportActions.h"

#include <QAbstractItemView>
#include <QAction>
#include <QFileDialog>
#include <QHeaderView>
#include <QMessageBox>
#include <QTableView>
#include <QTreeView>
#include <qcustomplot.h>

#include <exception>

#include "npuwb/AtomicFile.h"

namespace npuwb::ui {

namespace {
const char* const kExportCsvName = "exportCsvAction";
const char* const kSaveChartName = "saveChartAction";

QHeaderView* headerOf(const QAbstractItemView* view) {
    if (auto* table = qobject_cast<const QTableView*>(view)) return table->horizontalHeader();
    if (auto* tree = qobject_cast<const QTreeView*>(view)) return tree->header();
    return nullptr;
}

QString csvField(QString text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')))
        return text;
    text.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + text + QLatin1Char('"');
}

void appendRows(const QAbstractItemModel& model, const QModelIndex& parent, const QList<int>& columns,
                QStringList& lines) {
    for (int row = 0; row < model.rowCount(parent); ++row) {
        QStringList cells;
        for (int c : columns) cells << csvField(model.index(row, c, parent).data(Qt::DisplayRole).toString());
        lines << cells.join(QLatin1Char(','));
        const QModelIndex child = model.index(row, 0, parent);
        if (model.hasChildren(child)) appendRows(model, child, columns, lines);
    }
}

/// Context menu entry: views that fill their own menu keep it, the rest show their actions.
void addToContextMenu(QWidget* widget, QAction* action) {
    if (widget->contextMenuPolicy() == Qt::DefaultContextMenu) widget->setContextMenuPolicy(Qt::ActionsContextMenu);
    widget->addAction(action);
}

void showError(QWidget* parent, const QString& text) {
    auto* box = new QMessageBox(QMessageBox::Warning, QObject::tr("Export"), text, QMessageBox::Ok, parent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->show();
}
}  // namespace

QString allRowsCsv(const QAbstractItemView* view) {
    const QAbstractItemModel* model = view ? view->model() : nullptr;
    if (!model) return {};
    QList<int> columns;  // logical columns in visual order, hidden ones left out
    const QHeaderView* header = headerOf(view);
    for (int visual = 0; visual < model->columnCount(); ++visual) {
        const int logical = header ? header->logicalIndex(visual) : visual;
        if (logical >= 0 && !(header && header->isSectionHidden(logical))) columns << logical;
    }
    QStringList lines;
    QStringList titles;
    for (int c : columns) titles << csvField(model->headerData(c, Qt::Horizontal).toString());
    lines << titles.join(QLatin1Char(','));
    appendRows(*model, QModelIndex(), columns, lines);
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

QAction* addExportCsvAction(QAbstractItemView* view) {
    if (auto* existing = view->findChild<QAction*>(QLatin1String(kExportCsvName), Qt::FindDirectChildrenOnly))
        return existing;
    auto* action = new QAction(QObject::tr("Export as CSV…"), view);
    action->setObjectName(QLatin1String(kExportCsvName));
    QObject::connect(action, &QAction::triggered, view, [view] {
        const QString path = QFileDialog::getSaveFileName(view, QObject::tr("Export as CSV"), QString(),
                                                          QObject::tr("CSV files (*.csv)"));
        if (path.isEmpty()) return;
        try {
            writeFileAtomically(path.toStdString(), allRowsCsv(view).toStdString());
        } catch (const std::exception& e) {
            showError(view, QString::fromUtf8(e.what()));
        }
    });
    addToContextMenu(view, action);
    return action;
}

QString saveChart(QCustomPlot* plot, const QString& path) {
    const QString temporary = path + QStringLiteral(".part");
    const bool pdf = path.endsWith(QLatin1String(".pdf"), Qt::CaseInsensitive);
    const bool saved = pdf ? plot->savePdf(temporary) : plot->savePng(temporary);
    if (!saved) {
        QFile::remove(temporary);
        return QObject::tr("Could not write '%1'").arg(path);
    }
    QFile::remove(path);  // rename() does not replace
    if (!QFile::rename(temporary, path)) {
        QFile::remove(temporary);
        return QObject::tr("Could not write '%1'").arg(path);
    }
    return {};
}

QAction* addSaveChartAction(QCustomPlot* plot) {
    if (auto* existing = plot->findChild<QAction*>(QLatin1String(kSaveChartName), Qt::FindDirectChildrenOnly))
        return existing;
    auto* action = new QAction(QObject::tr("Save Chart As…"), plot);
    action->setObjectName(QLatin1String(kSaveChartName));
    QObject::connect(action, &QAction::triggered, plot, [plot] {
        const QString path = QFileDialog::getSaveFileName(plot, QObject::tr("Save Chart As"), QString(),
                                                          QObject::tr("PNG image (*.png);;PDF document (*.pdf)"));
        if (path.isEmpty()) return;
        if (const QString error = saveChart(plot, path); !error.isEmpty()) showError(plot, error);
    });
    addToContextMenu(plot, action);
    return action;
}

}  // namespace npuwb::ui
