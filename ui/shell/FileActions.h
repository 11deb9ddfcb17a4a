#pragma once
// The File menu and toolbar: open a model (dialog, recent files), save the (possibly optimized) model, export the
// last report, import a Rockchip vendor perf log as a run, convert the model to .rknn with RKNN-Toolkit2, quit. Files are written atomically.
#include <QObject>

class QAction;
class QMainWindow;
class QMenu;
class QToolBar;

namespace npuwb::ui {

class RecentFiles;
class RknnConvertDialog;
class Workbench;

class FileActions : public QObject {
    Q_OBJECT
public:
    /// Fills `menu` and `toolBar`.
    FileActions(Workbench& workbench, QMainWindow* window, QMenu* menu, QToolBar* toolBar);

    /// Saves the current (possibly optimized) model; false (and a message box) on failure.
    bool saveModelAs(const QString& path);
    /// Writes the last report; false (and a message box) on failure.
    bool exportReport(const QString& path);
    /// Shows a Rockchip perf log (eval_perf, RKNN_LOG_LEVEL=4) like a run; false (and a message box naming the
    /// file and line) when it cannot be read or parsed.
    bool importVendorLog(const QString& path);

    RecentFiles* recentFiles() const { return recent_; }
    QAction* openAction() const { return openAction_; }
    QAction* exportAction() const { return exportAction_; }
    QAction* saveModelAction() const { return saveModelAction_; }
    QAction* convertRknnAction() const { return convertRknnAction_; }
    /// Where the views' own File entries go: above Quit, as menus usually end with it.
    QAction* quitSeparator() const { return quitSeparator_; }
    /// Opens the Convert to RKNN dialog for the current model (non-modal), or null without a model.
    RknnConvertDialog* openConvertRknnDialog();

private:
    void openFileDialog();
    void saveModelDialog();
    void exportReportDialog();
    void importVendorLogDialog();
    void updateActions();

    Workbench& workbench_;
    QMainWindow* window_;
    RecentFiles* recent_;
    QAction* openAction_;
    QAction* saveModelAction_;
    QAction* exportAction_;
    QAction* importLogAction_;
    QAction* convertRknnAction_;
    QAction* quitSeparator_ = nullptr;
};

}  // namespace npuwb::ui
