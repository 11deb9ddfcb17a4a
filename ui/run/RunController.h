#pragma once
// Run (F5) and Cancel (Esc): profiles the open model on this computer (ProfileJob, on the backend and threads the
// Run toolbar names) or on a saved board (RemoteRunJob: deploy, run through the agent, live progress and the board
// telemetry dock). Either report goes to the workbench, so the same table, chart and info panel show it.
#include <QObject>

#include <functional>
#include <memory>

#include "npuwb/Report.h"

class QAction;
class QDockWidget;
class QMainWindow;
class QSettings;

namespace npuwb::ui {

class BoardQuestionDialogs;
class ProfileJob;
class RemoteRunJob;
class RunOptionsBar;
class TelemetryChart;
class Workbench;

class RunController : public QObject {
    Q_OBJECT
public:
    /// Adds the Run toolbar and the (hidden) board telemetry dock to `window`.
    RunController(Workbench& workbench, QMainWindow* window);
    ~RunController() override;

    QAction* runAction() const { return runAction_; }
    QAction* cancelAction() const { return cancelAction_; }
    /// Run > Input Shapes...: sizes for the open model's symbolic input dims (dialogs/InputShapesDialog).
    QAction* inputShapesAction() const { return inputShapesAction_; }
    RunOptionsBar* optionsBar() const { return bar_; }
    TelemetryChart* telemetryChart() const { return telemetry_; }
    ProfileJob* profileJob() const { return profileJob_; }
    RemoteRunJob* boardRunJob() const { return boardJob_; }
    /// The dialogs a board run's connection questions open.
    BoardQuestionDialogs* boardQuestions() const { return questions_.get(); }
    bool isRunning() const;
    /// Where Run goes: "Local" (or empty) or a saved board's name; false when there is no such board.
    bool setRunTarget(const QString& name);

    void saveSettings(QSettings& settings) const;
    void restoreSettings(QSettings& settings);

public slots:
    void startRun();
    /// Opens the Input Shapes dialog (prefilled); `proceed` runs once the user accepts it.
    void askInputShapes(std::function<void()> proceed = {});
    void cancelRun();

signals:
    void runFinished(std::shared_ptr<const Report> report);
    void runCancelled();

private:
    void startLocalRun();
    void startBoardRun();
    void onProgress(const QString& phase, int done, int total);
    void finishRun(std::shared_ptr<const Report> report, const QString& statusText);
    void onCancelled();
    void onFailed(const QString& message);
    void onBoardFailed(const QString& message, bool hostKeyChanged);
    void refreshTargets();
    void onTargetChanged();
    void updateActions();

    Workbench& workbench_;
    QAction* runAction_;
    QAction* cancelAction_;
    QAction* inputShapesAction_;
    RunOptionsBar* bar_;
    ProfileJob* profileJob_;
    std::shared_ptr<BoardQuestionDialogs> questions_;
    RemoteRunJob* boardJob_;
    TelemetryChart* telemetry_;
    QDockWidget* telemetryDock_;
    int runWarmup_ = 0;  // of the run in flight, to map phase progress onto one bar
    int runCount_ = 0;
    bool boardRunWasRuntime_ = false;  // the board run in flight is a compiled model on the board's runtime
};

}  // namespace npuwb::ui
