// The npuwb main window on a real (torch-exported) model: open, inspect, run on the worker, sort, select
// across views, export, cancel, and fail cleanly on a bad file. Runs offscreen.
#include <QAbstractItemModelTester>
#include <QFileInfo>
#include <QLabel>
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

#include "core/Workbench.h"
#include "models/LayerSelection.h"
#include "models/LayerTableModel.h"
#include "models/ModelInfoModel.h"
#include "npuwb/Session.h"
#include "run/RunController.h"
#include "run/RunOptionsBar.h"
#include "shell/FileActions.h"
#include "shell/MainWindow.h"
#include "shell/ModelInfoPanel.h"
#include "views/layers/LayerTableView.h"
#include "views/layers/LayerTimeChart.h"
#include "views/layers/LayersView.h"

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
    void remembersRunOptionsAndView();
    void cleanupTestCase();

private:
    LayersView* layers() const { return window_->view<LayersView>(); }
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
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
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
    QCOMPARE(table->rowCount(), kLayers);
    QCOMPARE(layers()->timeChart()->barCount(), kLayers);
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
    QCOMPARE(layers()->timeChart()->barCount(), kLayers);
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

void MainWindowTest::remembersRunOptionsAndView() {
    RunOptionsBar* bar = window_->runner()->optionsBar();
    bar->setBackend(QStringLiteral("reference"));
    bar->setThreads(3);
    bar->setRuns(7);
    QVERIFY(window_->setCurrentView(QStringLiteral("boards")));
    window_->close();  // saves the settings
    testers_.clear();
    window_ = std::make_unique<MainWindow>();
    bar = window_->runner()->optionsBar();
    QCOMPARE(bar->options().executor.backend, std::string(npuwb::kReferenceBackend));
    QCOMPARE(bar->options().executor.threads, 3);
    QCOMPARE(bar->options().runs, 7);
    QCOMPARE(window_->findChild<QTabWidget*>(QStringLiteral("viewTabs"))->currentWidget(), window_->view(QStringLiteral("boards")));
    QSettings().clear();
}

void MainWindowTest::cleanupTestCase() {
    testers_.clear();
    window_.reset();
}

QTEST_MAIN(MainWindowTest)
#include "gui_mainwindow_test.moc"
