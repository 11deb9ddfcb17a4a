#pragma once
// The workbench window: opens a model (menu, recent files, drag and drop, command line), shows its info and
// per-layer table, profiles it locally on a worker with progress and cancel, and charts per-layer times.
#include <QMainWindow>

#include <memory>

#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QProgressBar;
class QSplitter;
class QTabWidget;
class QTreeView;
class QUndoStack;

namespace npuwb::ui {

struct LoadedModel;
class LayerSelection;
class LayerTableModel;
class LayerTableView;
class LayerTimeChart;
class ModelInfoModel;
class ModelLoadJob;
class ProfileJob;
class RecentFiles;
class RunOptionsBar;
class EstimateJob;
class EstimateView;
class TargetOptionsBar;
class SuggestionsView;
class AdviseJob;
class ModelEditor;
struct EstimateResult;
class BoardsView;
class RemoteRunJob;
class TelemetryChart;
class AccuracyView;
class QuantizeDialog;
class QuantizeJob;
struct QuantizeOutcome;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// Starts loading on a worker; modelLoaded or operationFailed follows.
    void openModel(const QString& path);
    /// Profile right after the next successful load (the --run command line flag).
    void setRunAfterLoad(bool run) { runAfterLoad_ = run; }
    /// Writes the last report atomically; false (and a message box) on failure.
    bool exportReport(const QString& path);
    /// Shows a Rockchip perf log (eval_perf, RKNN_LOG_LEVEL=4) in the run views like a local run; false (and a
    /// message box naming the file and line) when it cannot be read or parsed.
    bool importVendorLog(const QString& path);

    bool isBusy() const;
    bool hasModel() const { return loaded_ != nullptr; }
    const Report* lastReport() const { return report_.get(); }

    LayerTableModel* layerTableModel() const { return layerModel_; }
    LayerTableView* layerTableView() const { return layerView_; }
    LayerTimeChart* timeChart() const { return chart_; }
    ModelInfoModel* modelInfoModel() const { return infoModel_; }
    LayerSelection* layerSelection() const { return selection_; }
    RunOptionsBar* runOptions() const { return runBar_; }
    QProgressBar* progressBar() const { return progress_; }
    QAction* runAction() const { return runAction_; }
    QAction* cancelAction() const { return cancelAction_; }

    // Estimate and Suggestions (MainWindowAnalysis.cpp)
    EstimateView* estimateView() const { return estimateView_; }
    SuggestionsView* suggestionsView() const { return suggestionsView_; }
    TargetOptionsBar* targetOptions() const { return targetBar_; }
    QAction* estimateAction() const { return estimateAction_; }
    QAction* adviseAction() const { return adviseAction_; }
    QUndoStack* undoStack() const;
    std::shared_ptr<const Model> currentModel() const;
    /// Shows a tab by name: "layers", "estimate" or "suggestions"; false for an unknown name.
    bool setCurrentView(const QString& name);
    /// Saves the current (possibly optimized) model atomically; false (and a message box) on failure.
    bool saveModelAs(const QString& path);

    // Quantization (MainWindowQuantize.cpp)
    AccuracyView* accuracyView() const { return accuracyView_; }
    QAction* quantizeAction() const { return quantizeAction_; }
    QuantizeJob* quantizeJob() const { return quantizeJob_; }
    /// The Quantize dialog for the current model (nullptr when no model or busy); it deletes itself on close.
    QuantizeDialog* openQuantizeDialog();
    /// Quantizes with the dialog's remembered settings on this data set, without asking where to save.
    void quantizeWithDataset(const QString& dataset);
    /// Shows an accuracy report (npuwb-cli accuracy --json) in the Accuracy tab; false (and a message) on failure.
    bool showAccuracyReport(const QString& path);
    void showQuantization(std::shared_ptr<const QuantizeOutcome> outcome);

    // Boards and remote runs (MainWindowBoards.cpp)
    BoardsView* boardsView() const { return boardsView_; }
    TelemetryChart* telemetryChart() const { return telemetryChart_; }
    QComboBox* runTargetBox() const { return runTarget_; }
    RemoteRunJob* boardRunJob() const { return boardRunJob_; }
    void showBoardsView();
    /// Where Run goes: "Local" (or empty) or a saved board's name; false when there is no such board.
    bool setRunTarget(const QString& name);

public slots:
    void startRun();
    void cancelRun();
    void startEstimate();
    void startAdvise();
    /// Runs the fixing pass of the selected finding with its proof, on the undo stack.
    void applySelectedFinding();

signals:
    void modelLoaded(const QString& path);
    void runFinished();
    void runCancelled();
    void estimateFinished();
    void adviceFinished();
    void quantizeFinished();
    /// A pass was applied, undone or redone: the views show the new model.
    void modelChanged();
    /// Also shown to the user in a (non-blocking) message box.
    void operationFailed(const QString& message);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createActions();
    void createViews();
    void restoreSettings();
    void saveSettings() const;
    void updateActions();
    void showError(const QString& title, const QString& message);

    void onLoaded(std::shared_ptr<const LoadedModel> model);
    void onLoadFailed(const QString& path, const QString& message);
    void onRunProgress(const QString& phase, int done, int total);
    void onRunFinished(std::shared_ptr<const Report> report);
    void onRunCancelled();
    void onRunFailed(const QString& message);
    void endRun(const QString& statusText);
    void openFileDialog();
    void importVendorLogDialog();
    void exportReportDialog();
    void createAnalysisViews();
    void createAnalysisActions(QMenu* fileMenu);
    void restoreAnalysisSettings();
    void saveAnalysisSettings() const;
    void showModel(std::shared_ptr<const LoadedModel> model);
    void onModelReplaced(std::shared_ptr<const LoadedModel> model, const QString& statusText);
    void saveModelDialog();
    void createBoardsViews();
    void createBoardsActions();
    void refreshRunTargets();
    void onRunTargetChanged();
    void startBoardRun();
    void onBoardRunFailed(const QString& message, bool hostKeyChanged);
    void createQuantizeViews();
    void createQuantizeActions(QMenu* menu);
    bool quantizeBusy() const;
    void clearQuantization();  // a new or changed model: the old analysis no longer applies

    ModelLoadJob* loadJob_;
    ProfileJob* profileJob_;
    LayerSelection* selection_;
    LayerTableModel* layerModel_;
    ModelInfoModel* infoModel_;
    LayerTableView* layerView_ = nullptr;
    LayerTimeChart* chart_ = nullptr;
    QTreeView* infoView_ = nullptr;
    RunOptionsBar* runBar_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* statusLabel_ = nullptr;
    RecentFiles* recent_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QSplitter* layerSplitter_ = nullptr;
    EstimateJob* estimateJob_ = nullptr;
    AdviseJob* adviseJob_ = nullptr;
    ModelEditor* editor_ = nullptr;
    EstimateView* estimateView_ = nullptr;
    SuggestionsView* suggestionsView_ = nullptr;
    TargetOptionsBar* targetBar_ = nullptr;
    QAction* estimateAction_ = nullptr;
    QAction* adviseAction_ = nullptr;
    QAction* applyAction_ = nullptr;
    QAction* saveModelAction_ = nullptr;
    BoardsView* boardsView_ = nullptr;
    RemoteRunJob* boardRunJob_ = nullptr;
    TelemetryChart* telemetryChart_ = nullptr;
    QDockWidget* telemetryDock_ = nullptr;
    QComboBox* runTarget_ = nullptr;
    QuantizeJob* quantizeJob_ = nullptr;
    AccuracyView* accuracyView_ = nullptr;
    QAction* quantizeAction_ = nullptr;
    std::shared_ptr<const QuantizeOutcome> quantOutcome_;

    QAction* openAction_ = nullptr;
    QAction* runAction_ = nullptr;
    QAction* cancelAction_ = nullptr;
    QAction* exportAction_ = nullptr;
    QAction* importLogAction_ = nullptr;

    std::shared_ptr<const LoadedModel> loaded_;
    std::shared_ptr<const Report> report_;
    QString loadingPath_;
    int runWarmup_ = 0;  // of the run in flight, to map phase progress onto one bar
    int runCount_ = 0;
    bool runAfterLoad_ = false;
};

}  // namespace npuwb::ui
