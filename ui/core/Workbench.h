#pragma once
// What every part of the window shares, so that no view knows another (KDAB Hotspot style): the open model and
// its undo stack, the last run's report, the layer selection, the chip target, the saved boards, and the busy
// state, status line, progress and errors that the shell shows. Views and the run controller change the shared
// state through it and follow it through its signals.
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "jobs/EstimateJob.h"
#include "jobs/ModelLoadJob.h"
#include "jobs/ShapesJob.h"
#include "models/InputShapes.h"
#include "npuwb/Report.h"
#include "npuwb/RknnConversion.h"

class QSettings;
class QUndoStack;
class QWidget;

namespace npuwb::ui {

class BoardListModel;
class Job;
class LayerFilter;
class LayerSelection;
class ModelEditor;

class Workbench : public QObject {
    Q_OBJECT
public:
    /// `window` parents the message boxes.
    explicit Workbench(QWidget* window);
    ~Workbench() override;

    // The model
    /// Loads on a worker; modelLoaded or operationFailed follows. Refused (with a message) while busy.
    void openModel(const QString& path);
    bool hasModel() const { return loaded_ != nullptr; }
    /// A compiled model (.rknn) is open: no ONNX graph, so no estimate, advice, fix, quantization or partition
    /// (core/OnnxOnlyAction.h); it runs on a board's runtime.
    bool hasCompiledModel() const { return loaded_ && !loaded_->runtime.isEmpty(); }
    /// An ONNX model is open: what the graph actions work on.
    bool hasOnnxModel() const { return loaded_ && loaded_->runtime.isEmpty(); }
    std::shared_ptr<const LoadedModel> loadedModel() const { return loaded_; }
    std::shared_ptr<const Model> currentModel() const { return loaded_ ? loaded_->model : nullptr; }
    /// Passes were applied: the model in memory differs from its file.
    bool isModelEdited() const;
    /// Runs `pass` with its numerical proof on a worker, at every site or only at the matches anchored at
    /// `onlyAt`; modelChanged (undoable) or operationFailed follows.
    void applyPass(const QString& pass, const QStringList& onlyAt = {});
    /// What the last apply, undo or redo did, with its proof ("Applied x: ... max abs diff ...").
    QString lastEditText() const { return lastEdit_; }
    QUndoStack* undoStack() const;

    // Concrete sizes for the open model's symbolic input dims (models/InputShapes.h): what Run, Estimate, Advise
    // and Quantize use. Empty until given for this model; remembered per model file for the next time.
    const InputShapeMap& inputShapes() const { return inputShapes_; }
    void setInputShapes(const InputShapeMap& shapes);
    /// The open model has symbolic input dims that inputShapes() does not cover yet.
    bool needsInputShapes() const;
    /// Runs `proceed` now when no input shapes are needed, else asks for them (the asker: the Input Shapes
    /// dialog) and runs it once they are given; cancelling the question drops it.
    void afterInputShapes(std::function<void()> proceed);
    using InputShapesAsker = std::function<void(std::function<void()> proceed)>;
    void setInputShapesAsker(InputShapesAsker asker) { askShapes_ = std::move(asker); }
    /// The open model at inputShapes() (concrete value shapes, MACs, inputs), nullptr until shapesResolved
    /// follows setInputShapes, an edit, or a run of a model whose shapes need one; else nullptr.
    std::shared_ptr<const ShapedModel> shapedModel() const;

    // The last run (local, on a board, or an imported vendor log)
    const Report* lastReport() const { return report_.get(); }
    void showReport(std::shared_ptr<const Report> report);

    // The last estimate (Estimate view): the Graph view colours and groups fused layers by it. Cleared with the model.
    std::shared_ptr<const EstimateResult> lastEstimate() const { return estimate_; }
    void showEstimate(std::shared_ptr<const EstimateResult> estimate);
    /// The per-layer accuracy of the last quantization or accuracy report (Accuracy view), nullptr when none.
    std::shared_ptr<const AccuracySection> lastAccuracy() const { return accuracy_; }
    void showAccuracy(std::shared_ptr<const AccuracySection> accuracy);

    // The last quantization of this session (scheme, observer, layers kept in float, data set, preprocessing): what
    // Convert to RKNN starts from. Cleared when another model is loaded.
    std::shared_ptr<const rknn::QuantizationFacts> lastQuantization() const { return quantization_; }
    void setLastQuantization(std::shared_ptr<const rknn::QuantizationFacts> facts) { quantization_ = std::move(facts); }

    LayerSelection* selection() const { return selection_; }
    /// The one layer filter (op type, target, name, time range) every view follows.
    LayerFilter* layerFilter() const { return filter_; }
    BoardListModel* boards() const { return boards_; }
    TargetOptions target() const { return target_; }
    /// False (target unchanged) for a chip without a profile; the chip's name is taken from its profile.
    bool setTarget(const TargetOptions& target);
    /// Where Run goes (the Run toolbar's Target): a saved board's name, empty for this computer. The Matmul view's
    /// "Run on" follows it.
    QString runBoard() const { return runBoard_; }
    void setRunBoard(const QString& board);

    // Busy state
    /// Counts `job` in isBusy() and re-checks actions whenever it starts or ends.
    void trackJob(Job* job);
    bool isBusy() const;

    // Status line, progress and errors (the shell shows them)
    void setStatus(const QString& text);
    void showMessage(const QString& text, int timeoutMs = 8000);
    /// total 0: busy without a measure. `format` as QProgressBar's (%v, %m, or text).
    void showProgress(int done, int total, const QString& format = {});
    /// Hides the progress bar once no tracked job runs any more.
    void hideProgress();
    /// A non-blocking message box (title + message) and operationFailed.
    void reportError(const QString& title, const QString& message);
    /// operationFailed only: the caller shows the user its own, more specific window.
    void reportFailure(const QString& message) { emit operationFailed(message); }

    void saveSettings(QSettings& settings) const;
    void restoreSettings(QSettings& settings);

signals:
    void modelLoaded(const QString& path);
    void modelLoadFailed(const QString& path);
    /// A pass was applied, undone or redone: views show the new model.
    void modelChanged();
    void reportChanged();
    void inputShapesChanged();
    /// shapedModel() is the open model at the current input shapes.
    void shapesResolved();
    void estimateChanged();
    void accuracyChanged();
    void targetChanged();
    void runBoardChanged();
    /// Busy state, model or report changed: actions re-check whether they apply.
    void stateChanged();
    void statusChanged(const QString& text);
    void messageShown(const QString& text, int timeoutMs);
    void progressChanged(int done, int total, const QString& format);
    void progressHidden();
    /// Also shown to the user in a (non-blocking) message box.
    void operationFailed(const QString& message);
    /// A view asks to be the current tab (WorkbenchView::bringToFront).
    void viewRequested(QWidget* view);

private:
    void onLoaded(std::shared_ptr<const LoadedModel> model);
    void onLoadFailed(const QString& path, const QString& message);
    void onModelReplaced(std::shared_ptr<const LoadedModel> model, const QString& statusText);
    void setModel(std::shared_ptr<const LoadedModel> model);
    void resolveShapes();
    void resolveShapesAfterRun();

    QPointer<QWidget> window_;
    ModelLoadJob* loadJob_;
    ShapesJob* shapesJob_;
    std::shared_ptr<const ShapedModel> shaped_;
    ModelEditor* editor_;
    LayerSelection* selection_;
    LayerFilter* filter_;
    BoardListModel* boards_;
    std::vector<QPointer<Job>> jobs_;
    std::shared_ptr<const LoadedModel> loaded_;
    std::shared_ptr<const Report> report_;
    /// The last run of each version of the opened model an edit left (keyed by the version; the value keeps it
    /// alive): undo and redo bring a version's run back with it, so an edit never throws a measurement away.
    std::map<const Model*, std::pair<std::shared_ptr<const Model>, std::shared_ptr<const Report>>> runOfVersion_;
    std::shared_ptr<const EstimateResult> estimate_;
    std::shared_ptr<const AccuracySection> accuracy_;
    std::shared_ptr<const rknn::QuantizationFacts> quantization_;
    TargetOptions target_;
    QString runBoard_;
    InputShapeMap inputShapes_;
    InputShapesAsker askShapes_;
    QString lastEdit_;
};

}  // namespace npuwb::ui
