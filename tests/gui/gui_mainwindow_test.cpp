// The npuwb main window on a real (torch-exported) model: open, inspect, run on the worker, sort, select
// across views, export, cancel, and fail cleanly on a bad file; a compiled model (.rknn) turns off what needs the
// ONNX graph, and the Run toolbar's NPU boxes (core mask, contexts, batch) fill ModelRunOptions and are remembered.
// Runs offscreen.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QMimeData>
#include <QSettings>
#include <QUrl>
#include <QMessageBox>
#include <QProgressBar>
#include <QDir>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <qcustomplot.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/OnnxOnlyAction.h"
#include "core/Workbench.h"
#include "dialogs/QuantizeDialog.h"
#include "models/LayerSelection.h"
#include "models/LayerTableModel.h"
#include "models/ModelInfoModel.h"
#include "npuwb/ModelIO.h"
#include "npuwb/ModelRuntimes.h"
#include "npuwb/Session.h"
#include "run/RunController.h"
#include "run/RunOptionsBar.h"
#include "shell/FileActions.h"
#include "shell/MainWindow.h"
#include "shell/ModelInfoPanel.h"
#include "shell/StartPage.h"
#include "views/accuracy/AccuracyView.h"
#include "views/estimate/EstimateView.h"
#include "views/layers/LayerTableView.h"
#include "views/layers/LayerTimeChart.h"
#include "views/layers/LayersView.h"
#include "views/suggestions/SuggestionsView.h"
#include "views/timeline/TimelineView.h"

using namespace npuwb::ui;

namespace {
constexpr int kTimeoutMs = 30000;
constexpr int kLayers = 12;  // make_test_model.py's SmallNet after export (BatchNorm folded into Conv)
constexpr int kRuns = 30;    // enough for the run to outlast several event-loop turns, still well under a second
}  // namespace

class MainWindowTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void opensModelAndShowsInfo();
    void runsOnWorkerAndFillsTableAndChart();
    void sortsByTimeNumerically();
    void tableAndChartShareTheSelection();
    void exportsReport();
    void cancelStopsRun();
    void runsOnTheChosenBackend();
    void badFileShowsErrorNamingIt();
    void droppingAModelOpensIt();
    void macsOfSymbolicInputsAreUnknownNotZero();
    void importsAVendorLogAsARun();
    void npuBoxesFillModelRunOptions();
    void compiledModelTurnsOffOnnxActions();
    void layerIdsStayThroughARun();
    void remembersRunOptionsAndView();
    void cleanupTestCase();

private:
    LayersView* layers() const { return window_->view<LayersView>(); }
    /// Everything that needs the ONNX graph: off while a compiled model is open.
    QList<QAction*> onnxOnlyActions() const {
        return {window_->view<EstimateView>()->estimateAction(),   window_->view<SuggestionsView>()->adviseAction(),
                window_->view<SuggestionsView>()->applyAction(),    window_->view<AccuracyView>()->quantizeAction(),
                window_->view<TimelineView>()->partitionAction(),   window_->files()->saveModelAction(),
                window_->files()->convertRknnAction()};
    }
    /// A window the window opened and still shows (an error box, a dialog).
    template <class Widget> bool showsA(const QString& name = {}) const {
        for (Widget* w : window_->findChildren<Widget*>(name))
            if (w->isVisible()) return true;
        return false;
    }
    /// The "Backend" row of the info panel's "Last run" section.
    QString lastRunBackend() const {
        QStandardItem* run = window_->modelInfo()->infoModel()->section(QStringLiteral("Last run"));
        for (int r = 0; run && r < run->rowCount(); ++r)
            if (run->child(r, 0)->text() == QLatin1String("Backend")) return run->child(r, 1)->text();
        return {};
    }

    std::unique_ptr<MainWindow> window_;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers_;
};

void MainWindowTest::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // QSettings (recent files, geometry) go to a test location
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_mainwindow_test"));
    QSettings().clear();  // the defaults, whatever an earlier run saved
    window_ = std::make_unique<MainWindow>();
    window_->runner()->optionsBar()->setRuns(kRuns);
    window_->runner()->optionsBar()->setWarmup(1);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    // Testers from the start, so every reset and sort below is checked too.
    const auto mode = QAbstractItemModelTester::FailureReportingMode::QtTest;
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(layers()->tableModel(), mode));
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(layers()->tableView()->proxyModel(), mode));
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(window_->modelInfo()->infoModel(), mode));
}

void MainWindowTest::opensModelAndShowsInfo() {
    // Before any model: the start page, with the bundled sample one click away and no recent files yet.
    StartPage* start = window_->startPage();
    QVERIFY(start->isVisible());
    QVERIFY(!window_->findChild<QTabWidget*>(QStringLiteral("viewTabs"))->isVisible());
    QVERIFY(start->sampleButton()->isVisible());
    QVERIFY2(start->sampleButton()->toolTip().endsWith(QStringLiteral(".onnx")), qPrintable(start->sampleButton()->toolTip()));
    QCOMPARE(start->recentList()->count(), 1);  // the "(none yet …)" line
    QVERIFY(!(start->recentList()->item(0)->flags() & Qt::ItemIsEnabled));
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    QTest::mouseClick(start->sampleButton(), Qt::LeftButton);
    QVERIFY(loaded.wait(kTimeoutMs));
    QCOMPARE(QDir::toNativeSeparators(loaded.takeFirst().first().toString()), start->sampleButton()->toolTip());
    QVERIFY(!start->isVisible());  // the views replace it
    QVERIFY(window_->findChild<QTabWidget*>(QStringLiteral("viewTabs"))->isVisible());

    window_->openModel(QStringLiteral(NPUWB_GUI_TEST_MODEL));
    QVERIFY(loaded.wait(kTimeoutMs));
    QVERIFY(window_->workbench()->hasModel());

    ModelInfoModel* info = window_->modelInfo()->infoModel();
    QStandardItem* inputs = info->section(QStringLiteral("Inputs"));
    QVERIFY(inputs);
    QCOMPARE(inputs->rowCount(), 1);
    QCOMPARE(inputs->child(0, 0)->text(), QStringLiteral("image"));
    QVERIFY2(inputs->child(0, 1)->text().contains(QStringLiteral("[1,3,32,32]")),
             qPrintable(inputs->child(0, 1)->text()));
    QStandardItem* ops = info->section(QStringLiteral("Operators"));
    QVERIFY(ops);
    QVERIFY(!info->findItems(QStringLiteral("Conv"), Qt::MatchExactly | Qt::MatchRecursive).isEmpty());

    // Before a run the table already lists the layers, without times; the chart shows a hint, no bars.
    QCOMPARE(layers()->tableModel()->rowCount(), kLayers);
    QVERIFY(!layers()->tableModel()->isTimed());
    QCOMPARE(layers()->timeChart()->barCount(), 0);
    QVERIFY(window_->runner()->runAction()->isEnabled());
    const QString absolute = QFileInfo(QStringLiteral(NPUWB_GUI_TEST_MODEL)).absoluteFilePath();
    QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList().value(0), absolute);
}

void MainWindowTest::macsOfSymbolicInputsAreUnknownNotZero() {
    ModelInfoModel info;
    QAbstractItemModelTester tester(&info, QAbstractItemModelTester::FailureReportingMode::QtTest);
    npuwb::ModelSummary s;
    s.inputs = {{"x", "float32", {"?", "3", "48", "?"}}};  // PP-OCR's cls/rec inputs
    info.setSummary(s);
    auto macs = info.findItems(QStringLiteral("MACs"), Qt::MatchExactly | Qt::MatchRecursive);
    QCOMPARE(macs.size(), 1);
    const QString shown = macs[0]->parent()->child(macs[0]->row(), 1)->text();
    QVERIFY2(shown.contains(QStringLiteral("unknown")), qPrintable(shown));
    s.inputs = {{"x", "float32", {"1", "3", "48", "192"}}};
    s.macs = 12345678;
    info.setSummary(s);
    macs = info.findItems(QStringLiteral("MACs"), Qt::MatchExactly | Qt::MatchRecursive);
    QVERIFY(!macs[0]->parent()->child(macs[0]->row(), 1)->text().contains(QStringLiteral("unknown")));
}

void MainWindowTest::runsOnWorkerAndFillsTableAndChart() {
    QSignalSpy finished(window_->runner(), &RunController::runFinished);
    // The GUI thread must keep serving events while the worker runs: count event-loop turns meanwhile.
    int ticks = 0;
    QTimer heartbeat;
    connect(&heartbeat, &QTimer::timeout, [&ticks] { ++ticks; });
    heartbeat.start(0);
    window_->runner()->startRun();
    QVERIFY(window_->workbench()->isBusy());
    QVERIFY(window_->runner()->cancelAction()->isEnabled());
    QVERIFY(!window_->runner()->runAction()->isEnabled());
    QVERIFY(window_->progressBar()->isVisible());
    QVERIFY(finished.wait(kTimeoutMs));
    heartbeat.stop();
    QVERIFY2(ticks > 0, "the GUI thread did not process events during the run");

    const npuwb::Report* report = window_->workbench()->lastReport();
    QVERIFY(report);
    QCOMPARE(int(report->layers.size()), kLayers);
    QCOMPARE(report->run.runs, kRuns);
    LayerTableModel* table = layers()->tableModel();
    QVERIFY(table->isTimed());
    QCOMPARE(table->rowCount(), kLayers);  // every node keeps its row and ID
    // A fused kernel is one bar and one shown row, its first node's; the nodes fused into it are hidden.
    int ownRows = 0;
    for (const auto& row : report->layers) ownRows += row.fusedInto.empty() ? 1 : 0;
    QCOMPARE(layers()->timeChart()->barCount(), ownRows);
    QCOMPARE(layers()->tableView()->proxyModel()->rowCount(), ownRows);
    QVERIFY(!window_->progressBar()->isVisible());
    QVERIFY(!window_->workbench()->isBusy());
    QVERIFY(window_->runner()->runAction()->isEnabled());
    QVERIFY(window_->modelInfo()->infoModel()->section(QStringLiteral("Last run")));
    // By default the fastest backend found runs it, and the results name the backend that ran.
    QCOMPARE(window_->runner()->optionsBar()->options().executor.backend, std::string(npuwb::kAutoBackend));
    const QString backend = QString::fromStdString(npuwb::resolveBackendName("auto"));
    QCOMPARE(QString::fromStdString(report->environment.backend), backend);
    QVERIFY2(lastRunBackend().startsWith(backend), qPrintable(lastRunBackend()));
    const QString status = window_->findChild<QLabel*>(QStringLiteral("statusText"))->text();
    QVERIFY2(status.contains(backend) && status.contains(QStringLiteral("thread")), qPrintable(status));
    if (backend == QLatin1String("cpu-onednn")) {  // Conv+Relu runs as one kernel there
        const auto fused = std::find_if(report->layers.begin(), report->layers.end(),
                                        [](const npuwb::LayerRow& row) { return !row.fusedInto.empty(); });
        QVERIFY(fused != report->layers.end());
        const int anchorRow = table->rowOfLayer(int(fused->id));  // selecting a fused node selects its layer
        QCOMPARE(table->layers()[size_t(anchorRow)].fullName, fused->fusedInto);
        const QString opType = table->index(anchorRow, LayerTableModel::OpTypeColumn).data().toString();
        QVERIFY2(opType.contains(QLatin1Char('+') + QString::fromStdString(fused->opType)), qPrintable(opType));
        QVERIFY(table->layers()[size_t(anchorRow)].timeUs > 0 && fused->timeUs == 0);
    }
    // The chart lists the slowest layer first.
    const int slowest = layers()->timeChart()->layerAtRank(1);
    for (const auto& row : report->layers)
        QVERIFY(row.timeUs <= report->layers[size_t(table->rowOfLayer(slowest))].timeUs);
}

void MainWindowTest::sortsByTimeNumerically() {
    QVERIFY(window_->workbench()->lastReport());
    QTableView* view = layers()->tableView()->tableView();
    view->sortByColumn(LayerTableModel::TimeColumn, Qt::DescendingOrder);
    QAbstractItemModel* proxy = view->model();
    for (int r = 1; r < proxy->rowCount(); ++r) {
        const double above = proxy->index(r - 1, LayerTableModel::TimeColumn).data(LayerTableModel::SortRole).toDouble();
        const double below = proxy->index(r, LayerTableModel::TimeColumn).data(LayerTableModel::SortRole).toDouble();
        QVERIFY2(above >= below, qPrintable(QStringLiteral("row %1: %2 < %3").arg(r).arg(above).arg(below)));
    }
    // The top row is the chart's first bar.
    QCOMPARE(proxy->index(0, 0).data(LayerTableModel::LayerIdRole).toInt(), layers()->timeChart()->layerAtRank(1));
    view->sortByColumn(LayerTableModel::IdColumn, Qt::AscendingOrder);
}

void MainWindowTest::tableAndChartShareTheSelection() {
    QVERIFY(window_->workbench()->lastReport());
    LayerSelection* selection = window_->workbench()->selection();
    LayerTimeChart* chart = layers()->timeChart();
    QTableView* view = layers()->tableView()->tableView();

    // Click a bar (the slowest, rank 1) in the chart: the table follows.
    QCustomPlot* plot = chart->plot();
    plot->replot();
    const int target = chart->layerAtRank(1);
    const double time = window_->workbench()->lastReport()->layers[size_t(layers()->tableModel()->rowOfLayer(target))].timeUs;
    const QPoint barCenter(int(plot->xAxis->coordToPixel(time / 2)), int(plot->yAxis->coordToPixel(1.0)));
    QTest::mouseClick(plot, Qt::LeftButton, {}, barCenter);
    QCOMPARE(selection->selectedLayer(), target);
    QCOMPARE(view->currentIndex().data(LayerTableModel::LayerIdRole).toInt(), target);
    QCOMPARE(chart->highlightedLayer(), target);

    // Click a row in the table: the chart highlights that bar. The row is the second-slowest layer's, found by its
    // id: a fixed row could hold the slowest layer itself, as timings vary from run to run.
    const int rowLayer = chart->layerAtRank(2);
    QVERIFY(rowLayer >= 0 && rowLayer != target);
    const QModelIndex row = layers()->tableView()->proxyModel()->mapFromSource(
        layers()->tableModel()->index(layers()->tableModel()->rowOfLayer(rowLayer), LayerTableModel::NameColumn));
    QVERIFY(row.isValid());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(row).center());
    QCOMPARE(selection->selectedLayer(), rowLayer);
    QCOMPARE(chart->highlightedLayer(), rowLayer);
    int selectedBars = 0;
    for (int i = 0; i < plot->plottableCount(); ++i) selectedBars += plot->plottable(i)->selection().dataPointCount();
    QCOMPARE(selectedBars, 1);
}

void MainWindowTest::exportsReport() {
    QVERIFY(window_->workbench()->lastReport());
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("smallnet.report.json"));
    QVERIFY(window_->files()->exportReport(path));
    const npuwb::Report back = npuwb::loadReport(path.toStdString());
    QCOMPARE(int(back.layers.size()), kLayers);
    QCOMPARE(back.layers.front().fullName, window_->workbench()->lastReport()->layers.front().fullName);
}

void MainWindowTest::cancelStopsRun() {
    const npuwb::Report* before = window_->workbench()->lastReport();
    window_->runner()->optionsBar()->setRuns(100000);  // far longer than the test may take: only Cancel can end it
    QSignalSpy cancelled(window_->runner(), &RunController::runCancelled);
    QSignalSpy finished(window_->runner(), &RunController::runFinished);
    window_->runner()->startRun();
    QTRY_VERIFY_WITH_TIMEOUT(window_->progressBar()->value() >= 2, kTimeoutMs);  // really running
    QTest::keyClick(window_.get(), Qt::Key_Escape);  // the Cancel shortcut
    QVERIFY(cancelled.wait(kTimeoutMs));
    QCOMPARE(finished.count(), 0);
    QVERIFY(!window_->workbench()->isBusy());
    QVERIFY(window_->runner()->runAction()->isEnabled());
    QCOMPARE(window_->workbench()->lastReport(), before);  // the previous results stay on screen
    QCOMPARE(layers()->tableModel()->rowCount(), kLayers);
    window_->runner()->optionsBar()->setRuns(kRuns);
}

void MainWindowTest::runsOnTheChosenBackend() {
    RunOptionsBar* bar = window_->runner()->optionsBar();
    bar->setBackend(QStringLiteral("reference"));
    QVERIFY(!bar->threadsBox()->isEnabled());  // the reference kernels are single-threaded
    QSignalSpy finished(window_->runner(), &RunController::runFinished);
    window_->runner()->startRun();
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(window_->workbench()->lastReport()->environment.backend, std::string("reference"));
    QCOMPARE(window_->workbench()->lastReport()->environment.threads, int64_t(1));
    QVERIFY2(lastRunBackend().startsWith(QStringLiteral("reference, 1 thread")), qPrintable(lastRunBackend()));

    // Contexts and a batch: concurrent contexts sharing the backend's weights, each slice a run.
    bar->setBackend(QStringLiteral("auto"));
    bar->setBatch(4);
    bar->setContexts(2);
    window_->runner()->startRun();
    QVERIFY(finished.wait(kTimeoutMs));
    const auto contexts = window_->workbench()->lastReport();
    QVERIFY(contexts->runtime.has_value());
    QCOMPARE(contexts->runtime->contexts.size(), size_t(2));
    QCOMPARE(contexts->runtime->batch, int64_t(4));
    QCOMPARE(contexts->traces.size(), size_t(1));
    QCOMPARE(contexts->traces[0].events.size(), size_t(4 * contexts->run.runs));
    bar->setBatch(1);
    bar->setContexts(0);

    // A backend that is gone since the setting was saved falls back to "auto".
    bar->setBackend(QStringLiteral("no-such-backend"));
    QCOMPARE(bar->options().executor.backend, std::string(npuwb::kAutoBackend));
    QVERIFY(bar->threadsBox()->isEnabled());
}

void MainWindowTest::badFileShowsErrorNamingIt() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("not-a-model.onnx"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("this is not protobuf");
    file.close();

    QSignalSpy failed(window_->workbench(), &Workbench::operationFailed);
    window_->openModel(path);
    QVERIFY(failed.wait(kTimeoutMs));
    QVERIFY2(failed.first().first().toString().contains(QStringLiteral("not-a-model.onnx")),
             qPrintable(failed.first().first().toString()));
    auto* box = window_->findChild<QMessageBox*>(QStringLiteral("errorMessageBox"));
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QVERIFY(box->text().contains(QStringLiteral("not-a-model.onnx")));
    box->accept();
    // The previous model and its results are untouched.
    QVERIFY(window_->workbench()->hasModel());
    QCOMPARE(layers()->tableModel()->rowCount(), kLayers);
}

void MainWindowTest::droppingAModelOpensIt() {
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(QStringLiteral(NPUWB_GUI_TEST_MODEL))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(window_.get(), &enter);
    QVERIFY(enter.isAccepted());
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(window_.get(), &drop);
    QVERIFY(loaded.wait(kTimeoutMs));
    QCOMPARE(layers()->tableModel()->rowCount(), kLayers);
    QVERIFY(!layers()->tableModel()->isTimed());  // a fresh model: results of the old one are gone

    // A compiled model (.rknn, claimed by the rknpu runtime plugin) is accepted too; a text file is not.
    for (const auto& [name, accepted] : {std::pair{"model.rknn", true}, std::pair{"notes.txt", false}}) {
        QMimeData other;
        other.setUrls({QUrl::fromLocalFile(QDir::temp().filePath(QString::fromLatin1(name)))});
        QDragEnterEvent otherEnter(QPoint(10, 10), Qt::CopyAction, &other, Qt::LeftButton, Qt::NoModifier);
        otherEnter.setAccepted(false);
        QCoreApplication::sendEvent(window_.get(), &otherEnter);
        QCOMPARE(otherEnter.isAccepted(), accepted);
    }
}

void MainWindowTest::importsAVendorLogAsARun() {
    QVERIFY(window_->files()->importVendorLog(QStringLiteral(NPUWB_RKNN_LOG)));
    const npuwb::Report* report = window_->workbench()->lastReport();
    QVERIFY(report);
    QCOMPARE(report->environment.backend, std::string("rknpu"));
    const int rows = int(report->layers.size());
    QCOMPARE(rows, 108);  // every row of the vendor's table
    QVERIFY(layers()->tableModel()->isTimed());
    QCOMPARE(layers()->tableModel()->rowCount(), rows);
    QCOMPARE(layers()->timeChart()->barCount(), rows);
    // the vendor's perf columns: cycles DDR/NPU/total and MacUsage, shown because the log has them
    QVERIFY(layers()->tableModel()->hasVendorColumns());
    QVERIFY(!layers()->tableView()->tableView()->isColumnHidden(LayerTableModel::CyclesColumn));
    QVERIFY(layers()->tableModel()->index(0, LayerTableModel::CyclesColumn).data().toString().contains(QLatin1Char('/')));
    QVERIFY(lastRunBackend().startsWith(QStringLiteral("rknpu")));
    QVERIFY(window_->files()->exportAction()->isEnabled());

    // A damaged log: an error naming the file, the shown run untouched.
    QTemporaryDir dir;
    const QString damaged = dir.filePath(QStringLiteral("damaged.txt"));
    QFile file(damaged);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("not an RKNN perf log\n");
    file.close();
    QSignalSpy failed(window_->workbench(), &Workbench::operationFailed);
    QVERIFY(!window_->files()->importVendorLog(damaged));
    QCOMPARE(failed.count(), 1);
    QVERIFY2(failed.first().first().toString().contains(QStringLiteral("damaged.txt")),
             qPrintable(failed.first().first().toString()));
    QCOMPARE(window_->workbench()->lastReport(), report);
    if (auto* box = window_->findChild<QMessageBox*>(QStringLiteral("errorMessageBox"))) box->accept();
}

void MainWindowTest::npuBoxesFillModelRunOptions() {
    RunOptionsBar* bar = window_->runner()->optionsBar();
    QSpinBox* batch = bar->batchBox();
    QCOMPARE(batch->objectName(), QStringLiteral("batchBox"));
    QCOMPARE(batch->minimum(), 1);
    QCOMPARE(batch->maximum(), 64);
    QVERIFY2(batch->toolTip().contains(QStringLiteral("round-robin")) && batch->toolTip().contains(QStringLiteral(">= 3 -> 3")),
             qPrintable(batch->toolTip()));
    // The defaults are the runtime's: one sample, contexts from it.
    QCOMPARE(bar->modelRunOptions().batch, 1);
    QCOMPARE(bar->modelRunOptions().contexts, 0);
    // An ONNX model is open: the NPU core mask does not apply to it (nor show: the CPU boxes do); contexts and batch
    // do (concurrent contexts on the CPU backends).
    QVERIFY(window_->workbench()->hasOnnxModel());
    QVERIFY(batch->isEnabled() && bar->contextsBox()->isEnabled() && !bar->coreMaskBox()->isEnabled());
    QTRY_VERIFY(batch->isVisible() && bar->contextsBox()->isVisible() && !bar->coreMaskBox()->isVisible() &&
                bar->backendBox()->isVisible());
    QCOMPARE(window_->width(), 1400);  // the window's default: the toolbar rows must fit it
    QVERIFY(bar->targetBox()->isVisible());

    batch->setValue(4);  // what typing into the box does
    bar->contextsBox()->setValue(3);
    bar->coreMaskBox()->setCurrentText(QStringLiteral("0_1"));
    npuwb::ModelRunOptions options = bar->modelRunOptions();
    QCOMPARE(options.batch, 4);
    QCOMPARE(options.contexts, 3);
    QCOMPARE(options.coreMask, npuwb::NpuCoreMask::Cores01);
    QCOMPARE(options.runs, bar->options().runs);

    // Each context runs whole slices, so a smaller batch takes the contexts down with it (the runtime refuses more).
    batch->setValue(2);
    QCOMPARE(bar->contextsBox()->maximum(), 2);
    QCOMPARE(bar->modelRunOptions().contexts, 2);
    batch->setValue(64);
    QCOMPARE(bar->contextsBox()->maximum(), 3);
    QCOMPARE(bar->modelRunOptions().batch, 64);

    bar->setBatch(1);
    bar->setContexts(0);
    bar->setCoreMask(npuwb::NpuCoreMask::Auto);
    QCOMPARE(bar->modelRunOptions().coreMask, npuwb::NpuCoreMask::Auto);
}

void MainWindowTest::compiledModelTurnsOffOnnxActions() {
    // The window reads nothing of a compiled model but its name (the board's runtime reports the rest): any bytes do.
    QTemporaryDir dir;
    const QString rknn = dir.filePath(QStringLiteral("compiled.rknn"));
    QFile file(rknn);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("not read by the window\n");
    file.close();
    QCOMPARE(npuwb::modelRuntimeForFile(rknn.toStdString()), std::string("rknpu"));  // the plugin claims .rknn
    Workbench* workbench = window_->workbench();
    QSignalSpy loaded(workbench, &Workbench::modelLoaded);
    window_->openModel(rknn);
    QVERIFY(loaded.wait(kTimeoutMs));
    QVERIFY(workbench->hasCompiledModel());

    const QString reason = npuwb::ui::onnxOnlyReason();
    QCOMPARE(reason, QStringLiteral("needs an ONNX model; .rknn files run as compiled"));
    for (QAction* action : onnxOnlyActions()) {
        QVERIFY2(!action->isEnabled(), qPrintable(action->text()));
        QVERIFY2(action->toolTip().contains(reason), qPrintable(action->text() + QLatin1String(": ") + action->toolTip()));
        QVERIFY2(action->statusTip().contains(reason), qPrintable(action->statusTip()));
    }
    const QString status = window_->findChild<QLabel*>(QStringLiteral("statusText"))->text();
    QVERIFY2(status.contains(QStringLiteral("need an ONNX model")), qPrintable(status));
    QVERIFY2(window_->view<EstimateView>()->totalsLabel()->text().contains(reason),
             qPrintable(window_->view<EstimateView>()->totalsLabel()->text()));
    // The Run toolbar: the NPU boxes apply and show, the CPU backend and threads do not.
    RunOptionsBar* bar = window_->runner()->optionsBar();
    QVERIFY(bar->batchBox()->isEnabled() && bar->contextsBox()->isEnabled() && bar->coreMaskBox()->isEnabled());
    QVERIFY(!bar->backendBox()->isEnabled() && !bar->threadsBox()->isEnabled());
    // (The toolbar lays out on its next turn; a box that did not fit would be hidden in its overflow menu.)
    QTRY_VERIFY(bar->batchBox()->isVisible() && bar->contextsBox()->isVisible() && bar->coreMaskBox()->isVisible());
    QVERIFY(bar->targetBox()->isVisible());
    QVERIFY(!bar->backendBox()->isVisible() && !bar->threadsBox()->isVisible());

    // Their shortcuts do nothing: no job, no error box, no dialog. (Shortcuts go to the active window only; the
    // error boxes of the tests above took that away.)
    window_->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(window_.get()));
    QSignalSpy failed(workbench, &Workbench::operationFailed);
    QSignalSpy estimated(window_->view<EstimateView>(), &EstimateView::estimateShown);
    for (const QKeySequence& keys : {QKeySequence(Qt::Key_F6), QKeySequence(Qt::Key_F7), QKeySequence(Qt::Key_F8),
                                     QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Q)}) {
        QTest::keySequence(window_.get(), keys);
        QVERIFY2(!workbench->isBusy(), qPrintable(keys.toString()));
    }
    QTest::qWait(200);  // a job started anyway would have reported by now
    QCOMPARE(failed.count(), 0);
    QCOMPARE(estimated.count(), 0);
    QVERIFY(!showsA<QMessageBox>(QStringLiteral("errorMessageBox")));
    QVERIFY(!showsA<QuantizeDialog>());
    // Nor do the calls behind them.
    QVERIFY(!window_->files()->saveModelAs(dir.filePath(QStringLiteral("out.onnx"))));
    QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("out.onnx"))));
    QVERIFY(!window_->files()->openConvertRknnDialog());
    QVERIFY(!window_->view<AccuracyView>()->openQuantizeDialog());
    window_->view<EstimateView>()->startEstimate();
    QVERIFY(!workbench->isBusy());

    // An ONNX model brings them back with their own tips, and F6 estimates again (so the presses above were heard).
    window_->openModel(QStringLiteral(NPUWB_GUI_TEST_MODEL));
    QVERIFY(loaded.wait(kTimeoutMs));
    QVERIFY(workbench->hasOnnxModel());
    const bool devices = window_->findChild<QComboBox*>(QStringLiteral("timelineDevice"))->count() > 0;
    for (QAction* action : onnxOnlyActions()) {
        const bool needsMore = action == window_->view<SuggestionsView>()->applyAction() ||  // a finding with a fix
                               (action == window_->view<TimelineView>()->partitionAction() && !devices);
        QVERIFY2(action->isEnabled() != needsMore, qPrintable(action->text()));
        QVERIFY2(!action->toolTip().contains(reason), qPrintable(action->toolTip()));
        QVERIFY2(!action->statusTip().contains(reason), qPrintable(action->statusTip()));
    }
    QVERIFY(!bar->coreMaskBox()->isEnabled() && bar->batchBox()->isEnabled());  // contexts and batch apply to ONNX too
    QTRY_VERIFY(!bar->coreMaskBox()->isVisible() && bar->backendBox()->isVisible() && bar->targetBox()->isVisible());
    QVERIFY(QTest::qWaitForWindowActive(window_.get()));
    QTest::keyClick(window_.get(), Qt::Key_F6);
    QVERIFY(estimated.wait(kTimeoutMs));
    QCOMPARE(failed.count(), 0);
}

void MainWindowTest::layerIdsStayThroughARun() {
    // The sample with an Identity on a weight first in the file: the run bypasses it (an exact rewrite), so it has
    // one step less than the model has nodes. Every row keeps the ID it had before the run; the Identity keeps its
    // row, marked removed, instead of every later node moving up by one.
    npuwb::Model model = npuwb::loadModel(NPUWB_GUI_TEST_MODEL);
    std::string weight;
    for (auto& node : model.graph.nodes)
        for (std::string& input : node.inputs)
            if (weight.empty() && model.graph.initializers.count(input)) {
                weight = input;
                input += "_through_identity";
            }
    QVERIFY(!weight.empty());
    npuwb::Node identity;
    identity.name = "weight_identity";
    identity.opType = "Identity";
    identity.inputs = {weight};
    identity.outputs = {weight + "_through_identity"};
    model.graph.nodes.insert(model.graph.nodes.begin(), identity);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("with_identity.onnx"));
    npuwb::saveModel(model, path.toStdString());

    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    window_->openModel(path);
    QVERIFY(loaded.wait(kTimeoutMs));
    LayerTableModel* table = layers()->tableModel();
    QCOMPARE(table->rowCount(), kLayers + 1);
    std::map<std::string, int64_t> before;
    for (const auto& row : table->layers()) before[row.fullName] = row.id;
    QCOMPARE(before.at("weight_identity"), 0);

    QSignalSpy finished(window_->runner(), &RunController::runFinished);
    window_->runner()->startRun();
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(table->isTimed());
    const npuwb::Report* report = window_->workbench()->lastReport();
    QCOMPARE(int(report->layers.size()), kLayers);
    QCOMPARE(table->rowCount(), kLayers + 1);  // the run's rows and the removed Identity
    std::set<int64_t> ids;
    for (int row = 0; row < table->rowCount(); ++row) {
        const npuwb::LayerRow& layer = table->layers()[size_t(row)];
        QVERIFY2(ids.insert(layer.id).second, qPrintable(QStringLiteral("ID %1 twice").arg(layer.id)));
        QVERIFY2(before.count(layer.fullName), layer.fullName.c_str());
        QCOMPARE(layer.id, before.at(layer.fullName));
        if (layer.fullName == "weight_identity") {
            QVERIFY(!table->removedBy(row).empty());
            QCOMPARE(table->index(row, LayerTableModel::TimeColumn).data().toString(), QStringLiteral("removed"));
        } else {
            QVERIFY(table->removedBy(row).empty());
        }
    }
    // The selection names layers by the same IDs.
    QCOMPARE(window_->workbench()->selection()->layerOfNode(QStringLiteral("weight_identity")), 0);
}

void MainWindowTest::remembersRunOptionsAndView() {
    RunOptionsBar* bar = window_->runner()->optionsBar();
    bar->setBackend(QStringLiteral("reference"));
    bar->setThreads(3);
    bar->setRuns(7);
    bar->setCoreMask(npuwb::NpuCoreMask::Cores012);
    bar->setBatch(5);
    bar->setContexts(2);
    QVERIFY(window_->setCurrentView(QStringLiteral("boards")));
    window_->close();  // saves the settings
    testers_.clear();
    window_ = std::make_unique<MainWindow>();
    bar = window_->runner()->optionsBar();
    QCOMPARE(bar->options().executor.backend, std::string(npuwb::kReferenceBackend));
    QCOMPARE(bar->options().executor.threads, 3);
    QCOMPARE(bar->options().runs, 7);
    // the compiled-model options too, the mask by its --core-mask word
    QCOMPARE(QSettings().value(QStringLiteral("run/coreMask")).toString(), QStringLiteral("0_1_2"));
    const npuwb::ModelRunOptions npu = bar->modelRunOptions();
    QCOMPARE(npu.coreMask, npuwb::NpuCoreMask::Cores012);
    QCOMPARE(npu.batch, 5);
    QCOMPARE(npu.contexts, 2);
    QCOMPARE(npu.runs, 7);
    QCOMPARE(window_->findChild<QTabWidget*>(QStringLiteral("viewTabs"))->currentWidget(), window_->view(QStringLiteral("boards")));
    QSettings().clear();
}

void MainWindowTest::cleanupTestCase() {
    testers_.clear();
    window_.reset();
}

QTEST_MAIN(MainWindowTest)
#include "gui_mainwindow_test.moc"
