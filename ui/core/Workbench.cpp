#include "core/Workbench.h"

#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <QUndoStack>
#include <QWidget>

#include <algorithm>
#include <exception>

#include "jobs/Job.h"
#include "jobs/ModelEditor.h"
#include "models/BoardListModel.h"
#include "models/Format.h"
#include "models/LayerFilter.h"
#include "models/LayerSelection.h"
#include "models/OpTypeColors.h"
#include "npuwb/ChipProfile.h"

namespace npuwb::ui {

Workbench::Workbench(QWidget* window)
    : QObject(window), window_(window), loadJob_(new ModelLoadJob(this)), shapesJob_(new ShapesJob(this)),
      editor_(new ModelEditor(this)),
      selection_(new LayerSelection(this)), filter_(new LayerFilter(this)), boards_(new BoardListModel(this)) {
    trackJob(loadJob_);
    trackJob(editor_);
    connect(loadJob_, &ModelLoadJob::loaded, this, &Workbench::onLoaded);
    connect(loadJob_, &ModelLoadJob::failed, this, &Workbench::onLoadFailed);
    connect(shapesJob_, &ShapesJob::resolved, this, [this](std::shared_ptr<const ShapedModel> shaped) {
        if (!loaded_ || shaped->model != loaded_->model || shaped->inputShapes != inputShapes_) return;  // stale
        shaped_ = std::move(shaped);
        if (!macsUnknown(shaped_->summary))
            showMessage(inputShapes_.empty()
                            ? tr("Shapes known after the run: %1 MACs").arg(formatCount(shaped_->summary.macs))
                            : tr("At %1: %2 MACs").arg(inputShapesText(inputShapes_), formatCount(shaped_->summary.macs)));
        emit shapesResolved();
    });
    // A run of the same shapes reports the same error with its context; here a word is enough.
    connect(shapesJob_, &ShapesJob::failed, this, [this](const QString& message) {
        showMessage(tr("Shapes at the chosen input sizes not known: %1").arg(message), 15000);
    });
    connect(editor_, &ModelEditor::modelReplaced, this, &Workbench::onModelReplaced);
    connect(editor_, &ModelEditor::failed, this, [this](const QString& message) {
        hideProgress();
        reportError(tr("Apply failed"), message);
    });
    // No undo under a worker that still uses the current model.
    connect(this, &Workbench::stateChanged, this, [this] { editor_->undoStack()->setActive(!isBusy()); });

    QSettings settings;
    {
        const QSignalBlocker block(boards_);  // loading is not a change to save
        boards_->setBoards(loadBoards(settings));
    }
    connect(boards_, &BoardListModel::boardsChanged, this, [this] {
        QSettings settings;
        saveBoards(settings, boards_->boards());
    });
}

Workbench::~Workbench() = default;

QUndoStack* Workbench::undoStack() const {
    return editor_->undoStack();
}

bool Workbench::isModelEdited() const {
    return !editor_->undoStack()->isClean();
}

void Workbench::trackJob(Job* job) {
    jobs_.emplace_back(job);
    connect(job, &Job::runningChanged, this, &Workbench::stateChanged);
}

bool Workbench::isBusy() const {
    return std::any_of(jobs_.begin(), jobs_.end(), [](const QPointer<Job>& job) { return job && job->isRunning(); });
}

void Workbench::openModel(const QString& path) {
    if (isBusy()) {
        showMessage(tr("Busy: wait for the current operation or cancel it"), 4000);
        return;
    }
    setStatus(tr("Loading %1 …").arg(QDir::toNativeSeparators(path)));
    showProgress(0, 0);  // import has no progress to report
    loadJob_->start(path);
}

void Workbench::setModel(std::shared_ptr<const LoadedModel> model) {
    auto numbered = std::make_shared<LoadedModel>(*model);
    selection_->numberRows(numbered->layers);  // an edited model's nodes keep the IDs they had when it opened
    loaded_ = std::move(numbered);
    report_.reset();
    estimate_.reset();
    accuracy_.reset();
    selection_->clear();
}

void Workbench::onLoaded(std::shared_ptr<const LoadedModel> model) {
    hideProgress();
    editor_->undoStack()->clear();  // undo never crosses into another file
    lastEdit_.clear();
    quantization_.reset();
    inputShapes_.clear();  // asked again per opened file, prefilled from the last use
    shaped_.reset();
    runOfVersion_.clear();
    selection_->setModel(model->runtime.isEmpty() && model->model ? &model->model->graph : nullptr);
    // One palette per opened file, kept through edits, so a colour means the same op type in every view.
    std::vector<std::pair<QString, long long>> opCounts;
    for (const auto& [op, count] : model->summary.opHistogram) opCounts.emplace_back(QString::fromStdString(op), count);
    useOpTypesOfModel(opCounts);
    setModel(std::move(model));
    const QString file = QFileInfo(loaded_->path).fileName();
    if (hasCompiledModel()) {  // no graph, so no node counts; say where it runs and what it cannot do
        setStatus(tr("%1: compiled for the %2 runtime, runs on a board (pick one as the Run target); Estimate, "
                     "Advise, Apply Fix, Quantize and Partition need an ONNX model")
                      .arg(file, loaded_->runtime));
    } else {
        const ModelSummary& summary = loaded_->summary;
        QString macs = macsUnknown(summary) ? tr("MACs unknown (symbolic input dims)")
                                            : tr("%1 MACs").arg(formatCount(summary.macs));
        if (!macsUnknown(summary) && !summary.uncountedNodes.empty())
            macs += tr(" (%1 node(s) not counted until a run)").arg(summary.uncountedNodes.size());
        setStatus(tr("%1: %2 nodes, %3 parameters, %4")
                      .arg(file)
                      .arg(summary.nodeCount)
                      .arg(formatCount(summary.parameterCount), macs));
    }
    emit modelLoaded(loaded_->path);
    emit stateChanged();
}

void Workbench::onLoadFailed(const QString& path, const QString& message) {
    hideProgress();
    emit modelLoadFailed(path);
    reportError(tr("Cannot open %1").arg(QFileInfo(path).fileName()),
                tr("%1\n\n%2").arg(QDir::toNativeSeparators(path), message));
}

void Workbench::applyPass(const QString& pass, const QStringList& onlyAt) {
    if (!hasOnnxModel() || isBusy()) return;  // passes rewrite the ONNX graph, which a compiled model lacks
    showProgress(0, 0);
    setStatus(onlyAt.isEmpty() ? tr("Applying %1 with its proof …").arg(pass)
                               : tr("Applying %1 at %2 site(s) with its proof …").arg(pass).arg(onlyAt.size()));
    editor_->applyPass(loaded_, pass, onlyAt);
}

void Workbench::onModelReplaced(std::shared_ptr<const LoadedModel> model, const QString& statusText) {
    hideProgress();
    if (loaded_ && loaded_->model && report_) runOfVersion_[loaded_->model.get()] = {loaded_->model, report_};
    setModel(std::move(model));
    lastEdit_ = statusText;
    shaped_.reset();
    resolveShapes();  // the edited model's values at the same input sizes
    emit modelChanged();
    // A version that ran before (undo back to it, redo forward) shows that run again.
    if (auto run = runOfVersion_.find(loaded_->model.get()); run != runOfVersion_.end()) showReport(run->second.second);
    setStatus(statusText);
    showMessage(statusText, 15000);
    emit stateChanged();
}

void Workbench::resolveShapesAfterRun() {
    // A model whose shapes need a run (a Resize sized by a Shape chain) counts its MACs only now: the user ran it.
    if (!hasOnnxModel() || loaded_->summary.uncountedNodes.empty() || needsInputShapes()) return;
    if (const auto shaped = shapedModel(); shaped && shaped->ran) return;
    shapesJob_->start(loaded_->model, inputShapes_, true);
}

void Workbench::showReport(std::shared_ptr<const Report> report) {
    const int keep = selection_->selectedLayer();
    auto numbered = std::make_shared<Report>(*report);  // the layers' IDs from the model as opened
    selection_->numberRows(numbered->layers);
    for (RemovedLayer& removed : numbered->removedLayers)
        if (const int id = selection_->numberLayer(QString::fromStdString(removed.fullName)); id >= 0) removed.id = id;
    report_ = std::move(numbered);
    if (report_->kind == "profile") resolveShapesAfterRun();
    emit reportChanged();
    // The views were reset: re-apply the selection so they agree again.
    selection_->clear();
    selection_->selectLayer(keep);
    emit stateChanged();
}

void Workbench::setInputShapes(const InputShapeMap& shapes) {
    inputShapes_ = shapes;
    if (loaded_) {
        QSettings settings;
        rememberShapes(settings, loaded_->path, shapes);
    }
    shaped_.reset();
    resolveShapes();
    emit inputShapesChanged();
}

void Workbench::resolveShapes() {
    if (hasOnnxModel() && !inputShapes_.empty()) shapesJob_->start(loaded_->model, inputShapes_);
}

std::shared_ptr<const ShapedModel> Workbench::shapedModel() const {
    return shaped_ && loaded_ && shaped_->model == loaded_->model && shaped_->inputShapes == inputShapes_ ? shaped_
                                                                                                       : nullptr;
}

bool Workbench::needsInputShapes() const {
    if (!hasOnnxModel()) return false;
    const std::vector<DeclaredInput> inputs = declaredInputs(*loaded_->model);
    return hasSymbolicInputs(inputs) && !coversSymbolicInputs(inputs, inputShapes_);
}

void Workbench::afterInputShapes(std::function<void()> proceed) {
    if (!needsInputShapes() || !askShapes_)
        proceed();
    else
        askShapes_(std::move(proceed));
}

void Workbench::showEstimate(std::shared_ptr<const EstimateResult> estimate) {
    estimate_ = std::move(estimate);
    emit estimateChanged();
}

void Workbench::showAccuracy(std::shared_ptr<const AccuracySection> accuracy) {
    accuracy_ = std::move(accuracy);
    emit accuracyChanged();
}

void Workbench::setRunBoard(const QString& board) {
    if (board == runBoard_) return;
    runBoard_ = board;
    emit runBoardChanged();
}

bool Workbench::setTarget(const TargetOptions& target) {
    TargetOptions checked = target;
    try {
        const std::vector<std::string> chips = availableChipProfiles();
        const auto chip = std::find_if(chips.begin(), chips.end(), [&](const std::string& name) {
            return QString::fromStdString(name).compare(target.chip, Qt::CaseInsensitive) == 0;
        });
        if (chip == chips.end()) return false;
        checked.chip = QString::fromStdString(*chip);
        checked.cores = std::clamp(target.cores, 1, std::max(1, int(findChipProfile(*chip).cores)));
    } catch (const std::exception&) {
        return false;  // no profile folder or a malformed profile: estimating names the file and field
    }
    if (checked.dtype != QLatin1String("fp16")) checked.dtype = QStringLiteral("int8");
    const bool changed = checked.chip != target_.chip || checked.dtype != target_.dtype || checked.cores != target_.cores;
    target_ = checked;
    if (changed) emit targetChanged();
    return true;
}

void Workbench::setStatus(const QString& text) {
    emit statusChanged(text);
}

void Workbench::showMessage(const QString& text, int timeoutMs) {
    emit messageShown(text, timeoutMs);
}

void Workbench::showProgress(int done, int total, const QString& format) {
    emit progressChanged(done, total, format);
}

void Workbench::hideProgress() {
    if (!isBusy()) emit progressHidden();
}

void Workbench::reportError(const QString& title, const QString& message) {
    setStatus(title);
    // open(), not exec(): a nested event loop would stall the caller, and tests could not get past it.
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, window_);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("errorMessageBox"));
    box->open();
    emit operationFailed(title + QLatin1Char('\n') + message);
}

void Workbench::saveSettings(QSettings& settings) const {
    settings.setValue(QStringLiteral("target/chip"), target_.chip);
    settings.setValue(QStringLiteral("target/dtype"), target_.dtype);
    settings.setValue(QStringLiteral("target/cores"), target_.cores);
}

void Workbench::restoreSettings(QSettings& settings) {
    TargetOptions target;
    target.chip = settings.value(QStringLiteral("target/chip"), target.chip).toString();
    target.dtype = settings.value(QStringLiteral("target/dtype"), target.dtype).toString();
    target.cores = settings.value(QStringLiteral("target/cores"), target.cores).toInt();
    if (!setTarget(target)) setTarget(TargetOptions{});  // a saved chip whose profile was removed
}

}  // namespace npuwb::ui
