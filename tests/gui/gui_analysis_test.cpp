// The Estimate and Suggestions views on a real (torch-exported) model with a channel shuffle: estimate on the
// worker, one bar per estimated layer and one cycles point per NPU layer, selection shared with the layer table
// (fused layers select all their nodes), the findings table under QAbstractItemModelTester, and Apply + Undo of
// a finding's pass. Runs offscreen.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QStatusBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <qcustomplot.h>

#include "core/Workbench.h"
#include "models/LayerSelection.h"
#include "models/LayerTableModel.h"
#include "models/SuggestionTableModel.h"
#include "npuwb/ModelIO.h"
#include "shell/FileActions.h"
#include "shell/MainWindow.h"
#include "shell/TargetOptionsBar.h"
#include "views/estimate/CyclesChart.h"
#include "views/estimate/EstimateTimeChart.h"
#include "views/estimate/EstimateView.h"
#include "views/layers/LayerTableView.h"
#include "views/layers/LayersView.h"
#include "views/suggestions/SuggestionsView.h"

using namespace npuwb::ui;

namespace {
constexpr int kTimeoutMs = 60000;

QStringList selectedLayerNames(MainWindow& window) {
    QStringList names;
    const QModelIndexList rows = window.view<LayersView>()->tableView()->tableView()->selectionModel()->selectedRows();
    for (const QModelIndex& row : rows)
        names << row.siblingAtColumn(LayerTableModel::NameColumn).data().toString();
    return names;
}
}  // namespace

class AnalysisViewsTest : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void estimateDrawsOneBarPerLayerAndMatchingCyclesPoints();
    void clickingAnEstimateBarSelectsItsNodesInTheTable();
    void tableSelectionHighlightsTheEstimate();
    void adviceFillsASortedTestedTable();
    void selectingAFindingSelectsItsNodes();
    void applyAndUndoRestoreTheModel();
    void savesTheModelAtomically();
    void cleanupTestCase();

private:
    EstimateView* estimate() const { return window_->view<EstimateView>(); }
    SuggestionsView* suggestions() const { return window_->view<SuggestionsView>(); }

    std::unique_ptr<MainWindow> window_;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers_;
};

void AnalysisViewsTest::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_analysis_test"));
    window_ = std::make_unique<MainWindow>();
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    const auto mode = QAbstractItemModelTester::FailureReportingMode::QtTest;
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(suggestions()->model(), mode));
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(suggestions()->proxyModel(), mode));
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(window_->view<LayersView>()->tableModel(), mode));
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    window_->openModel(QStringLiteral(NPUWB_GUI_ANALYSIS_MODEL));
    QVERIFY(loaded.wait(kTimeoutMs));
    // The default chip, whatever an earlier session saved.
    QCOMPARE(window_->workbench()->target().chip.toLower(), QStringLiteral("rk3588"));
    QVERIFY(window_->findChild<TargetOptionsBar*>()->chipBox()->count() >= 2);
}

void AnalysisViewsTest::estimateDrawsOneBarPerLayerAndMatchingCyclesPoints() {
    QVERIFY(window_->setCurrentView(QStringLiteral("estimate")));
    QSignalSpy finished(estimate(), &EstimateView::estimateShown);
    estimate()->estimateAction()->trigger();
    QVERIFY(window_->workbench()->isBusy());
    QVERIFY(!estimate()->estimateAction()->isEnabled());
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(!window_->workbench()->isBusy());

    const EstimateResult* result = estimate()->result();
    QVERIFY(result);
    const auto& layers = result->report.layers;
    QVERIFY(!layers.empty());
    QCOMPARE(QString::fromStdString(result->report.environment.device).toLower(), QStringLiteral("rk3588"));
    QCOMPARE(result->layerNodes.size(), layers.size());
    int npu = 0, bandwidthBound = 0;
    for (const auto& row : layers)
        if (row.target == "NPU" && row.cyclesNpu && row.cyclesDdr) {
            ++npu;
            bandwidthBound += *row.cyclesDdr > *row.cyclesNpu ? 1 : 0;
        }
    QVERIFY(npu > 0);
    EstimateTimeChart* bars = estimate()->timeChart();
    QCOMPARE(bars->barCount(), int(layers.size()));
    QCOMPARE(bars->npuBars()->dataCount(), npu);
    QCOMPARE(bars->cpuBars()->dataCount(), int(layers.size()) - npu);
    CyclesChart* cycles = estimate()->cyclesChart();
    QCOMPARE(cycles->pointCount(), npu);
    QCOMPARE(cycles->bandwidthBoundCount(), bandwidthBound);
    // Bars carry the estimated times, in execution order.
    double total = 0;
    for (const auto& row : layers) total += row.timeUs;
    double drawn = 0;
    for (auto it = bars->npuBars()->data()->constBegin(); it != bars->npuBars()->data()->constEnd(); ++it)
        drawn += it->value;
    for (auto it = bars->cpuBars()->data()->constBegin(); it != bars->cpuBars()->data()->constEnd(); ++it)
        drawn += it->value;
    QVERIFY(qAbs(drawn - total) <= 1e-6 * total);
    QVERIFY(estimate()->totalsLabel()->text().contains(QStringLiteral("FPS")));
}

void AnalysisViewsTest::clickingAnEstimateBarSelectsItsNodesInTheTable() {
    const EstimateResult* result = estimate()->result();
    QVERIFY(result);
    // A fused layer (Conv + Relu on RK3588) covers several ONNX nodes: clicking it selects all of them.
    int fused = -1;
    for (size_t i = 0; i < result->layerNodes.size() && fused < 0; ++i)
        if (result->layerNodes[i].size() > 1) fused = int(i);
    QVERIFY2(fused >= 0, "expected a fused layer (Conv+Relu) in the estimate");
    EstimateTimeChart* bars = estimate()->timeChart();
    QCustomPlot* plot = bars->plot();
    const QRect area = plot->axisRect()->rect();
    const QPoint at(int(plot->xAxis->coordToPixel(fused)), area.bottom() - 3);
    QTest::mouseClick(plot, Qt::LeftButton, {}, at);
    const QStringList nodes = result->layerNodes[size_t(fused)];
    QCOMPARE(window_->workbench()->selection()->selectedNodes(), nodes);
    QStringList inTable = selectedLayerNames(*window_);
    inTable.sort();
    QStringList expected = nodes;
    expected.sort();
    QCOMPARE(inTable, expected);
    QCOMPARE(bars->highlightedRows(), std::vector<int>{fused});
    QCOMPARE(estimate()->cyclesChart()->highlightedRows(), std::vector<int>{fused});

    // A click on a point of the cycles chart selects that layer too.
    CyclesChart* cycles = estimate()->cyclesChart();
    // Layers with identical cycles (two Reshapes) overlap: pick one whose point stands alone.
    auto standsAlone = [&](int row) {
        const QPointF at = cycles->pixelOfRow(row);
        for (size_t j = 0; j < result->report.layers.size(); ++j) {
            if (int(j) == row || result->report.layers[j].target != "NPU") continue;
            if (QLineF(at, cycles->pixelOfRow(int(j))).length() < 12) return false;
        }
        return true;
    };
    int other = -1;
    for (size_t i = 0; i < result->report.layers.size() && other < 0; ++i)
        if (int(i) != fused && result->report.layers[i].target == "NPU" && standsAlone(int(i))) other = int(i);
    QVERIFY(other >= 0);
    QTest::mouseClick(cycles->plot(), Qt::LeftButton, {}, cycles->pixelOfRow(other).toPoint());
    QCOMPARE(window_->workbench()->selection()->selectedNodes(), result->layerNodes[size_t(other)]);
}

void AnalysisViewsTest::tableSelectionHighlightsTheEstimate() {
    const EstimateResult* result = estimate()->result();
    const int last = int(result->report.layers.size()) - 1;
    const QString anchor = result->layerNodes[size_t(last)].front();
    const int id = window_->workbench()->selection()->layerOfNode(anchor);
    QVERIFY(id >= 0);
    QTableView* table = window_->view<LayersView>()->tableView()->tableView();
    const int sourceRow = window_->view<LayersView>()->tableModel()->rowOfLayer(id);
    const QModelIndex index = window_->view<LayersView>()->tableView()->proxyModel()->mapFromSource(
        window_->view<LayersView>()->tableModel()->index(sourceRow, LayerTableModel::NameColumn));
    table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QCOMPARE(window_->workbench()->selection()->selectedLayer(), id);
    QCOMPARE(estimate()->timeChart()->highlightedRows(), std::vector<int>{last});
}

void AnalysisViewsTest::adviceFillsASortedTestedTable() {
    QVERIFY(window_->setCurrentView(QStringLiteral("suggestions")));
    QSignalSpy finished(suggestions(), &SuggestionsView::adviceShown);
    suggestions()->adviseAction()->trigger();
    QVERIFY(finished.wait(kTimeoutMs));
    SuggestionTableModel* model = suggestions()->model();
    QVERIFY(model->rowCount() > 0);
    // Sorted by estimated gain, largest first, numerically (the view's default).
    QSortFilterProxyModel* proxy = suggestions()->proxyModel();
    for (int r = 1; r < proxy->rowCount(); ++r)
        QVERIFY(proxy->index(r - 1, SuggestionTableModel::GainColumn).data(SuggestionTableModel::SortRole).toDouble() >=
                proxy->index(r, SuggestionTableModel::GainColumn).data(SuggestionTableModel::SortRole).toDouble());
    // Re-sorting by another column and back keeps the tester happy and the order right.
    suggestions()->tableView()->sortByColumn(SuggestionTableModel::RuleColumn, Qt::AscendingOrder);
    suggestions()->tableView()->sortByColumn(SuggestionTableModel::GainColumn, Qt::DescendingOrder);
    QCOMPARE(proxy->rowCount(), model->rowCount());
}

void AnalysisViewsTest::selectingAFindingSelectsItsNodes() {
    SuggestionsView* view = suggestions();
    int withLayers = -1;  // a finding naming at least one node of the layer table
    for (size_t i = 0; i < view->model()->findings().size() && withLayers < 0; ++i)
        for (const std::string& node : view->model()->findings()[i].nodes)
            if (window_->workbench()->selection()->layerOfNode(QString::fromStdString(node)) >= 0) withLayers = int(i);
    QVERIFY(withLayers >= 0);
    view->selectFinding(withLayers);
    QCOMPARE(view->currentFinding(), &view->model()->findings()[size_t(withLayers)]);
    const QStringList nodes = SuggestionTableModel::nodesOf(*view->currentFinding());
    QCOMPARE(window_->workbench()->selection()->selectedNodes(), nodes);
    for (const QString& name : selectedLayerNames(*window_)) QVERIFY2(nodes.contains(name), qPrintable(name));
    QVERIFY(!selectedLayerNames(*window_).isEmpty());
}

void AnalysisViewsTest::applyAndUndoRestoreTheModel() {
    SuggestionsView* view = suggestions();
    int fixable = -1;
    for (size_t i = 0; i < view->model()->findings().size() && fixable < 0; ++i)
        if (view->model()->findings()[i].pass == "layout_to_conv") fixable = int(i);
    QVERIFY2(fixable >= 0, "the advisor did not offer layout_to_conv for the channel shuffle");
    view->selectFinding(fixable);
    const auto before = window_->workbench()->currentModel();
    const size_t nodesBefore = before->graph.nodes.size();

    QSignalSpy changed(window_->workbench(), &Workbench::modelChanged);
    suggestions()->applySelectedFinding();
    QVERIFY(changed.wait(kTimeoutMs));
    const auto after = window_->workbench()->currentModel();
    QVERIFY(after != before);
    QVERIFY(after->graph.nodes.size() < nodesBefore);  // Reshape-Transpose-Reshape became one Conv
    QCOMPARE(window_->view<LayersView>()->tableModel()->rowCount(), int(after->graph.nodes.size()));
    QCOMPARE(window_->workbench()->undoStack()->count(), 1);
    QVERIFY(window_->statusBar()->currentMessage().contains(QStringLiteral("max abs diff")));

    window_->workbench()->undoStack()->undo();
    QCOMPARE(window_->workbench()->currentModel(), before);
    QCOMPARE(window_->workbench()->currentModel()->graph.nodes.size(), nodesBefore);
    QCOMPARE(window_->view<LayersView>()->tableModel()->rowCount(), int(nodesBefore));
    window_->workbench()->undoStack()->redo();
    QCOMPARE(window_->workbench()->currentModel(), after);
    window_->workbench()->undoStack()->undo();
    QCOMPARE(window_->workbench()->currentModel()->graph.nodes.size(), nodesBefore);
    // The window re-advises on the restored model: let it finish before the next test.
    if (window_->workbench()->isBusy()) QTRY_VERIFY_WITH_TIMEOUT(!window_->workbench()->isBusy(), kTimeoutMs);
}

void AnalysisViewsTest::savesTheModelAtomically() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("saved.onnx"));
    QVERIFY(window_->files()->saveModelAs(path));
    const npuwb::Model saved = npuwb::loadModel(path.toStdString());
    QCOMPARE(saved.graph.nodes.size(), window_->workbench()->currentModel()->graph.nodes.size());
    QVERIFY(!window_->files()->saveModelAs(dir.filePath(QStringLiteral("missing/dir/x.onnx"))));
}

void AnalysisViewsTest::cleanupTestCase() {
    testers_.clear();
    window_.reset();
}

QTEST_MAIN(AnalysisViewsTest)
#include "gui_analysis_test.moc"
