// The Timeline view on a real model (MobileNetV2) with the local two-core device profile (cpu-onednn pinned to CPU 0,
// cpu-xnnpack to CPU 1): the partition runs on the worker with progress, the pipelined schedule's predicted and
// measured timelines have a bar for every stage, lane and frame (and visible waits), hovering and clicking a bar work,
// the placement table is tested under QAbstractItemModelTester and follows the shared selection, Cancel stops a long
// run, and the device, schedules and frames are remembered. Runs offscreen.
// The pipelined run plans on a copy of that profile with modelled costs: the plan measured on a loaded machine (ctest
// runs tests side by side) may rightly keep the model on one core, and the drawing of a split is what is tested here.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <qcustomplot.h>

#include <set>

#include "core/Workbench.h"
#include "jobs/PartitionJob.h"
#include "models/LayerSelection.h"
#include "models/PartitionTableModel.h"
#include "shell/MainWindow.h"
#include "views/timeline/GanttChart.h"
#include "views/timeline/TimelineView.h"

using namespace npuwb::ui;
using Source = GanttChart::Source;

namespace {
constexpr int kRunTimeoutMs = 240000;  // calibrating two units on a shared machine
constexpr int kFrames = 4;
const QString kModel = QStringLiteral(NPUWB_MODELS_DIR "/mobilenet_v2.onnx");
const QString kModelledDevice = QStringLiteral("two-cores-modelled");

/// local-2core's workers with roofline costs of two equal units: the balanced plan splits the model in two stages
/// whatever the load, and the schedules still run (and are measured) on the pinned workers.
QByteArray modelledTwoCoreProfile() {
    const char* unit = R"({"name": "%1", "kind": "cpu", "costs": "roofline", "gmacsPerSecond": 10,
        "gbytesPerSecond": 10, "opOverheadUs": 2,
        "affinity": {"gemm": "excellent", "conv": "excellent", "elementwise": "excellent", "activation": "excellent",
                     "softmax": "excellent", "reduce": "excellent", "control": "excellent", "reorganize": "excellent"},
        "executor": {"backend": "%2", "cpus": [%3], "threads": 1}})";
    const QString core0 = QString::fromLatin1(unit).arg(QStringLiteral("core0-onednn"), QStringLiteral("cpu-onednn"),
                                                        QStringLiteral("0"));
    const QString core1 = QString::fromLatin1(unit).arg(QStringLiteral("core1-xnnpack"), QStringLiteral("cpu-xnnpack"),
                                                        QStringLiteral("1"));
    return QStringLiteral(R"({"schema": "npuwb-device-profile", "schemaVersion": 1, "name": "two cores, modelled",
        "affinityFactors": {"excellent": 1.0}, "units": [%1, %2], "transfer": {"syncUs": 20, "gbytesPerSecond": 0}})")
        .arg(core0, core1)
        .toUtf8();
}

void sendMouse(QWidget* widget, QEvent::Type type, const QPoint& pos, Qt::MouseButton button) {
    const Qt::MouseButtons held = type == QEvent::MouseButtonPress ? Qt::MouseButtons(button) : Qt::NoButton;
    QMouseEvent event(type, QPointF(pos), QPointF(widget->mapToGlobal(pos)), button, held, Qt::NoModifier);
    QApplication::sendEvent(widget, &event);
}
}  // namespace

class TimelineViewTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void listsDeviceProfiles();
    void pipelinedRunDrawsEveryLaneAndFrameInBothTimelines();
    void hoveringABarDescribesIt();
    void clickingABarSelectsItsStageEverywhere();
    void followsTheSharedSelection();
    void savesTheReportAsJson();
    void cancelStopsARun();
    void remembersDeviceScheduleAndFrames();
    void cleanupTestCase();

private:
    TimelineView* view() const { return window_->view<TimelineView>(); }

    QTemporaryDir devices_;
    std::unique_ptr<MainWindow> window_;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers_;
};

void TimelineViewTest::initTestCase() {
    if (!QFileInfo::exists(kModel)) QSKIP("tests/data/models/mobilenet_v2.onnx is missing (scripts/fetch-models.sh)");
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_timeline_test"));
    QSettings().clear();  // the defaults, whatever an earlier run saved
    QVERIFY(devices_.isValid());
    QFile profile(devices_.filePath(kModelledDevice + QStringLiteral(".json")));
    QVERIFY(profile.open(QIODevice::WriteOnly));
    QVERIFY(profile.write(modelledTwoCoreProfile()) > 0);
    profile.close();
    qputenv("NPUWB_DEVICES_DIR", QFile::encodeName(devices_.path()));
    window_ = std::make_unique<MainWindow>();
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QVERIFY(view());
    const auto mode = QAbstractItemModelTester::FailureReportingMode::QtTest;
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(view()->model(), mode));
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(view()->proxy(), mode));
    QVERIFY(!view()->partitionAction()->isEnabled());  // no model yet
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    window_->openModel(kModel);
    QVERIFY(loaded.wait(60000));
    QVERIFY(window_->setCurrentView(QStringLiteral("timeline")));
}

void TimelineViewTest::listsDeviceProfiles() {
    QComboBox* devices = view()->deviceBox();
    QVERIFY(devices->findText(QStringLiteral("local-2core")) >= 0);
    QVERIFY(devices->findText(QStringLiteral("rk3588")) >= 0);
    QCOMPARE(devices->currentText(), QStringLiteral("local-2core"));  // the default: runs on this machine
}

void TimelineViewTest::pipelinedRunDrawsEveryLaneAndFrameInBothTimelines() {
    view()->deviceBox()->setCurrentText(kModelledDevice);
    QCOMPARE(view()->deviceBox()->currentText(), kModelledDevice);
    view()->scheduleBox()->setCurrentIndex(view()->scheduleBox()->findData(QStringLiteral("pipelined")));
    view()->framesBox()->setValue(kFrames);
    QSignalSpy shown(view(), &TimelineView::partitionShown);
    QSignalSpy progress(view()->job(), &PartitionJob::progress);
    view()->partitionAction()->trigger();
    QVERIFY(window_->workbench()->isBusy());
    QVERIFY(view()->cancelAction()->isEnabled());
    QVERIFY(!view()->partitionAction()->isEnabled());
    QVERIFY(shown.wait(kRunTimeoutMs));
    QVERIFY(!window_->workbench()->isBusy());
    QVERIFY(!progress.isEmpty());

    const npuwb::Report* report = view()->report();
    QVERIFY(report && report->partition);
    const npuwb::PartitionSection& p = *report->partition;
    QVERIFY(p.stages.size() >= 2);  // a split: the point of a pipeline
    QCOMPARE(p.schedules.size(), size_t(1));
    QCOMPARE(p.schedules[0].schedule, std::string("pipelined"));
    QVERIFY(p.schedules[0].measured.has_value());
    QCOMPARE(view()->shownScheduleBox()->currentText(), QStringLiteral("pipelined"));
    QVERIFY(view()->summaryLabel()->text().contains(QStringLiteral("pipelined")));

    // The placement table: every node once, each on a unit of the device, in a stage.
    QCOMPARE(view()->model()->rowCount(), int(p.assignments.size()));
    for (int row = 0; row < view()->model()->rowCount(); ++row) QVERIFY(view()->model()->stageOfRow(row) >= 0);

    std::set<std::string> units;
    for (const auto& s : p.stages) units.insert(s.unit);
    for (Source source : {Source::Predicted, Source::Measured}) {
        const npuwb::Trace& trace = view()->chart()->timeline(source);
        QCOMPARE(trace.name, std::string("pipelined"));
        QCOMPARE(trace.source, std::string(source == Source::Predicted ? "predicted" : "measured"));
        for (const std::string& unit : units)
            QVERIFY2(std::find(trace.lanes.begin(), trace.lanes.end(), unit) != trace.lanes.end(), unit.c_str());
        // One bar per stage and frame, on its unit's lane, hittable where it is drawn.
        int waits = 0;
        for (const auto& stage : p.stages)
            for (int frame = 0; frame < kFrames; ++frame) {
                int bars = 0;
                for (const npuwb::TraceEvent& e : trace.events) {
                    if (e.name != stage.name || e.frame != frame) continue;
                    ++bars;
                    QCOMPARE(e.lane, stage.unit);
                    QVERIFY(e.endUs > e.startUs);
                    Source at = Source::Predicted;
                    const npuwb::TraceEvent* hit = view()->chart()->eventAt(view()->chart()->centreOf(source, e), &at);
                    QVERIFY2(hit, qPrintable(GanttChart::describe(e)));
                    QVERIFY(at == source);
                    QCOMPARE(hit->lane, e.lane);
                    // A bar a few pixels wide is itself under its centre; a thinner one may share its pixel.
                    QCPAxis* time = view()->chart()->axisRect(source)->axis(QCPAxis::atBottom);
                    if (time->coordToPixel(e.endUs / 1000) - time->coordToPixel(e.startUs / 1000) >= 3) QCOMPARE(hit, &e);
                    if (e.readyUs && e.startUs > *e.readyUs) ++waits;
                }
                QCOMPARE(bars, 1);
            }
        // Several frames in flight on one unit: a frame waits for the lane, and the chart draws the wait.
        QVERIFY(waits > 0);
        for (const std::string& unit : units)
            for (int frame = 0; frame < kFrames; ++frame)
                QVERIFY(std::any_of(trace.events.begin(), trace.events.end(),
                                    [&](const npuwb::TraceEvent& e) { return e.lane == unit && e.frame == frame; }));
    }
    // One time axis for both.
    const QCPRange predictedRange = view()->chart()->axisRect(Source::Predicted)->axis(QCPAxis::atBottom)->range();
    const QCPRange measuredRange = view()->chart()->axisRect(Source::Measured)->axis(QCPAxis::atBottom)->range();
    QCOMPARE(predictedRange.lower, measuredRange.lower);
    QCOMPARE(predictedRange.upper, measuredRange.upper);
    view()->chart()->axisRect(Source::Measured)->axis(QCPAxis::atBottom)->setRange(0, predictedRange.upper / 2);
    QCOMPARE(view()->chart()->axisRect(Source::Predicted)->axis(QCPAxis::atBottom)->range().upper,
             predictedRange.upper / 2);
    view()->chart()->axisRect(Source::Measured)->axis(QCPAxis::atBottom)->setRange(predictedRange);
}

void TimelineViewTest::hoveringABarDescribesIt() {
    const npuwb::Trace& measured = view()->chart()->timeline(Source::Measured);
    QVERIFY(!measured.events.empty());
    const npuwb::TraceEvent& last = measured.events.back();
    const QPoint at = view()->chart()->centreOf(Source::Measured, last);
    const npuwb::TraceEvent* hit = view()->chart()->eventAt(at);
    QVERIFY(hit);
    sendMouse(view()->chart()->plot(), QEvent::MouseMove, at, Qt::NoButton);
    const QString text = view()->hoverLabel()->text();
    QVERIFY2(text.contains(QString::fromStdString(hit->name)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("frame %1").arg(hit->frame)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("→")), qPrintable(text));
    // Off every bar: the hint again.
    sendMouse(view()->chart()->plot(), QEvent::MouseMove, QPoint(2, 2), Qt::NoButton);
    QVERIFY(!view()->hoverLabel()->text().contains(QStringLiteral("→")));
}

void TimelineViewTest::clickingABarSelectsItsStageEverywhere() {
    const npuwb::PartitionSection& p = *view()->report()->partition;
    const npuwb::PartitionStage& stage = p.stages.back();
    const npuwb::Trace& predicted = view()->chart()->timeline(Source::Predicted);
    const auto bar = std::find_if(predicted.events.begin(), predicted.events.end(),
                                  [&](const npuwb::TraceEvent& e) { return e.name == stage.name; });
    QVERIFY(bar != predicted.events.end());
    const QPoint at = view()->chart()->centreOf(Source::Predicted, *bar);
    sendMouse(view()->chart()->plot(), QEvent::MouseButtonPress, at, Qt::LeftButton);
    sendMouse(view()->chart()->plot(), QEvent::MouseButtonRelease, at, Qt::LeftButton);
    QStringList nodes;
    for (const std::string& n : stage.nodes) nodes << QString::fromStdString(n);
    QCOMPARE(window_->workbench()->selection()->selectedNodes(), nodes);
    QCOMPARE(view()->chart()->highlightedStage(), stage.id);
    const QModelIndexList rows = view()->table()->selectionModel()->selectedRows();
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.first().siblingAtColumn(PartitionTableModel::NodeColumn).data().toString(), nodes.first());
}

void TimelineViewTest::followsTheSharedSelection() {
    const npuwb::PartitionSection& p = *view()->report()->partition;
    const npuwb::PartitionStage& stage = p.stages.front();
    const QString node = QString::fromStdString(stage.nodes.back());
    window_->workbench()->selection()->selectNodes({node});
    QCOMPARE(view()->chart()->highlightedStage(), stage.id);
    const QModelIndexList rows = view()->table()->selectionModel()->selectedRows();
    QCOMPARE(rows.size(), 1);
    QCOMPARE(rows.first().siblingAtColumn(PartitionTableModel::NodeColumn).data().toString(), node);
    // Clicking a row selects its node everywhere.
    const int last = view()->proxy()->rowCount() - 1;
    const QModelIndex cell = view()->proxy()->index(last, PartitionTableModel::NodeColumn);
    view()->table()->scrollTo(cell);
    QTest::mouseClick(view()->table()->viewport(), Qt::LeftButton, {}, view()->table()->visualRect(cell).center());
    QCOMPARE(window_->workbench()->selection()->selectedNodes(), QStringList{cell.data().toString()});
    window_->workbench()->selection()->clear();
    QCOMPARE(view()->chart()->highlightedStage(), int64_t(-1));
}

void TimelineViewTest::savesTheReportAsJson() {
    QVERIFY(view()->saveAction()->isEnabled());
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("partition.json"));
    QVERIFY(view()->saveReportTo(path));
    const npuwb::Report saved = npuwb::loadReport(path.toStdString());
    QCOMPARE(saved.kind, std::string("partition"));
    QVERIFY(saved.partition.has_value());
    QCOMPARE(saved.partition->stages.size(), view()->report()->partition->stages.size());
    QCOMPARE(saved.traces.size(), view()->report()->traces.size());
    QSignalSpy failed(window_->workbench(), &Workbench::operationFailed);
    QVERIFY(!view()->saveReportTo(dir.filePath(QStringLiteral("missing/folder/partition.json"))));
    QCOMPARE(failed.size(), 1);
    QVERIFY(failed.first().first().toString().contains(QStringLiteral("missing/folder")));
    auto* box = window_->findChild<QMessageBox*>(QStringLiteral("errorMessageBox"));
    QVERIFY(box);
    box->close();  // it is window-modal
}

void TimelineViewTest::cancelStopsARun() {
    const npuwb::Report* before = view()->report();
    view()->framesBox()->setValue(5000);
    QSignalSpy cancelled(view()->job(), &PartitionJob::cancelled);
    QSignalSpy progress(view()->job(), &PartitionJob::progress);
    view()->partitionAction()->trigger();
    QVERIFY(view()->job()->isRunning());
    QVERIFY(progress.wait(kRunTimeoutMs));  // it is under way
    view()->cancelAction()->trigger();
    QVERIFY(cancelled.wait(kRunTimeoutMs));
    QVERIFY(!view()->job()->isRunning());
    QVERIFY(!window_->workbench()->isBusy());
    QVERIFY(view()->partitionAction()->isEnabled());
    QCOMPARE(view()->report(), before);  // the last result stays on screen
    view()->framesBox()->setValue(kFrames);
}

void TimelineViewTest::remembersDeviceScheduleAndFrames() {
    view()->deviceBox()->setCurrentText(QStringLiteral("rk3588"));
    view()->scheduleBox()->setCurrentIndex(view()->scheduleBox()->findData(QStringLiteral("serial")));
    view()->framesBox()->setValue(37);
    {
        QSettings settings;
        settings.beginGroup(QStringLiteral("views/timeline"));
        view()->saveSettings(settings);
    }
    view()->deviceBox()->setCurrentText(QStringLiteral("local-2core"));
    view()->scheduleBox()->setCurrentIndex(0);
    view()->framesBox()->setValue(3);
    QSettings settings;
    settings.beginGroup(QStringLiteral("views/timeline"));
    view()->restoreSettings(settings);
    QCOMPARE(view()->deviceBox()->currentText(), QStringLiteral("rk3588"));
    QCOMPARE(view()->scheduleBox()->currentData().toString(), QStringLiteral("serial"));
    QCOMPARE(view()->framesBox()->value(), 37);
}

void TimelineViewTest::cleanupTestCase() {
    testers_.clear();
    window_.reset();
    QSettings().clear();
}

QTEST_MAIN(TimelineViewTest)
#include "gui_timeline_test.moc"
