#pragma once
// Base of every tab of the window. A view owns its widgets, jobs and state; it talks to the rest of the window only
// through the Workbench (shared model, report, selection, status) and through the actions it hands the window for
// its menus and toolbars. Views register themselves (core/ViewRegistry.h); the window never names one.
#include <QList>
#include <QWidget>

class QAction;
class QSettings;

namespace npuwb::ui {

class Workbench;

/// Where the window puts a view's action.
enum class MenuSlot { File, Edit, Run, Analyze };
enum class ToolBarSlot { None, Run, Target };

struct ViewAction {
    QAction* action = nullptr;
    MenuSlot menu = MenuSlot::Analyze;
    ToolBarSlot toolBar = ToolBarSlot::None;
};

class WorkbenchView : public QWidget {
    Q_OBJECT
public:
    WorkbenchView(Workbench& workbench, QWidget* parent);

    Workbench& workbench() const { return workbench_; }

    /// Actions for the window's menus and toolbars, in this order; asked once, after construction.
    virtual QList<ViewAction> viewActions() const { return {}; }
    /// Inside the view's own settings group.
    virtual void saveSettings(QSettings& settings) const;
    virtual void restoreSettings(QSettings& settings);
    /// What `npuwb MODEL --view NAME` does once the model is loaded, besides showing the tab: start the view's work
    /// (estimate, advise). True when work started; resultShown follows.
    virtual bool startFromCommandLine() { return false; }
    /// Makes this the current tab (e.g. a result arrived that the user asked for elsewhere).
    void bringToFront();

signals:
    /// The view's work (an estimate, advice, a quantization) is on screen: --screenshot waits for this.
    void resultShown();

private:
    Workbench& workbench_;
};

}  // namespace npuwb::ui
