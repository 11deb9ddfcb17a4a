#include "MainWindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>
#include <QTableView>
#include <QToolBar>
#include <QTreeView>

#include <exception>

#include "RecentFiles.h"
#include "npuwb/VendorPerfLog.h"
#include "jobs/AdviseJob.h"
#include "jobs/EstimateJob.h"
#include "jobs/ModelEditor.h"
#include "jobs/ModelLoadJob.h"
#include "jobs/ProfileJob.h"
#include "jobs/RemoteRunJob.h"
#include "models/Format.h"
#include "models/LayerSelection.h"
#include "models/LayerTableModel.h"
#include "models/ModelInfoModel.h"
#include "views/LayerTableView.h"
#include "views/LayerTimeChart.h"
#include "views/EstimateView.h"
#include "views/RunOptionsBar.h"
#include "views/SuggestionsView.h"
#include "views/TargetOptionsBar.h"

namespace npuwb::ui {

namespace {
bool isModelFile(const QString& path) {
    return path.endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive);
}
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), loadJob_(new ModelLoadJob(this)), profileJob_(new ProfileJob(this)),
      selection_(new LayerSelection(this)), layerModel_(new LayerTableModel(this)),
      infoModel_(new ModelInfoModel(this)) {
    setWindowTitle(tr("NPU Workbench"));
    setAcceptDrops(true);
    createViews();
    createActions();

    connect(loadJob_, &ModelLoadJob::loaded, this, &MainWindow::onLoaded);
    connect(loadJob_, &ModelLoadJob::failed, this, &MainWindow::onLoadFailed);
    connect(profileJob_, &ProfileJob::progress, this, &MainWindow::onRunProgress);
    connect(profileJob_, &ProfileJob::finished, this, &MainWindow::onRunFinished);
    connect(profileJob_, &ProfileJob::cancelled, this, &MainWindow::onRunCancelled);
    connect(profileJob_, &ProfileJob::failed, this, &MainWindow::onRunFailed);

    // Views talk only to the shared selection, never to each other.
    connect(layerView_, &LayerTableView::layerClicked, selection_, &LayerSelection::selectLayer);
    connect(chart_, &LayerTimeChart::layerClicked, selection_, &LayerSelection::selectLayer);
    connect(selection_, &LayerSelection::layerSelected, layerView_, &LayerTableView::highlightLayer);
    connect(selection_, &LayerSelection::layerSelected, chart_, &LayerTimeChart::highlightLayer);

    restoreSettings();
    updateActions();
    statusLabel_->setText(tr("Open an ONNX model (Ctrl+O) or drop one here"));
}

MainWindow::~MainWindow() = default;

void MainWindow::createViews() {
    layerView_ = new LayerTableView(layerModel_, this);
    chart_ = new LayerTimeChart(this);
    layerSplitter_ = new QSplitter(Qt::Vertical, this);
    layerSplitter_->setObjectName(QStringLiteral("layerSplitter"));
    layerSplitter_->addWidget(layerView_);
    layerSplitter_->addWidget(chart_);
    layerSplitter_->setStretchFactor(0, 1);
    layerSplitter_->setStretchFactor(1, 1);
    layerSplitter_->setSizes({380, 440});  // the chart needs room for readable bar labels
    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("viewTabs"));
    tabs_->setDocumentMode(true);
    tabs_->addTab(layerSplitter_, tr("&Layers"));
    setCentralWidget(tabs_);

    infoView_ = new QTreeView(this);
    infoView_->setModel(infoModel_);
    infoView_->setUniformRowHeights(true);
    infoView_->setAlternatingRowColors(true);
    infoView_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    auto* dock = new QDockWidget(tr("Model"), this);
    dock->setObjectName(QStringLiteral("modelInfoDock"));
    dock->setWidget(infoView_);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::LeftDockWidgetArea, dock);
    resizeDocks({dock}, {340}, Qt::Horizontal);

    statusLabel_ = new QLabel(this);
    progress_ = new QProgressBar(this);
    progress_->setMaximumWidth(260);
    progress_->setTextVisible(true);
    progress_->hide();
    statusBar()->addWidget(statusLabel_, 1);
    statusBar()->addPermanentWidget(progress_);
    createAnalysisViews();
    createQuantizeViews();
    createBoardsViews();
}

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    openAction_ = file->addAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open Model…"), this,
                                  &MainWindow::openFileDialog);
    openAction_->setShortcut(QKeySequence::Open);
    recent_ = new RecentFiles(file->addMenu(tr("Open &Recent")), this);
    connect(recent_, &RecentFiles::fileChosen, this, &MainWindow::openModel);
    exportAction_ = file->addAction(QIcon::fromTheme(QStringLiteral("document-save-as")), tr("&Export Report…"),
                                    this, &MainWindow::exportReportDialog);
    exportAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    importLogAction_ = file->addAction(tr("&Import Vendor Perf Log…"), this, &MainWindow::importVendorLogDialog);
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    runAction_ = run->addAction(QIcon::fromTheme(QStringLiteral("media-playback-start")), tr("&Run Locally"), this,
                                &MainWindow::startRun);
    runAction_->setShortcut(Qt::Key_F5);
    runAction_->setToolTip(tr("Profile the model on this computer (F5)"));
    cancelAction_ = run->addAction(QIcon::fromTheme(QStringLiteral("process-stop")), tr("&Cancel"), this,
                                   &MainWindow::cancelRun);
    cancelAction_->setShortcut(Qt::Key_Escape);
    createQuantizeActions(run);

    QToolBar* fileBar = addToolBar(tr("File"));
    fileBar->setObjectName(QStringLiteral("fileToolBar"));
    fileBar->addAction(openAction_);
    fileBar->addAction(exportAction_);
    runBar_ = new RunOptionsBar(this);
    runBar_->insertAction(runBar_->actions().value(0), runAction_);
    runBar_->insertAction(runBar_->actions().value(1), cancelAction_);
    addToolBar(runBar_);
    for (QToolBar* bar : {fileBar, static_cast<QToolBar*>(runBar_)})
        bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    createAnalysisActions(file);
    createBoardsActions();
}

void MainWindow::restoreSettings() {
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray())) resize(1400, 900);
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    layerSplitter_->restoreState(settings.value(QStringLiteral("window/layerSplitter")).toByteArray());
    runBar_->setRuns(settings.value(QStringLiteral("run/runs"), RunOptionsBar::kDefaultRuns).toInt());
    runBar_->setWarmup(settings.value(QStringLiteral("run/warmup"), RunOptionsBar::kDefaultWarmup).toInt());
    restoreAnalysisSettings();
}

void MainWindow::saveSettings() const {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/layerSplitter"), layerSplitter_->saveState());
    settings.setValue(QStringLiteral("run/runs"), runBar_->options().runs);
    settings.setValue(QStringLiteral("run/warmup"), runBar_->options().warmup);
    saveAnalysisSettings();
}

bool MainWindow::isBusy() const {
    return loadJob_->isRunning() || profileJob_->isRunning() || estimateJob_->isRunning() ||
           adviseJob_->isRunning() || editor_->isRunning() || quantizeBusy() ||
           boardRunJob_->isRunning();
}

void MainWindow::updateActions() {
    const bool running = profileJob_->isRunning() || boardRunJob_->isRunning();
    const bool busy = isBusy();
    openAction_->setEnabled(!busy);
    runAction_->setEnabled(loaded_ && !busy);
    cancelAction_->setEnabled(running);
    estimateAction_->setEnabled(loaded_ && !busy);
    adviseAction_->setEnabled(loaded_ && !busy);
    quantizeAction_->setEnabled(loaded_ && !busy);
    const advisor::Finding* finding = suggestionsView_->currentFinding();
    applyAction_->setEnabled(loaded_ && !busy && finding && !finding->pass.empty());
    saveModelAction_->setEnabled(loaded_ && !busy);
    editor_->undoStack()->setActive(!busy);  // no undo under a worker that still uses the current model
    targetBar_->setEnabled(!busy);
    exportAction_->setEnabled(report_ && !running);
    importLogAction_->setEnabled(!busy);
    runBar_->runsBox()->setEnabled(!running);
    runBar_->warmupBox()->setEnabled(!running);
    runTarget_->setEnabled(!running);
    setAcceptDrops(!busy);
}

void MainWindow::showError(const QString& title, const QString& message) {
    statusLabel_->setText(title);
    // open(), not exec(): a nested event loop would stall the caller, and tests could not get past it.
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("errorMessageBox"));
    box->open();
    emit operationFailed(title + QLatin1Char('\n') + message);
}

void MainWindow::openFileDialog() {
    const QString start = recent_->files().value(0);
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Model"), QFileInfo(start).absolutePath(),
                                                      tr("ONNX models (*.onnx);;All files (*)"));
    if (!path.isEmpty()) openModel(path);
}

void MainWindow::openModel(const QString& path) {
    if (isBusy()) {
        statusBar()->showMessage(tr("Busy: wait for the current operation or cancel it"), 4000);
        return;
    }
    loadingPath_ = path;
    statusLabel_->setText(tr("Loading %1 …").arg(QDir::toNativeSeparators(path)));
    progress_->setRange(0, 0);  // busy indicator: import has no progress to report
    progress_->show();
    loadJob_->start(path);
    updateActions();
}

void MainWindow::showModel(std::shared_ptr<const LoadedModel> model) {
    loaded_ = std::move(model);
    report_.reset();
    selection_->clear();
    selection_->setLayers(loaded_->layers);
    infoModel_->setSummary(loaded_->summary);
    infoView_->expandAll();
    layerModel_->setLayers(loaded_->layers, false);
    chart_->setLayers(loaded_->layers, false);
    clearQuantization();
    setWindowTitle(tr("%1%2 — NPU Workbench")
                       .arg(QFileInfo(loaded_->path).fileName(),
                            editor_->undoStack()->isClean() ? QString() : tr(" (modified)")));
}

void MainWindow::onLoaded(std::shared_ptr<const LoadedModel> model) {
    progress_->hide();
    editor_->undoStack()->clear();  // undo never crosses into another file
    showModel(std::move(model));
    estimateView_->clear(tr("Pick a chip and press Estimate (F6)"));
    suggestionsView_->clear(tr("Pick a chip and press Advise (F7)"));
    recent_->add(loaded_->path);
    const QString name = QFileInfo(loaded_->path).fileName();
    const ModelSummary& summary = loaded_->summary;
    const QString macs = macsUnknown(summary) ? tr("MACs unknown (symbolic input dims)")
                                                                             : tr("%1 MACs").arg(formatCount(summary.macs));
    statusLabel_->setText(tr("%1: %2 nodes, %3 parameters, %4")
                              .arg(name)
                              .arg(summary.nodeCount)
                              .arg(formatCount(summary.parameterCount), macs));
    updateActions();
    emit modelLoaded(loaded_->path);
    if (runAfterLoad_) {
        runAfterLoad_ = false;
        startRun();
    }
}

void MainWindow::onLoadFailed(const QString& path, const QString& message) {
    progress_->hide();
    runAfterLoad_ = false;
    updateActions();
    if (!QFileInfo::exists(path)) recent_->remove(path);
    showError(tr("Cannot open %1").arg(QFileInfo(path).fileName()),
              tr("%1\n\n%2").arg(QDir::toNativeSeparators(path), message));
}

void MainWindow::startRun() {
    if (!loaded_ || isBusy()) return;
    if (runTarget_->currentIndex() > 0) return startBoardRun();
    const RunOptions options = runBar_->options();
    runWarmup_ = options.warmup;
    runCount_ = options.runs;
    progress_->setRange(0, runWarmup_ + runCount_);
    progress_->setValue(0);
    progress_->setFormat(runWarmup_ > 0 ? tr("warm-up 0/%1").arg(runWarmup_) : tr("run 0/%1").arg(runCount_));
    progress_->show();
    statusLabel_->setText(tr("Running %1 locally …").arg(QFileInfo(loaded_->path).fileName()));
    profileJob_->start(loaded_->model, options);
    updateActions();
}

void MainWindow::cancelRun() {
    boardRunJob_->cancel();
    if (!profileJob_->isRunning() && !boardRunJob_->isRunning()) return;
    profileJob_->cancel();
    statusLabel_->setText(tr("Cancelling …"));
}

void MainWindow::onRunProgress(const QString& phase, int done, int total) {
    const bool warmup = phase == QLatin1String("warm-up");
    progress_->setValue(warmup ? done : runWarmup_ + done);
    progress_->setFormat(QStringLiteral("%1 %2/%3").arg(warmup ? tr("warm-up") : tr("run")).arg(done).arg(total));
}

void MainWindow::endRun(const QString& statusText) {
    progress_->hide();
    statusLabel_->setText(statusText);
    updateActions();
}

void MainWindow::onRunFinished(std::shared_ptr<const Report> report) {
    report_ = std::move(report);
    const int keep = selection_->selectedLayer();
    const bool firstTimes = !layerModel_->isTimed();
    layerModel_->setLayers(report_->layers, true);
    selection_->setLayers(report_->layers);
    if (firstTimes)  // the first results: slowest layers on top, as in the chart; later runs keep the user's sort
        layerView_->tableView()->sortByColumn(LayerTableModel::TimeColumn, Qt::DescendingOrder);
    chart_->setLayers(report_->layers, true);
    infoModel_->setRunResult(*report_);
    infoView_->expandAll();
    // Views were reset; re-apply the selection so the table and chart agree again.
    selection_->clear();
    selection_->selectLayer(keep);
    endRun(tr("Run finished: median %1 over %2 runs, %3 layers")
               .arg(formatMicros(report_->run.medianUs))
               .arg(report_->run.runs)
               .arg(report_->layers.size()));
    emit runFinished();
}

void MainWindow::onRunCancelled() {
    endRun(tr("Run cancelled"));
    emit runCancelled();
}

void MainWindow::onRunFailed(const QString& message) {
    endRun(tr("Run failed"));
    showError(tr("Running %1 failed").arg(QFileInfo(loaded_->path).fileName()),
              tr("%1\n\n%2").arg(QDir::toNativeSeparators(loaded_->path), message));
}

void MainWindow::importVendorLogDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Import Vendor Perf Log"), QString(),
                                                      tr("RKNN perf logs (*.txt *.log);;All files (*)"));
    if (!path.isEmpty()) importVendorLog(path);
}

bool MainWindow::importVendorLog(const QString& path) {
    std::shared_ptr<const Report> report;
    try {
        const VendorPerfLog log = loadRknnPerfLog(path.toStdString());
        report = std::make_shared<const Report>(reportFromRknnPerfLog(log, path.toStdString()));
    } catch (const std::exception& e) {
        showError(tr("Cannot import %1").arg(QFileInfo(path).fileName()), QString::fromStdString(e.what()));
        return false;
    }
    onRunFinished(std::move(report));  // the same views as a local run
    statusLabel_->setText(tr("Imported %1: %2 layers, %3 per frame")
                              .arg(QFileInfo(path).fileName())
                              .arg(report_->layers.size())
                              .arg(formatMicros(report_->run.medianUs)));
    return true;
}

void MainWindow::exportReportDialog() {
    if (!report_) return;
    const QString source = loaded_ ? loaded_->path : QString::fromStdString(report_->model.path);  // or an imported log
    const QString suggested = QFileInfo(source).absolutePath() + QLatin1Char('/') +
                              QFileInfo(source).completeBaseName() + QStringLiteral(".report.json");
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export Report"), suggested, tr("JSON reports (*.json)"));
    if (!path.isEmpty()) exportReport(path);
}

bool MainWindow::exportReport(const QString& path) {
    if (!report_) return false;
    try {
        saveReport(*report_, path.toStdString());  // atomic: a failed write leaves any old file intact
    } catch (const std::exception& e) {
        showError(tr("Cannot write %1").arg(QFileInfo(path).fileName()),
                  tr("%1\n\n%2").arg(QDir::toNativeSeparators(path), QString::fromStdString(e.what())));
        return false;
    }
    statusLabel_->setText(tr("Report written to %1").arg(QDir::toNativeSeparators(path)));
    return true;
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSettings();
    // The jobs' destructors wait for their workers; cancelling first keeps that wait short.
    profileJob_->cancel();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile() && isModelFile(urls.first().toLocalFile()))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile()) return;
    event->acceptProposedAction();
    openModel(urls.first().toLocalFile());
}

}  // namespace npuwb::ui
