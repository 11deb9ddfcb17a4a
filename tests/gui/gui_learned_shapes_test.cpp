// Every analysis action of the GUI on a model whose shapes need a run (a Resize whose sizes are computed in the
// graph): the model panel says which nodes it cannot count yet, and Estimate, Suggestions and Partition finish with
// the layers after the Resize sized, instead of ending the session (they once read nodes of a Session's graph after
// the Session was gone).
#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QSettings>
#include <QStandardItemModel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include <memory>

#include "core/Workbench.h"
#include "models/Format.h"
#include "models/ModelInfoModel.h"
#include "run/RunController.h"
#include "shell/ModelInfoPanel.h"
#include "shell/MainWindow.h"
#include "views/estimate/EstimateView.h"
#include "views/suggestions/SuggestionsView.h"
#include "views/timeline/TimelineView.h"

using namespace npuwb::ui;

namespace {
constexpr int kTimeoutMs = 120000;
constexpr int64_t kConv1Macs = 16LL * 32 * 32 * (3 * 3 * 3);
constexpr int64_t kConv2Macs = 8LL * 64 * 64 * (16 * 3 * 3);  // after the 2x upsampling
}  // namespace

class LearnedShapesGuiTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void modelPanelNamesWhatItCannotCountYet();
    void estimateSizesTheLayersAfterTheComputedResize();
    void suggestionsFinish();
    void partitionFinishes();
    void aRunCountsWhatTheModelPanelCouldNot();

private:
    std::unique_ptr<MainWindow> window_;
};

void LearnedShapesGuiTest::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_learned_shapes_test"));
    QSettings().clear();
    window_ = std::make_unique<MainWindow>();
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    window_->openModel(QStringLiteral(NPUWB_GUI_SHAPES_MODEL));
    QVERIFY(loaded.wait(kTimeoutMs));
}

void LearnedShapesGuiTest::modelPanelNamesWhatItCannotCountYet() {
    const auto loaded = window_->workbench()->loadedModel();
    QVERIFY(loaded);
    QCOMPARE(loaded->summary.macs, kConv1Macs);
    QCOMPARE(loaded->summary.uncountedNodes.size(), size_t(1));
    QCOMPARE(QString::fromStdString(loaded->summary.uncountedNodes.front()), QStringLiteral("conv2"));
}

void LearnedShapesGuiTest::aRunCountsWhatTheModelPanelCouldNot() {
    // After a run the sizes are known: the Model panel counts conv2 and shows the output's concrete shape.
    QVERIFY(!window_->workbench()->shapedModel());
    QSignalSpy resolved(window_->workbench(), &Workbench::shapesResolved);
    QSignalSpy finished(window_->runner(), &RunController::runFinished);
    window_->runner()->startRun();
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(resolved.count() > 0 || resolved.wait(kTimeoutMs));
    const auto shaped = window_->workbench()->shapedModel();
    QVERIFY(shaped && shaped->ran);
    QCOMPARE(shaped->summary.macs, kConv1Macs + kConv2Macs);
    QVERIFY(shaped->summary.uncountedNodes.empty());
    QCOMPARE(shaped->summary.outputs.at(0).shape, (std::vector<std::string>{"1", "8", "64", "64"}));
    const QStandardItemModel* panel = window_->modelInfo()->infoModel();
    QStringList rows;
    for (int r = 0; r < panel->rowCount(); ++r)
        for (int c = 0; c < panel->item(r, 0)->rowCount(); ++c)
            rows << panel->item(r, 0)->child(c, 0)->text() + u'=' + panel->item(r, 0)->child(c, 1)->text();
    QVERIFY2(rows.contains(QStringLiteral("MACs=") + formatCount(kConv1Macs + kConv2Macs)), qPrintable(rows.join(u'|')));
    QVERIFY2(rows.contains(QStringLiteral("y=float32 [1,8,64,64]")), qPrintable(rows.join(u'|')));
}

void LearnedShapesGuiTest::estimateSizesTheLayersAfterTheComputedResize() {
    QVERIFY(window_->setCurrentView(QStringLiteral("estimate")));
    auto* view = window_->view<EstimateView>();
    QSignalSpy shown(view, &EstimateView::estimateShown);
    view->estimateAction()->trigger();
    QVERIFY(shown.wait(kTimeoutMs));
    QVERIFY(view->result());
    const npuwb::Report& report = view->result()->report;
    QCOMPARE(report.model.macs, kConv1Macs + kConv2Macs);
    bool sawConv2 = false;
    for (const auto& row : report.layers)
        if (row.fullName == "conv2") {
            sawConv2 = true;
            QCOMPARE(row.outputShapes.front(), (std::vector<int64_t>{1, 8, 64, 64}));
        }
    QVERIFY(sawConv2);
}

void LearnedShapesGuiTest::suggestionsFinish() {
    QVERIFY(window_->setCurrentView(QStringLiteral("suggestions")));
    auto* view = window_->view<SuggestionsView>();
    QSignalSpy shown(view, &SuggestionsView::adviceShown);
    view->adviseAction()->trigger();
    QVERIFY(shown.wait(kTimeoutMs));
    QVERIFY(!window_->workbench()->isBusy());
}

void LearnedShapesGuiTest::partitionFinishes() {
    QVERIFY(window_->setCurrentView(QStringLiteral("timeline")));
    auto* view = window_->view<TimelineView>();
    QSignalSpy shown(view, &TimelineView::partitionShown);
    view->partitionAction()->trigger();
    QVERIFY(shown.wait(kTimeoutMs));
    QVERIFY(view->report());
    QCOMPARE(view->report()->model.macs, kConv1Macs + kConv2Macs);
}

QTEST_MAIN(LearnedShapesGuiTest)
#include "gui_learned_shapes_test.moc"
