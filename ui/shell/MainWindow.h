#pragma once
// The workbench window: a shell that hosts the registered views as tabs (core/ViewRegistry.h) around the shared
// Workbench, with the File menu, Edit (undo), Run (the run controller), Analyze and View menus, the toolbars, the
// model info panel and the status bar. It never names a view: views add themselves and their actions.
#include <QMainWindow>

class QMenu;
class QProgressBar;
class QStackedWidget;
class QTabWidget;

namespace npuwb::ui {

class FileActions;
class LayerFilterBar;
class ModelInfoPanel;
class RunController;
class StartPage;
class Workbench;
class WorkbenchView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    Workbench* workbench() const { return workbench_; }
    RunController* runner() const { return runner_; }
    FileActions* files() const { return files_; }
    ModelInfoPanel* modelInfo() const;
    QProgressBar* progressBar() const;
    LayerFilterBar* filterBar() const { return filterBar_; }
    /// Shown instead of the views until a model is open.
    StartPage* startPage() const { return startPage_; }

    /// The registered view called `name` (case-insensitive), nullptr when none.
    WorkbenchView* view(const QString& name) const;
    /// The view of this type, nullptr when none is registered.
    template <class View> View* view() const {
        for (WorkbenchView* v : views())
            if (auto* typed = qobject_cast<View*>(v)) return typed;
        return nullptr;
    }
    QList<WorkbenchView*> views() const;
    /// Shows a tab by its registered name; false for an unknown name.
    bool setCurrentView(const QString& name);
    /// Loads on a worker; Workbench::modelLoaded or operationFailed follows.
    void openModel(const QString& path);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createMenusAndViews();
    void createStatusBar();
    void restoreSettings();
    void saveSettings() const;
    void updateTitle();

    Workbench* workbench_;
    QTabWidget* tabs_;
    FileActions* files_ = nullptr;
    RunController* runner_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    LayerFilterBar* filterBar_ = nullptr;
    StartPage* startPage_ = nullptr;
    QStackedWidget* pages_ = nullptr;  // the start page, then the views' tabs
};

}  // namespace npuwb::ui
