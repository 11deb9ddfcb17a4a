#include "run/RunController.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QMainWindow>
#include <QSettings>

#include "core/Workbench.h"
#include "dialogs/BoardQuestionDialogs.h"
#include "dialogs/HostKeyDialog.h"
#include "dialogs/InputShapesDialog.h"
#include "jobs/BoardPrompter.h"
#include "jobs/ProfileJob.h"
#include "jobs/RemoteRunJob.h"
#include "models/BoardListModel.h"
#include "models/Format.h"
#include "run/RunOptionsBar.h"
#include "run/TelemetryChart.h"
#include "npuwb/RunSpread.h"

namespace npuwb::ui {

namespace {
const QString kTargetKey = QStringLiteral("run/target");

/// `runtime`: the run went through a whole-model runtime (threads mean nothing there).
QString backendText(const Report& report, bool runtime = false) {
    if (runtime) return RunController::tr("%1 NPU runtime").arg(QString::fromStdString(report.environment.backend));
    return RunController::tr("%1, %2 thread(s)")
        .arg(QString::fromStdString(report.environment.backend))
        .arg(report.environment.threads);
}
}  // namespace

RunController::RunController(Workbench& workbench, QMainWindow* window)
    : QObject(window), workbench_(workbench),
      runAction_(new QAction(QIcon::fromTheme(QStringLiteral("media-playback-start")), tr("&Run Locally"), this)),
      cancelAction_(new QAction(QIcon::fromTheme(QStringLiteral("process-stop")), tr("&Cancel"), this)),
      inputShapesAction_(new QAction(tr("&Input Shapes…"), this)),
      bar_(new RunOptionsBar(window)), profileJob_(new ProfileJob(this)),
      questions_(std::make_shared<BoardQuestionDialogs>(window)), boardJob_(new RemoteRunJob(questions_, this)),
      telemetry_(new TelemetryChart(window)), telemetryDock_(new QDockWidget(tr("Board Telemetry"), window)) {
    runAction_->setShortcut(Qt::Key_F5);
    cancelAction_->setShortcut(Qt::Key_Escape);
    connect(runAction_, &QAction::triggered, this, &RunController::startRun);
    connect(cancelAction_, &QAction::triggered, this, &RunController::cancelRun);
    inputShapesAction_->setObjectName(QStringLiteral("inputShapesAction"));
    inputShapesAction_->setToolTip(tr("Sizes for the model's symbolic input dims (Run, Estimate, Advise, Quantize)"));
    connect(inputShapesAction_, &QAction::triggered, this, [this] { askInputShapes(); });
    workbench.setInputShapesAsker([this](std::function<void()> proceed) { askInputShapes(std::move(proceed)); });
    bar_->insertAction(bar_->actions().value(0), runAction_);
    bar_->insertAction(bar_->actions().value(1), cancelAction_);
    bar_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    window->addToolBar(bar_);
    telemetryDock_->setObjectName(QStringLiteral("telemetryDock"));
    telemetryDock_->setWidget(telemetry_);
    window->addDockWidget(Qt::BottomDockWidgetArea, telemetryDock_);
    telemetryDock_->hide();  // shown by the first board run

    workbench.trackJob(profileJob_);
    workbench.trackJob(boardJob_);
    connect(&workbench, &Workbench::stateChanged, this, &RunController::updateActions);
    connect(&workbench, &Workbench::modelLoaded, this,
            [this] { bar_->setCompiledModel(!workbench_.loadedModel()->runtime.isEmpty()); });
    connect(profileJob_, &ProfileJob::progress, this, &RunController::onProgress);
    connect(profileJob_, &ProfileJob::finished, this, [this](std::shared_ptr<const Report> report, const QString& warning) {
        if (!warning.isEmpty()) workbench_.showMessage(warning, 15000);
        finishRun(report, tr("Run finished: median %1 over %2 runs, %3 (%4)")
                              .arg(formatMicros(report->run.medianUs))
                              .arg(report->run.runs)
                              .arg(formatLayerCount(report->layers))
                              .arg(backendText(*report)));
    });
    connect(profileJob_, &ProfileJob::cancelled, this, &RunController::onCancelled);
    connect(profileJob_, &ProfileJob::failed, this, &RunController::onFailed);

    connect(boardJob_, &RemoteRunJob::stage, this, [this](const QString& text, qint64 done, qint64 total) {
        workbench_.setStatus(text);
        if (total > 0)
            workbench_.showProgress(int(1000 * done / total), 1000,
                                    QStringLiteral("%1 / %2").arg(formatBytes(done), formatBytes(total)));
        else
            workbench_.showProgress(0, 0);
    });
    connect(boardJob_, &RemoteRunJob::progress, this, &RunController::onProgress);
    connect(boardJob_, &RemoteRunJob::telemetry, telemetry_, &TelemetryChart::addSample);
    connect(boardJob_, &RemoteRunJob::finished, this, [this](std::shared_ptr<const Report> report) {
        finishRun(report, tr("Run on %1 finished: median %2 over %3 runs, %4 (%5)")
                              .arg(QString::fromStdString(report->environment.device), formatMicros(report->run.medianUs))
                              .arg(report->run.runs)
                              .arg(formatLayerCount(report->layers))
                              .arg(backendText(*report, boardRunWasRuntime_)));
    });
    connect(boardJob_, &RemoteRunJob::cancelled, this, &RunController::onCancelled);
    connect(boardJob_, &RemoteRunJob::failed, this, &RunController::onBoardFailed);
    connect(boardJob_->prompter(), &BoardPrompter::keychainMessage, this,
            [this](const QString& message) { workbench_.showMessage(message); });

    connect(workbench.boards(), &BoardListModel::boardsChanged, this, &RunController::refreshTargets);
    connect(bar_->targetBox(), &QComboBox::currentIndexChanged, this, &RunController::onTargetChanged);
    refreshTargets();
    updateActions();
}

RunController::~RunController() = default;

bool RunController::isRunning() const {
    return profileJob_->isRunning() || boardJob_->isRunning();
}

void RunController::updateActions() {
    const bool running = isRunning();
    runAction_->setEnabled(workbench_.hasModel() && !workbench_.isBusy());
    inputShapesAction_->setEnabled(workbench_.hasOnnxModel() && !workbench_.isBusy());
    cancelAction_->setEnabled(running);
    bar_->setRunning(running);
}

void RunController::saveSettings(QSettings& settings) const {
    const RunOptions options = bar_->options();
    settings.setValue(QStringLiteral("run/runs"), options.runs);
    settings.setValue(QStringLiteral("run/warmup"), options.warmup);
    settings.setValue(QStringLiteral("run/backend"), QString::fromStdString(options.executor.backend));
    settings.setValue(QStringLiteral("run/threads"), options.executor.threads);
    // Compiled models (.rknn): the mask by its CLI word, so the saved file reads like --core-mask.
    const ModelRunOptions npu = bar_->modelRunOptions();
    settings.setValue(QStringLiteral("run/coreMask"), QString::fromLatin1(coreMaskName(npu.coreMask)));
    settings.setValue(QStringLiteral("run/contexts"), npu.contexts);
    settings.setValue(QStringLiteral("run/batch"), npu.batch);
    const QComboBox* target = bar_->targetBox();
    settings.setValue(kTargetKey, target->currentIndex() > 0 ? target->currentText() : QString());
}

void RunController::restoreSettings(QSettings& settings) {
    const RunOptions defaults;  // a setting never saved keeps the engine's default
    bar_->setRuns(settings.value(QStringLiteral("run/runs"), defaults.runs).toInt());
    bar_->setWarmup(settings.value(QStringLiteral("run/warmup"), defaults.warmup).toInt());
    bar_->setBackend(
        settings.value(QStringLiteral("run/backend"), QString::fromStdString(defaults.executor.backend)).toString());
    bar_->setThreads(settings.value(QStringLiteral("run/threads"), defaults.executor.threads).toInt());
    const ModelRunOptions npu;
    NpuCoreMask mask = npu.coreMask;  // kept when the saved word is missing or unknown
    parseCoreMask(settings.value(QStringLiteral("run/coreMask")).toString().toStdString(), mask);
    bar_->setCoreMask(mask);
    bar_->setBatch(settings.value(QStringLiteral("run/batch"), npu.batch).toInt());  // first: it bounds the contexts
    bar_->setContexts(settings.value(QStringLiteral("run/contexts"), npu.contexts).toInt());
    setRunTarget(settings.value(kTargetKey).toString());
}

void RunController::refreshTargets() {
    QComboBox* box = bar_->targetBox();
    const QString keep = box->currentIndex() > 0 ? box->currentText() : QString();
    {
        const QSignalBlocker block(box);
        box->clear();
        box->addItem(QIcon::fromTheme(QStringLiteral("computer")), tr("Local"));
        for (const BoardEntry& b : workbench_.boards()->boards())
            box->addItem(QIcon::fromTheme(QStringLiteral("network-server")), b.name,
                         QString::fromStdString(b.connection.host));
    }
    const int at = keep.isEmpty() ? 0 : box->findText(keep);
    box->setCurrentIndex(qMax(at, 0));
    onTargetChanged();  // also when the chosen board was removed (back to Local)
}

void RunController::onTargetChanged() {
    const QComboBox* box = bar_->targetBox();
    const bool board = box->currentIndex() > 0;
    workbench_.setRunBoard(board ? box->currentText() : QString());
    runAction_->setText(board ? tr("&Run on %1").arg(box->currentText()) : tr("&Run Locally"));
    runAction_->setToolTip(board ? tr("Profile the model on board %1 over SSH (F5)").arg(box->currentText())
                                 : tr("Profile the model on this computer (F5)"));
}

bool RunController::setRunTarget(const QString& name) {
    QComboBox* box = bar_->targetBox();
    const int at = name.isEmpty() || name.compare(tr("Local"), Qt::CaseInsensitive) == 0 ? 0 : box->findText(name);
    if (at < 0) return false;
    box->setCurrentIndex(at);
    return true;
}

void RunController::startRun() {
    if (!workbench_.hasModel() || workbench_.isBusy()) return;
    workbench_.afterInputShapes([this] {
        if (!workbench_.hasModel() || workbench_.isBusy()) return;
        if (bar_->targetBox()->currentIndex() > 0) startBoardRun();
        else startLocalRun();
    });
}

void RunController::askInputShapes(std::function<void()> proceed) {
    if (!workbench_.hasOnnxModel()) return;
    const auto loaded = workbench_.loadedModel();
    QSettings settings;
    QString source;
    const InputShapeMap prefill =
        prefillShapes(*loaded->model, loaded->path, workbench_.inputShapes(), settings, &source);
    auto* dialog = new InputShapesDialog(QFileInfo(loaded->path).fileName(), declaredInputs(*loaded->model), prefill,
                                         source, qobject_cast<QWidget*>(parent()));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, proceed = std::move(proceed), loaded] {
        if (workbench_.loadedModel() != loaded) return;  // another model was opened meanwhile
        workbench_.setInputShapes(dialog->shapes());
        workbench_.showMessage(tr("Input shapes: %1").arg(inputShapesText(workbench_.inputShapes())));
        if (proceed) proceed();
    });
    dialog->open();  // not exec(): no nested event loop
}

void RunController::startLocalRun() {
    if (const QString runtime = workbench_.loadedModel()->runtime; !runtime.isEmpty()) {
        workbench_.reportError(tr("%1 runs on a board").arg(QFileInfo(workbench_.loadedModel()->path).fileName()),
                               tr("This is a compiled model for the board's %1 runtime. Pick a board as the Run "
                                  "target (Boards view to add one) and press Run.")
                                   .arg(runtime));
        return;
    }
    RunOptions options = bar_->options();
    options.inputShapes = workbench_.inputShapes();
    runWarmup_ = options.warmup;
    runCount_ = options.runs;
    workbench_.showProgress(0, runWarmup_ + runCount_,
                            runWarmup_ > 0 ? tr("warm-up 0/%1").arg(runWarmup_) : tr("run 0/%1").arg(runCount_));
    workbench_.setStatus(tr("Running %1 locally …").arg(QFileInfo(workbench_.loadedModel()->path).fileName()));
    // Contexts or a batch: concurrent contexts on the CPU backends, as on the NPU.
    ModelRunOptions contexts = bar_->modelRunOptions();
    contexts.coreMask = NpuCoreMask::Auto;  // the NPU core mask box is for compiled models (hidden for ONNX)
    const bool multi = contexts.contexts > 1 || contexts.batch > 1;
    if (multi) {
        contexts.randomSeed = options.seed;
        contexts.perLayer = options.layerTimes;
    }
    profileJob_->start(workbench_.currentModel(), options, multi ? std::optional(contexts) : std::nullopt);
}

void RunController::startBoardRun() {
    const BoardListModel* boards = workbench_.boards();
    const int row = boards->rowOf(bar_->targetBox()->currentText());
    if (row < 0) return;
    RemoteRunRequest request;
    request.board = boards->board(row);
    request.modelPath = workbench_.loadedModel()->path;
    if (workbench_.isModelEdited()) request.edited = workbench_.currentModel();  // run what the user sees
    request.options = bar_->options();
    request.options.inputShapes = workbench_.inputShapes();
    request.options.executor.backend = kAutoBackend;  // the agent picks the board's best backend (plugin names differ per arch)
    request.runtime = workbench_.loadedModel()->runtime;
    boardRunWasRuntime_ = !request.runtime.isEmpty();
    if (!request.runtime.isEmpty()) {  // a compiled model: the board's NPU runtime, never the CPU backends
        request.modelRun = bar_->modelRunOptions();
        request.options = {};
    }
    runWarmup_ = bar_->options().warmup;
    runCount_ = bar_->options().runs;
    workbench_.showProgress(0, 0);
    telemetry_->clear(tr("Waiting for %1 …").arg(request.board.name));
    telemetryDock_->show();
    workbench_.setStatus(tr("Running %1 on %2 …").arg(QFileInfo(request.modelPath).fileName(), request.board.name));
    boardJob_->start(request);
}

void RunController::cancelRun() {
    if (!isRunning()) return;
    profileJob_->cancel();
    boardJob_->cancel();
    workbench_.setStatus(tr("Cancelling …"));
}

void RunController::onProgress(const QString& phase, int done, int total) {
    const bool warmup = phase == QLatin1String("warm-up");
    workbench_.showProgress(warmup ? done : runWarmup_ + done, runWarmup_ + runCount_,
                            QStringLiteral("%1 %2/%3").arg(warmup ? tr("warm-up") : tr("run")).arg(done).arg(total));
}

void RunController::finishRun(std::shared_ptr<const Report> report, const QString& statusText) {
    workbench_.hideProgress();
    workbench_.showReport(report);
    const std::string busy = busyMachineWarning(*report);
    workbench_.setStatus(busy.empty() ? statusText : tr("%1 · Warning: %2").arg(statusText, QString::fromStdString(busy)));
    emit runFinished(report);
}

void RunController::onCancelled() {
    workbench_.hideProgress();
    workbench_.setStatus(tr("Run cancelled"));
    emit runCancelled();
}

void RunController::onFailed(const QString& message) {
    workbench_.hideProgress();
    const QString path = workbench_.loadedModel()->path;
    workbench_.reportError(tr("Running %1 failed").arg(QFileInfo(path).fileName()),
                           tr("%1\n\n%2").arg(QDir::toNativeSeparators(path), message));
}

void RunController::onBoardFailed(const QString& message, bool hostKeyChanged) {
    if (!hostKeyChanged) return onFailed(message);
    workbench_.hideProgress();
    workbench_.setStatus(tr("Run refused: the board's host key has changed"));
    auto* warning = HostKeyDialog::changedKeyWarning(message, qobject_cast<QWidget*>(parent()));
    warning->setAttribute(Qt::WA_DeleteOnClose);
    warning->open();
    workbench_.reportFailure(tr("Host key changed") + QLatin1Char('\n') + message);
}

}  // namespace npuwb::ui
