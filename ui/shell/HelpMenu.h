#pragma once
// The Help menu: About NPU Workbench (version, license), Keyboard Shortcuts (every action of the window that has
// one, read from the window itself so the list never goes stale) and About Qt.
#include <QString>

class QMainWindow;
class QMenu;

namespace npuwb::ui {

/// Adds the Help menu to `window`'s menu bar; returns it.
QMenu* addHelpMenu(QMainWindow* window);

/// "Ctrl+O\tOpen Model…" lines for every action of `window` with a shortcut, sorted by menu text.
QString shortcutListText(const QMainWindow* window);

}  // namespace npuwb::ui
