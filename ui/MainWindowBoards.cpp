// MainWindow's boards half: the Boards tab, the run-target selector on the run toolbar ("Local" or a saved
// board), remote runs through RemoteRunJob with live progress and the board telemetry dock. A board's report
// goes through onRunFinished(), the same path as a local run, so it fills the same table, chart and info panel.
// (The window's other parts are MainWindow.cpp and MainWindowAnalysis.cpp.)
#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>

#include "MainWindow.h"
#include "dialogs/HostKeyDialog.h"
#include "jobs/BoardJob.h"
#include "jobs/BoardPrompter.h"
#include "jobs/ModelEditor.h"
#include "jobs/ModelLoadJob.h"
#include "jobs/RemoteRunJob.h"
#include "models/BoardListModel.h"
#include "models/Format.h"
#include "views/BoardsView.h"
#include "views/RunOptionsBar.h"
#include "views/TelemetryChart.h"

namespace npuwb::ui {

namespace {
const QString kTargetKey = QStringLiteral("run/target");
}

void MainWindow::createBoardsViews() {
    boardsView_ = new BoardsView(this);
    tabs_->addTab(boardsView_, tr("&Boards"));
    boardRunJob_ = new RemoteRunJob(this, this);
    telemetryChart_ = new TelemetryChart(this);
    telemetryDock_ = new QDockWidget(tr("Board Telemetry"), this);
    telemetryDock_->setObjectName(QStringLiteral("telemetryDock"));
    telemetryDock_->setWidget(telemetryChart_);
    addDockWidget(Qt::BottomDockWidgetArea, telemetryDock_);
    telemetryDock_->hide();  // shown by the first board run

    connect(boardRunJob_, &RemoteRunJob::stage, this, [this](const QString& text, qint64 done, qint64 total) {
        statusLabel_->setText(text);
        if (total > 0) {
            progress_->setRange(0, 1000);
            progress_->setValue(static_cast<int>(1000 * done / total));
            progress_->setFormat(QStringLiteral("%1 / %2").arg(formatBytes(done), formatBytes(total)));
        } else {
            progress_->setRange(0, 0);
        }
    });
    connect(boardRunJob_, &RemoteRunJob::progress, this, [this](const QString& phase, int done, int total) {
        if (progress_->maximum() != runWarmup_ + runCount_) progress_->setRange(0, runWarmup_ + runCount_);
        onRunProgress(phase, done, total);
    });
    connect(boardRunJob_, &RemoteRunJob::telemetry, telemetryChart_, &TelemetryChart::addSample);
    connect(boardRunJob_, &RemoteRunJob::finished, this, [this](std::shared_ptr<const Report> report) {
        onRunFinished(report);  // the same views as a local run
        statusLabel_->setText(tr("Run on %1 finished: median %2 over %3 runs, %4 layers (%5 backend)")
                                  .arg(QString::fromStdString(report->environment.device),
                                       formatMicros(report->run.medianUs))
                                  .arg(report->run.runs)
                                  .arg(report->layers.size())
                                  .arg(QString::fromStdString(report->environment.backend)));
    });
    connect(boardRunJob_, &RemoteRunJob::cancelled, this, &MainWindow::onRunCancelled);
    connect(boardRunJob_, &RemoteRunJob::failed, this, &MainWindow::onBoardRunFailed);
    for (BoardPrompter* p : {boardRunJob_->prompter(), boardsView_->job()->prompter()})
        connect(p, &BoardPrompter::keychainMessage, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
    connect(boardsView_, &BoardsView::message, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
}

void MainWindow::createBoardsActions() {
    runTarget_ = new QComboBox(runBar_);
    runTarget_->setObjectName(QStringLiteral("runTargetBox"));
    runTarget_->setToolTip(tr("Where Run (F5) profiles the model: this computer or a saved board (Boards tab)"));
    runTarget_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    runBar_->addSeparator();
    runBar_->addWidget(new QLabel(tr(" Target "), runBar_));
    runBar_->addWidget(runTarget_);
    const QString saved = QSettings().value(kTargetKey).toString();  // before refreshing overwrites it
    refreshRunTargets();
    setRunTarget(saved);
    connect(boardsView_, &BoardsView::boardsChanged, this, &MainWindow::refreshRunTargets);
    connect(runTarget_, &QComboBox::currentIndexChanged, this, &MainWindow::onRunTargetChanged);
    onRunTargetChanged();
}

void MainWindow::onRunTargetChanged() {
    const bool board = runTarget_->currentIndex() > 0;
    runAction_->setText(board ? tr("&Run on %1").arg(runTarget_->currentText()) : tr("&Run Locally"));
    runAction_->setToolTip(board ? tr("Profile the model on board %1 over SSH (F5)").arg(runTarget_->currentText())
                                 : tr("Profile the model on this computer (F5)"));
    QSettings().setValue(kTargetKey, board ? runTarget_->currentText() : QString());
}

void MainWindow::refreshRunTargets() {
    if (!runTarget_) return;
    const QString keep = runTarget_->currentIndex() > 0 ? runTarget_->currentText() : QString();
    {
        const QSignalBlocker block(runTarget_);
        runTarget_->clear();
        runTarget_->addItem(QIcon::fromTheme(QStringLiteral("computer")), tr("Local"));
        for (const BoardEntry& b : boardsView_->model()->boards())
            runTarget_->addItem(QIcon::fromTheme(QStringLiteral("network-server")), b.name,
                                QString::fromStdString(b.connection.host));
    }
    const int at = keep.isEmpty() ? 0 : runTarget_->findText(keep);
    runTarget_->setCurrentIndex(qMax(at, 0));
    onRunTargetChanged();  // also when the chosen board was removed (back to Local)
}

bool MainWindow::setRunTarget(const QString& name) {
    const int at = name.isEmpty() || name.compare(tr("Local"), Qt::CaseInsensitive) == 0 ? 0 : runTarget_->findText(name);
    if (at < 0) return false;
    runTarget_->setCurrentIndex(at);
    return true;
}

void MainWindow::showBoardsView() {
    tabs_->setCurrentWidget(boardsView_);
}

void MainWindow::startBoardRun() {
    const int row = boardsView_->model()->rowOf(runTarget_->currentText());
    if (!loaded_ || row < 0) return;
    RemoteRunRequest request;
    request.board = boardsView_->model()->board(row);
    request.modelPath = loaded_->path;
    if (!editor_->undoStack()->isClean()) request.edited = loaded_->model;  // run what the user sees
    request.options = runBar_->options();
    request.options.executor.backend = kAutoBackend;  // the agent picks the board's best backend
    runWarmup_ = request.options.warmup;
    runCount_ = request.options.runs;
    progress_->setRange(0, 0);
    progress_->setFormat(QString());
    progress_->show();
    telemetryChart_->clear(tr("Waiting for %1 …").arg(request.board.name));
    telemetryDock_->show();
    statusLabel_->setText(tr("Running %1 on %2 …").arg(QFileInfo(loaded_->path).fileName(), request.board.name));
    boardRunJob_->start(request);
    updateActions();
}

void MainWindow::onBoardRunFailed(const QString& message, bool hostKeyChanged) {
    if (!hostKeyChanged) {
        onRunFailed(message);
        return;
    }
    endRun(tr("Run refused: the board's host key has changed"));
    auto* warning = HostKeyDialog::changedKeyWarning(message, this);
    warning->setAttribute(Qt::WA_DeleteOnClose);
    warning->open();
    emit operationFailed(tr("Host key changed") + QLatin1Char('\n') + message);
}

}  // namespace npuwb::ui
