#pragma once
// Export for every table, tree and chart of the window, beside Copy in their context menus: "Export as CSV…" writes
// all rows of a table or tree (as shown: sorted, filtered, visible columns in visual order), "Save Chart As…" a
// chart as PNG or PDF. Files are written atomically. The window adds both to its views at once (MainWindow).
#include <QString>

class QAction;
class QAbstractItemView;
class QCustomPlot;

namespace npuwb::ui {

/// Every row of `view` (depth first for trees) as CSV under a header line; fields quoted where needed.
QString allRowsCsv(const QAbstractItemView* view);

/// Adds "Export as CSV…" to `view`'s context menu; returns it. Idempotent.
QAction* addExportCsvAction(QAbstractItemView* view);
/// Adds "Save Chart As…" (PNG, PDF) to `plot`'s context menu; returns it. Idempotent.
QAction* addSaveChartAction(QCustomPlot* plot);

/// Saves `plot` to `path` (PNG, or PDF when it ends in .pdf) through a temporary file renamed over the target;
/// returns an error text, empty on success.
QString saveChart(QCustomPlot* plot, const QString& path);

}  // namespace npuwb::ui
