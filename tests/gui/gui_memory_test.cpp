// The Memory view, the Timeline of a run and the Input Shapes dialog on real models: a resnet18 run draws one
// rectangle per planned tensor with the peak step and the live bytes (the tensor table under
// QAbstractItemModelTester), clicking a rectangle selects the layer that makes it and the view follows the shared
// selection; a run with two contexts gives the Timeline two lanes; PP-OCRv4 det (symbolic dims) asks for its input
// shapes before Estimate, the estimate uses them (the engine's figure at 480x480) and they are remembered for the
// file. With NPUWB_SCREENSHOT_DIR set it saves mem-memory.png, mem-timeline-contexts.png, mem-shapes-dialog.png.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTest>
#include <qcustomplot.h>

#include <algorithm>
#include <set>

#include "core/Workbench.h"
#include "dialogs/InputShapesDialog.h"
#include "models/Format.h"
#include "models/LayerSelection.h"
#include "models/ModelInfoModel.h"
#include "models/TensorLifetimeModel.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/CostModel.h"
#include "npuwb/ModelIO.h"
#include "run/RunController.h"
#include "run/RunOptionsBar.h"
#include "shell/MainWindow.h"
#include "shell/ModelInfoPanel.h"
#include "views/estimate/EstimateView.h"
#include "views/suggestions/SuggestionsView.h"
#include "views/memory/LifetimeChart.h"
#include "views/memory/MemoryBreakdownChart.h"
#include "views/layers/LayersView.h"
#include "views/memory/MemoryView.h"
#include "views/timeline/GanttChart.h"
#include "views/timeline/TimelineView.h"

using namespace npuwb::ui;

namespace {
constexpr int kRunTimeoutMs = 240000;
const QString kResnet = QStringLiteral(NPUWB_MODELS_DIR "/resnet18.onnx");
const QString kDetector = QStringLiteral(NPUWB_MODELS_DIR "/ch_PP-OCRv4_det_infer.onnx");

void sendMouse(QWidget* widget, QEvent::Type type, const QPoint& pos) {
    const Qt::MouseButtons held = type == QEvent::MouseButtonPress ? Qt::LeftButton : Qt::NoButton;
    QMouseEvent event(type, QPointF(pos), QPointF(widget->mapToGlobal(pos)), Qt::LeftButton, held, Qt::NoModifier);
    QApplication::sendEvent(widget, &event);
}

void screenshot(QWidget* w, const QString& name) {
    const QByteArray dir = qgetenv("NPUWB_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QTest::qWait(300);  // let charts replot
    QVERIFY(w->grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name));
}

InputShapesDialog* openShapesDialog() {
    for (QWidget* w : QApplication::topLevelWidgets())
        if (auto* d = qobject_cast<InputShapesDialog*>(w); d && d->isVisible()) return d;
    return nullptr;
}
}  // namespace

class MemoryViewTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void runDrawsEveryTensor();
    void clickingARectangleSelectsItsLayerAndTheViewFollows();
    void singleRunTimelineLaysLayersEndToEnd();
    void contextsRunGivesOneLanePerContext();
    void symbolicInputsAreAskedForBeforeEstimate();
    void shapesAreRememberedForTheFile();
    void cleanupTestCase();

private:
    MemoryView* memory() const { return window_->view<MemoryView>(); }
    TimelineView* timeline() const { return window_->view<TimelineView>(); }
    void open(const QString& path);
    void run();

    std::unique_ptr<MainWindow> window_;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers_;
};

// The Model panel's rows as "key=value", every section.
static QStringList panelRows(const QStandardItemModel* model) {
    QStringList rows;
    for (int r = 0; r < model->rowCount(); ++r) {
        const QStandardItem* section = model->item(r, 0);
        for (int c = 0; c < section->rowCount(); ++c)
            rows << section->child(c, 0)->text() + QLatin1Char('=') + section->child(c, 1)->text();
    }
    return rows;
}

void MemoryViewTest::open(const QString& path) {
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    window_->openModel(path);
    QVERIFY(loaded.wait(60000));
}

void MemoryViewTest::run() {
    QSignalSpy finished(window_->runner(), &RunController::runFinished);
    window_->runner()->startRun();
    QVERIFY(finished.wait(kRunTimeoutMs));
}

void MemoryViewTest::initTestCase() {
    if (!QFileInfo::exists(kResnet) || !QFileInfo::exists(kDetector))
        QSKIP("tests/data/models lacks resnet18 or PP-OCRv4 det (scripts/fetch-models.sh)");
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_memory_test"));
    QSettings().clear();
    window_ = std::make_unique<MainWindow>();
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QVERIFY(memory());
    const auto mode = QAbstractItemModelTester::FailureReportingMode::QtTest;
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(memory()->model(), mode));
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(memory()->proxy(), mode));
    window_->runner()->optionsBar()->setRuns(2);
    window_->runner()->optionsBar()->setWarmup(1);
    open(kResnet);
    QVERIFY(window_->setCurrentView(QStringLiteral("memory")));
}

void MemoryViewTest::runDrawsEveryTensor() {
    run();
    const npuwb::Report* report = window_->workbench()->lastReport();
    QVERIFY(report);
    const size_t tensors = report->memory.tensors.size();
    QVERIFY(tensors > 10);
    QCOMPARE(memory()->chart()->rectCount(), int(tensors));
    QCOMPARE(memory()->model()->rowCount(), int(tensors));
    // The peak step marked is where the live bytes are largest, and never more than the planned arena.
    const std::vector<int64_t>& live = memory()->model()->liveBytes();
    QVERIFY(!live.empty());
    const int64_t peak = *std::max_element(live.begin(), live.end());
    QCOMPARE(live[size_t(memory()->chart()->markedPeakStep())], peak);
    QCOMPARE(peak, report->memory.lowerBoundBytes);
    QVERIFY(peak <= report->memory.arenaBytes);
    // The breakdown names the report's figures.
    const auto& rows = memory()->breakdown()->rows();
    QVERIFY(std::any_of(rows.begin(), rows.end(), [&](const MemoryBreakdownChart::Row& r) {
        return r.label == QStringLiteral("Weights") && r.bytes == report->memory.weightBytes;
    }));
    // The model's own memory stands apart from the process's RSS (which holds the GUI too).
    const npuwb::MemorySummary& m = report->memory;
    QVERIFY(std::any_of(rows.begin(), rows.end(), [&](const MemoryBreakdownChart::Row& r) {
        return r.label == QStringLiteral("Model total") && r.bytes == m.weightBytes + m.arenaBytes + m.ioBytes;
    }));
    for (const MemoryBreakdownChart::Row& r : rows) QVERIFY2(r.label != QStringLiteral("Peak RSS"), "RSS not named as the process's");
    QVERIFY(memory()->headerLabel()->text().contains(QStringLiteral("input input [1,3,224,224]")) ||
            memory()->headerLabel()->text().contains(QStringLiteral("[1,3,224,224]")));
    screenshot(window_.get(), QStringLiteral("mem-memory.png"));
    // The Layers view's header names the run's input shapes as the other views do.
    auto* layers = window_->view<LayersView>();
    QVERIFY2(layers->headerLabel()->text().contains(QStringLiteral("input input [1,3,224,224]")),
             qPrintable(layers->headerLabel()->text()));
    QVERIFY(window_->setCurrentView(QStringLiteral("layers")));
    screenshot(window_.get(), QStringLiteral("layers-header-resnet18.png"));
    QVERIFY(window_->setCurrentView(QStringLiteral("memory")));
}

void MemoryViewTest::clickingARectangleSelectsItsLayerAndTheViewFollows() {
    LifetimeChart* chart = memory()->chart();
    QWidget* plot = chart->plot();
    // A tensor in the middle of the run: the rectangle under its centre (the smallest one there) is clicked.
    const QPoint at = chart->centreOf(chart->rectCount() / 2);
    const int row = chart->tensorAt(at);
    QVERIFY(row >= 0);
    const int layer = memory()->model()->producerOfRow(row);
    QVERIFY(layer >= 0);
    sendMouse(plot, QEvent::MouseButtonPress, at);
    sendMouse(plot, QEvent::MouseButtonRelease, at);
    QCOMPARE(window_->workbench()->selection()->selectedLayer(), layer);
    const std::vector<int>& lit = chart->highlightedRows();
    QVERIFY(std::find(lit.begin(), lit.end(), row) != lit.end());
    // Another layer selected elsewhere: exactly its tensors light up.
    const int other = memory()->model()->producerOfRow(0);
    QVERIFY(other >= 0 && other != layer);
    window_->workbench()->selection()->selectLayer(other);
    QCOMPARE(chart->highlightedRows(), memory()->model()->rowsOfProducer(other));
}

void MemoryViewTest::singleRunTimelineLaysLayersEndToEnd() {
    const auto& timelineOf = timeline()->runTimeline();
    QVERIFY(timelineOf.has_value());
    // The profiler's measured kernels of the last timed run: one after another on the running thread, each a layer.
    QCOMPARE(timelineOf->trace.name, std::string("kernels"));
    QCOMPARE(timelineOf->trace.source, std::string("measured"));
    const npuwb::Report* report = window_->workbench()->lastReport();
    QVERIFY(timelineOf->trace.events.size() >= report->layers.size() / 2);  // fused kernels cover several layers
    std::set<std::string> layerNames;
    for (const npuwb::LayerRow& r : report->layers) layerNames.insert(r.fullName);
    for (size_t i = 0; i < timelineOf->trace.events.size(); ++i) {
        const npuwb::TraceEvent& e = timelineOf->trace.events[i];
        QVERIFY(e.startUs <= e.endUs);
        QVERIFY2(layerNames.count(e.name), e.name.c_str());
        if (i > 0) QVERIFY(e.startUs + 1.0 >= timelineOf->trace.events[i - 1].endUs);  // sequential
    }
    QVERIFY(timelineOf->trace.events.back().endUs <= report->run.maxUs * 1.05 + 50);  // within one run
    QCOMPARE(timeline()->shownScheduleBox()->currentData().toString(), QStringLiteral("run"));
    // Clicking a layer's bar selects it everywhere; a layer selected elsewhere is outlined.
    QVERIFY(window_->setCurrentView(QStringLiteral("timeline")));
    // A legend names the colours: every op type with a bar, with its count.
    QVERIFY(timeline()->legendLabel()->isVisible());
    std::set<std::string> barOps;
    for (const npuwb::TraceEvent& e : timelineOf->trace.events)
        for (const npuwb::LayerRow& r : report->layers)
            if (r.fullName == e.name) barOps.insert(r.opType);
    QCOMPARE(timelineOf->legend.size(), barOps.size());
    for (const std::string& op : barOps)
        QVERIFY2(timeline()->legendLabel()->text().contains(QString::fromStdString(op) + QStringLiteral("\u00a0×")),
                 op.c_str());
    GanttChart* chart = timeline()->chart();
    QTest::qWait(50);  // laid out at the tab's size
    chart->plot()->replot();
    const auto longer = [](const npuwb::TraceEvent& a, const npuwb::TraceEvent& b) {
        return a.endUs - a.startUs < b.endUs - b.startUs;
    };
    const npuwb::TraceEvent& widest =
        *std::max_element(timelineOf->trace.events.begin(), timelineOf->trace.events.end(), longer);
    const QPoint at = chart->centreOf(GanttChart::Source::Measured, widest);
    sendMouse(chart->plot(), QEvent::MouseButtonPress, at);
    sendMouse(chart->plot(), QEvent::MouseButtonRelease, at);
    QCOMPARE(window_->workbench()->selection()->selectedNodes().value(0), QString::fromStdString(widest.name));
    const npuwb::TraceEvent& first = timelineOf->trace.events.front();
    window_->workbench()->selection()->selectNodes({QString::fromStdString(first.name)});
    QCOMPARE(chart->highlightedName(), QString::fromStdString(first.name));
    screenshot(window_.get(), QStringLiteral("mem-timeline-kernels.png"));
    QVERIFY(window_->setCurrentView(QStringLiteral("memory")));
}

void MemoryViewTest::contextsRunGivesOneLanePerContext() {
    window_->runner()->optionsBar()->batchBox()->setValue(4);  // first: contexts are at most the batch
    window_->runner()->optionsBar()->contextsBox()->setValue(2);
    QCOMPARE(window_->runner()->optionsBar()->contextsBox()->value(), 2);
    run();
    window_->runner()->optionsBar()->contextsBox()->setValue(1);
    window_->runner()->optionsBar()->batchBox()->setValue(1);
    const auto& timelineOf = timeline()->runTimeline();
    QVERIFY(timelineOf.has_value());
    QCOMPARE(timelineOf->trace.name, std::string("contexts"));
    QCOMPARE(timelineOf->trace.lanes.size(), size_t(2));
    const npuwb::Trace& drawn = timeline()->chart()->timeline(GanttChart::Source::Measured);
    QCOMPARE(drawn.lanes.size(), size_t(2));
    QVERIFY(!drawn.events.empty());
    std::set<std::string> lanesUsed;
    for (const npuwb::TraceEvent& e : drawn.events) lanesUsed.insert(e.lane);
    QCOMPARE(lanesUsed.size(), size_t(2));  // both contexts ran slices
    QVERIFY(window_->setCurrentView(QStringLiteral("timeline")));
    screenshot(window_.get(), QStringLiteral("mem-timeline-contexts.png"));
    // The contexts' memory as the run reports it: weights once, each context's own.
    const auto& rows = memory()->breakdown()->rows();
    for (int c = 0; c < 2; ++c)
        QVERIFY(std::any_of(rows.begin(), rows.end(), [c](const MemoryBreakdownChart::Row& r) {
            return r.label.endsWith(QStringLiteral("context %1 internal").arg(c)) && r.bytes > 0;
        }));
    QVERIFY(window_->setCurrentView(QStringLiteral("memory")));
    screenshot(window_.get(), QStringLiteral("mem-memory-contexts.png"));
}

void MemoryViewTest::symbolicInputsAreAskedForBeforeEstimate() {
    open(kDetector);
    QVERIFY(window_->workbench()->needsInputShapes());
    // Before sizes are given the Layers header shows the model's own, symbolic shapes and says Run will ask.
    QLabel* layersHeader = window_->view<LayersView>()->headerLabel();
    QVERIFY2(layersHeader->text().contains(QStringLiteral("input x [?,3,?,?]")) &&
                 layersHeader->text().contains(QStringLiteral("Run asks for sizes")),
             qPrintable(layersHeader->text()));
    QVERIFY(window_->setCurrentView(QStringLiteral("estimate")));
    auto* estimate = window_->view<EstimateView>();
    estimate->estimateAction()->trigger();
    InputShapesDialog* dialog = openShapesDialog();
    QVERIFY(dialog);
    QVERIFY(!window_->workbench()->isBusy());  // nothing runs before the shapes are given
    QLineEdit* x = dialog->editorFor("x");
    QVERIFY(x);
    QVERIFY(!dialog->buttons()->button(QDialogButtonBox::Ok)->isEnabled());  // nothing prefilled yet
    x->setText(QStringLiteral("1,4,480,480"));  // dim 1 is fixed to 3
    QVERIFY(!dialog->buttons()->button(QDialogButtonBox::Ok)->isEnabled());
    QVERIFY(dialog->noteLabel()->text().contains(QStringLiteral("fixed to 3")));
    x->setText(QStringLiteral("1,3,480,480"));
    QVERIFY(dialog->buttons()->button(QDialogButtonBox::Ok)->isEnabled());
    // Each dim by its role: the fixed 3 after the batch marks an NCHW image.
    auto* declared = dialog->findChild<QLabel*>(QStringLiteral("declared_x"));
    QVERIFY(declared);
    QCOMPARE(declared->text(), QStringLiteral("declared [p2o.DynamicDimension.0 (batch), 3 (channels), "
                                              "p2o.DynamicDimension.1 (height), p2o.DynamicDimension.2 (width)]"));
    QCOMPARE(x->placeholderText(), QStringLiteral("batch,3,height,width"));
    if (const QByteArray dir = qgetenv("NPUWB_SCREENSHOT_DIR"); !dir.isEmpty()) {  // the dialog over the window
        QTest::qWait(300);
        QPixmap shot = window_->grab();
        QPainter painter(&shot);
        const QPixmap box = dialog->grab();
        const QPoint at((shot.width() - box.width()) / 2, (shot.height() - box.height()) / 3);
        painter.drawPixmap(at, box);
        painter.setPen(QPen(Qt::darkGray, 2));
        painter.drawRect(QRect(at, box.size()).adjusted(-1, -1, 0, 0));
        painter.end();
        QVERIFY(shot.save(QString::fromLocal8Bit(dir) + QStringLiteral("/mem-shapes-dialog.png")));
    }
    QSignalSpy shown(estimate, &EstimateView::estimateShown);
    QSignalSpy resolved(window_->workbench(), &Workbench::shapesResolved);
    dialog->buttons()->button(QDialogButtonBox::Ok)->click();
    QVERIFY(shown.wait(kRunTimeoutMs));
    // The sizes given resolve the symbolic dims everywhere: the Model panel's input and MACs, the graph's shapes.
    QVERIFY(resolved.count() > 0 || resolved.wait(kRunTimeoutMs));
    const auto shaped = window_->workbench()->shapedModel();
    QVERIFY(shaped);
    QVERIFY(!npuwb::macsUnknown(shaped->summary));
    QVERIFY(shaped->summary.macs > 1000000000);  // 1.29 G at 480x480 (at 1x1 it would be a few thousand)
    QCOMPARE(shaped->summary.inputs.at(0).shape, (std::vector<std::string>{"1", "3", "480", "480"}));
    const QStringList panel = panelRows(window_->modelInfo()->infoModel());
    QVERIFY2(panel.contains(QStringLiteral("Shapes at=input x [1,3,480,480]")), qPrintable(panel.join(u'|')));
    QVERIFY2(panel.contains(QStringLiteral("x=float32 [1,3,480,480]")), qPrintable(panel.join(u'|')));
    QVERIFY2(panel.contains(QStringLiteral("MACs=") + formatCount(shaped->summary.macs)), qPrintable(panel.join(u'|')));
    const auto& stem = window_->workbench()->currentModel()->graph.nodes.at(0);
    const npuwb::Shape* convOut = shaped->shapes.find(stem.outputs.at(0));
    QVERIFY(convOut && convOut->size() == 4 && convOut->at(2) == 240);  // the stem's stride-2 output at 480 input
    // The estimate is the engine's at 480x480 (what `npuwb-cli estimate --input-shape x=1,3,480,480` prints).
    const npuwb::Model reshaped =
        npuwb::withInputShapes(*window_->workbench()->currentModel(), {{"x", {1, 3, 480, 480}}});
    const npuwb::Report expected = npuwb::estimateModel(reshaped, npuwb::findChipProfile("rk3588"), {});
    QCOMPARE(estimate->result()->report.run.medianUs, expected.run.medianUs);
    QVERIFY(expected.run.medianUs > 10000);  // not the tiny made-up size (about 3 ms)
    QVERIFY(estimate->totalsLabel()->text().contains(QStringLiteral("input x [1,3,480,480]")));
    screenshot(window_.get(), QStringLiteral("mem-estimate-480.png"));
    QVERIFY2(layersHeader->text().contains(QStringLiteral("Run uses input x [1,3,480,480]")),
             qPrintable(layersHeader->text()));
    QVERIFY(window_->setCurrentView(QStringLiteral("layers")));
    screenshot(window_.get(), QStringLiteral("layers-header-ppocr-480.png"));
}

void MemoryViewTest::shapesAreRememberedForTheFile() {
    open(kDetector);  // opened again: asked again, prefilled from the last use
    QVERIFY(window_->workbench()->inputShapes().empty());
    QVERIFY(window_->workbench()->needsInputShapes());
    window_->runner()->inputShapesAction()->trigger();
    InputShapesDialog* dialog = openShapesDialog();
    QVERIFY(dialog);
    QCOMPARE(dialog->editorFor("x")->text(), QStringLiteral("1,3,480,480"));
    QVERIFY(dialog->noteLabel()->text().contains(QStringLiteral("last used")));
    dialog->editorFor("x")->setText(QStringLiteral("1,3,320,640"));
    dialog->buttons()->button(QDialogButtonBox::Ok)->click();
    const npuwb::Shape expected{1, 3, 320, 640};
    QCOMPARE(window_->workbench()->inputShapes().at("x"), expected);
    QVERIFY(!window_->workbench()->needsInputShapes());
    QSettings settings;
    QCOMPARE(rememberedShapes(settings, kDetector).at("x"), expected);
    // Run uses them too: the report's input, and the Memory view's header, say 1x3x320x640.
    run();
    const npuwb::Report* report = window_->workbench()->lastReport();
    QCOMPARE(report->model.inputs.at(0).shape, (std::vector<std::string>{"1", "3", "320", "640"}));
    QCOMPARE(report->layers.front().inputShapes.front(), (std::vector<int64_t>{1, 3, 320, 640}));
    QVERIFY(memory()->headerLabel()->text().contains(QStringLiteral("input x [1,3,320,640]")));
    QCOMPARE(memory()->chart()->rectCount(), int(report->memory.tensors.size()));
    // Advise too: its summary names the shapes it used.
    QVERIFY(window_->setCurrentView(QStringLiteral("suggestions")));
    auto* suggestions = window_->view<SuggestionsView>();
    QSignalSpy advised(suggestions, &SuggestionsView::adviceShown);
    suggestions->adviseAction()->trigger();
    QVERIFY(advised.wait(60000));
    QVERIFY2(suggestions->summaryLabel()->text().contains(QStringLiteral("input x [1,3,320,640]")),
             qPrintable(suggestions->summaryLabel()->text()));
}

void MemoryViewTest::cleanupTestCase() {
    testers_.clear();
    window_.reset();
}

QTEST_MAIN(MemoryViewTest)
#include "gui_memory_test.moc"
