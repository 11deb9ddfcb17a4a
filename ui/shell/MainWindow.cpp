#include "shell/MainWindow.h"

#include <QAbstractItemView>
#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QMap>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>
#include <QTreeView>
#include <QUndoStack>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include "core/ExportActions.h"
#include "core/ItemViewCopy.h"
#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "core/WorkbenchView.h"
#include "run/RunController.h"
#include "run/RunOptionsBar.h"
#include "shell/FileActions.h"
#include "shell/HelpMenu.h"
#include "shell/LayerFilterBar.h"
#include "shell/ModelInfoPanel.h"
#include "shell/RecentFiles.h"
#include "shell/StartPage.h"
#include "shell/TargetOptionsBar.h"
#include "npuwb/ModelRuntimes.h"

namespace npuwb::ui {

namespace {
/// ONNX, or a compiled model a runtime plugin claims (.rknn: rknpu).
bool isModelFile(const QString& path) {
    return path.endsWith(QStringLiteral(".onnx"), Qt::CaseInsensitive) || !modelRuntimeForFile(path.toStdString()).empty();
}

const QString kProgressName = QStringLiteral("statusProgress");
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), workbench_(new Workbench(this)), tabs_(new QTabWidget(this)) {
    setWindowTitle(tr("NPU Workbench"));
    setAcceptDrops(true);
    tabs_->setObjectName(QStringLiteral("viewTabs"));
    tabs_->setDocumentMode(true);
    // The shared layer filter's bar sits above the tabs: it applies to all of them.
    auto* central = new QWidget(this);
    auto* centralLayout = new QVBoxLayout(central);
    centralLayout->setContentsMargins(0, 0, 0, 0);
    centralLayout->setSpacing(0);
    filterBar_ = new LayerFilterBar(*workbench_, central);
    centralLayout->addWidget(filterBar_);
    startPage_ = new StartPage(central);
    pages_ = new QStackedWidget(central);
    pages_->addWidget(startPage_);
    pages_->addWidget(tabs_);
    centralLayout->addWidget(pages_, 1);
    setCentralWidget(central);

    auto* info = new QDockWidget(tr("Model"), this);
    info->setObjectName(QStringLiteral("modelInfoDock"));
    info->setWidget(new ModelInfoPanel(*workbench_, info));
    // Closable: View > Model brings it back.
    info->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                      QDockWidget::DockWidgetClosable);
    addDockWidget(Qt::LeftDockWidgetArea, info);
    resizeDocks({info}, {340}, Qt::Horizontal);

    createMenusAndViews();
    QAction* showInfo = info->toggleViewAction();
    showInfo->setObjectName(QStringLiteral("showModelPanelAction"));
    showInfo->setText(tr("&Model Panel"));
    showInfo->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    viewMenu_->addSeparator();
    viewMenu_->addAction(showInfo);
    viewMenu_->addAction(filterBar_->toggleAction());
    addHelpMenu(this);
    // Copy (Ctrl+C, context menu) on every table and tree of the window, the views' and the panel's alike.
    // (Tables and trees only: a combo box's popup list is an item view too.)
    // Export as CSV beside it, and Save Chart As (PNG, PDF) on every chart.
    for (QAbstractItemView* itemView : findChildren<QAbstractItemView*>())
        if (qobject_cast<QTableView*>(itemView) || qobject_cast<QTreeView*>(itemView)) {
            addCopyAction(itemView);
            addExportCsvAction(itemView);
        }
    for (QCustomPlot* plot : findChildren<QCustomPlot*>()) addSaveChartAction(plot);
    createStatusBar();
    connect(workbench_, &Workbench::stateChanged, this, [this] { setAcceptDrops(!workbench_->isBusy()); });
    connect(workbench_, &Workbench::modelLoaded, this, &MainWindow::updateTitle);
    connect(workbench_, &Workbench::modelChanged, this, &MainWindow::updateTitle);
    connect(workbench_, &Workbench::viewRequested, tabs_, &QTabWidget::setCurrentWidget);
    // The start page until a model opens; the views from then on.
    startPage_->setRecentFiles(files_->recentFiles()->files());
    connect(startPage_, &StartPage::openRequested, files_->openAction(), &QAction::trigger);
    connect(startPage_, &StartPage::fileChosen, this, &MainWindow::openModel);
    connect(workbench_, &Workbench::modelLoaded, this, [this] { pages_->setCurrentWidget(tabs_); });
    restoreSettings();
    workbench_->setStatus(tr("Open an ONNX or compiled .rknn model (Ctrl+O) or drop one here"));
}

MainWindow::~MainWindow() {
    // Children are deleted in creation order, the workbench first; what refers to it goes before it.
    delete runner_;
    delete centralWidget();  // the tabs and the filter bar
}

void MainWindow::createMenusAndViews() {
    // The usual order: File, Edit, View, then the application's own menus, Help last (added by addHelpMenu).
    QMenu* fileMenu = menuBar()->addMenu(tr("&File"));
    QMenu* editMenu = menuBar()->addMenu(tr("&Edit"));
    QMenu* viewMenu = menuBar()->addMenu(tr("&View"));
    QMenu* runMenu = menuBar()->addMenu(tr("&Run"));
    QMenu* analyzeMenu = menuBar()->addMenu(tr("&Analyze"));
    viewMenu_ = viewMenu;
    // Hovering an entry shows its tool tip: a disabled one says why (e.g. core/OnnxOnlyAction.h).
    for (QMenu* menu : {fileMenu, runMenu, analyzeMenu}) menu->setToolTipsVisible(true);

    QToolBar* fileBar = addToolBar(tr("File"));
    fileBar->setObjectName(QStringLiteral("fileToolBar"));
    fileBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    files_ = new FileActions(*workbench_, this, fileMenu, fileBar);
    runner_ = new RunController(*workbench_, this);
    runMenu->addAction(runner_->runAction());
    runMenu->addAction(runner_->cancelAction());
    runMenu->addAction(runner_->inputShapesAction());
    // The chip target gets a toolbar row of its own under File and Run: beside the tabs it left too little room for
    // the tab titles at the default 1400 px (they scrolled behind arrows).
    addToolBarBreak();
    auto* targetBar = new TargetOptionsBar(*workbench_, this);
    targetBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    targetBar->setIconSize(QSize(16, 16));
    addToolBar(targetBar);

    QAction* undo = workbench_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = workbench_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence::Redo});
    editMenu->addAction(undo);
    editMenu->addAction(redo);
    connect(workbench_->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);

    const QMap<MenuSlot, QMenu*> menus = {{MenuSlot::File, fileMenu}, {MenuSlot::Edit, editMenu},
                                          {MenuSlot::Run, runMenu},   {MenuSlot::Analyze, analyzeMenu}};
    const QMap<ToolBarSlot, QToolBar*> toolBars = {{ToolBarSlot::Run, runner_->optionsBar()},
                                                   {ToolBarSlot::Target, targetBar}};
    for (const ViewInfo& info : ViewRegistry::instance().views()) {
        WorkbenchView* view = info.create(*workbench_, tabs_);
        view->setObjectName(QString::fromLatin1(info.name));
        tabs_->addTab(view, info.translatedTitle());
        QAction* show = viewMenu->addAction(info.translatedTitle().remove(QLatin1Char('&')), this,
                                            [this, view] { tabs_->setCurrentWidget(view); });
        show->setShortcut(QKeySequence(info.shortcut));
        for (const ViewAction& contributed : view->viewActions()) {
            if (contributed.menu == MenuSlot::File)
                fileMenu->insertAction(files_->quitSeparator(), contributed.action);
            else
                menus.value(contributed.menu)->addAction(contributed.action);
            if (QToolBar* bar = toolBars.value(contributed.toolBar)) bar->addAction(contributed.action);
        }
    }
}

void MainWindow::createStatusBar() {
    auto* text = new QLabel(this);
    text->setObjectName(QStringLiteral("statusText"));
    auto* progress = new QProgressBar(this);
    progress->setObjectName(kProgressName);
    progress->setMaximumWidth(260);
    progress->setTextVisible(true);
    progress->hide();
    statusBar()->addWidget(text, 1);
    statusBar()->addPermanentWidget(progress);
    connect(workbench_, &Workbench::statusChanged, text, &QLabel::setText);
    connect(workbench_, &Workbench::messageShown, statusBar(), &QStatusBar::showMessage);
    connect(workbench_, &Workbench::progressChanged, progress, [progress](int done, int total, const QString& format) {
        progress->setRange(0, total);
        progress->setValue(done);
        progress->setFormat(format.isEmpty() ? QStringLiteral("%p%") : format);
        progress->show();
    });
    connect(workbench_, &Workbench::progressHidden, progress, &QWidget::hide);
}

ModelInfoPanel* MainWindow::modelInfo() const {
    return findChild<ModelInfoPanel*>();
}

QProgressBar* MainWindow::progressBar() const {
    return findChild<QProgressBar*>(kProgressName);
}

QList<WorkbenchView*> MainWindow::views() const {
    QList<WorkbenchView*> views;
    for (int i = 0; i < tabs_->count(); ++i) views << static_cast<WorkbenchView*>(tabs_->widget(i));
    return views;
}

WorkbenchView* MainWindow::view(const QString& name) const {
    for (WorkbenchView* v : views())
        if (v->objectName().compare(name, Qt::CaseInsensitive) == 0) return v;
    return nullptr;
}

bool MainWindow::setCurrentView(const QString& name) {
    WorkbenchView* v = view(name);
    if (v) tabs_->setCurrentWidget(v);
    return v != nullptr;
}

void MainWindow::openModel(const QString& path) {
    workbench_->openModel(path);
}

void MainWindow::updateTitle() {
    const auto loaded = workbench_->loadedModel();
    if (!loaded) return;
    setWindowTitle(tr("%1%2 — NPU Workbench")
                       .arg(QFileInfo(loaded->path).fileName(), workbench_->isModelEdited() ? tr(" (modified)") : QString()));
}

void MainWindow::restoreSettings() {
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray())) resize(1400, 900);
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    workbench_->restoreSettings(settings);
    runner_->restoreSettings(settings);
    filterBar_->restoreSettings(settings);
    for (WorkbenchView* v : views()) {
        settings.beginGroup(QStringLiteral("views/") + v->objectName());
        v->restoreSettings(settings);
        settings.endGroup();
    }
    setCurrentView(settings.value(QStringLiteral("window/view")).toString());
}

void MainWindow::saveSettings() const {
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("window/view"), tabs_->currentWidget() ? tabs_->currentWidget()->objectName() : QString());
    workbench_->saveSettings(settings);
    runner_->saveSettings(settings);
    filterBar_->saveSettings(settings);
    for (WorkbenchView* v : views()) {
        settings.beginGroup(QStringLiteral("views/") + v->objectName());
        v->saveSettings(settings);
        settings.endGroup();
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveSettings();
    // The jobs' destructors wait for their workers; cancelling first keeps that wait short.
    runner_->cancelRun();
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
    workbench_->openModel(urls.first().toLocalFile());
}

}  // namespace npuwb::ui
