#pragma once
// Copy for every table and tree of the window: a Copy entry (Ctrl+C while the view has focus) in the view's context
// menu puts the selected rows on the clipboard as tab-separated text under a header line, the columns in the order
// shown, hidden ones left out, so they paste into a spreadsheet as they look. The window adds it to every item view
// of its views at once (MainWindow); a view needs nothing of its own.
#include <QString>

class QAction;
class QAbstractItemView;

namespace npuwb::ui {

/// The selected rows of `view` (a table's or a tree's, sorted as shown) as tab-separated lines under the header.
QString selectedRowsText(const QAbstractItemView* view);

/// Adds the Copy action (Ctrl+C, for this view only) to `view` and its context menu; returns it. Idempotent.
QAction* addCopyAction(QAbstractItemView* view);

}  // namespace npuwb::ui
