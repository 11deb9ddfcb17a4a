// The Estimate and Suggestions views on a real (torch-exported) model with a channel shuffle and two spelled-out
// HardSwish: estimate on the worker, one bar per estimated layer and one cycles point per NPU layer, the per-layer
// table in RKNN's columns with the Layers table's IDs on rows, bars and tooltips, selection shared with the layer
// table (fused layers select all their nodes); the findings grouped by rule and pass under
// QAbstractItemModelTester, Apply to This Site rewriting one site only, Apply to All Sites, with the proof shown,
// and Undo. Runs offscreen; with NPUWB_SCREENSHOT_DIR set it saves the window after Apply to This Site there.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QStatusBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QToolTip>
#include <QTreeView>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <qcustomplot.h>

#include <algorithm>
#include <map>

#include "core/Workbench.h"
#include "models/LayerSelection.h"
#include "models/EstimateTableModel.h"
#include "models/LayerTableModel.h"
#include "models/SuggestionTreeModel.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/CostModel.h"
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
    void estimateTableUsesTheLayersIdsAndVendorColumns();
    void barsAndPointsShowTheLayerInTooltips();
    void estimateTableRowSelectsTheLayerEverywhere();
    void adviceFillsASortedTestedTable();
    void adviceGroupsSitesByRuleAndPass();
    void applyToThisSiteRewritesOnlyThatSite();
    void applyToAllSitesRewritesEverySite();
    void selectingAFindingSelectsItsNodes();
    void applyAndUndoRestoreTheModel();
    void aRunsLayerIdsReachTheEstimate();
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
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(estimate()->tableModel(), mode));
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(estimate()->tableProxy(), mode));
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
    // The profile's cross-validated error gives the range, FPS from its slow to its fast end; the basis in the tip.
    const npuwb::Report& report = result->report;
    QVERIFY(report.run.minUs < report.run.medianUs && report.run.medianUs < report.run.maxUs);
    const QString likely = QStringLiteral("likely %1–%2")
                               .arg(1e6 / report.run.maxUs, 0, 'f', 1)
                               .arg(1e6 / report.run.minUs, 0, 'f', 1);
    QVERIFY2(estimate()->totalsLabel()->text().contains(likely), qPrintable(estimate()->totalsLabel()->text()));
    QVERIFY(estimate()->totalsLabel()->toolTip().contains(QStringLiteral("cross-validation")));
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
    const QModelIndexList inEstimate = estimate()->tableView()->selectionModel()->selectedRows();
    QCOMPARE(inEstimate.size(), 1);
    QCOMPARE(inEstimate.front().data(EstimateTableModel::EstimateRowRole).toInt(), last);
}

void AnalysisViewsTest::estimateTableUsesTheLayersIdsAndVendorColumns() {
    const EstimateResult* result = estimate()->result();
    QVERIFY(result);
    EstimateTableModel* table = estimate()->tableModel();
    QCOMPARE(table->rowCount(), int(result->report.layers.size()));
    QStringList titles;
    for (int c = 0; c < table->columnCount(); ++c) titles << table->headerData(c, Qt::Horizontal).toString();
    for (const char* vendor : {"ID", "OpType", "Target", "DataType", "InputShape", "OutputShape",
                               "Cycles(DDR/NPU/Total)", "Time(us)", "MacUsage(%)", "WorkLoad", "RW(KB)", "FullName"})
        QVERIFY2(titles.contains(QLatin1String(vendor)), vendor);
    // Each layer's ID is its anchor node's ID in the Layers table, on the row and under its bar; not the row number.
    const LayerTableModel* layers = window_->view<LayersView>()->tableModel();
    int differsFromRow = 0;
    for (int row = 0; row < table->rowCount(); ++row) {
        const QString anchor = result->layerNodes[size_t(row)].front();
        const int sourceRow = layers->rowOfLayer(window_->workbench()->selection()->layerOfNode(anchor));
        QVERIFY2(sourceRow >= 0, qPrintable(anchor));
        const QString layersId = layers->index(sourceRow, LayerTableModel::IdColumn).data().toString();
        QCOMPARE(table->index(row, EstimateTableModel::IdColumn).data().toString(), layersId);
        QCOMPARE(estimate()->timeChart()->tickLabel(row), layersId);
        QCOMPARE(table->index(row, EstimateTableModel::FullNameColumn).data().toString(),
                 QString::fromStdString(result->report.layers[size_t(row)].fullName));
        differsFromRow += layersId != QString::number(row) ? 1 : 0;
        const npuwb::LayerRow& l = result->report.layers[size_t(row)];
        if (l.target == "NPU") {
            QCOMPARE(table->index(row, EstimateTableModel::CyclesColumn).data().toString(),
                     QStringLiteral("%1/%2/%3").arg(*l.cyclesDdr).arg(*l.cyclesNpu).arg(*l.cyclesTotal));
            // The tooltip adds the total up: max(DDR, NPU) plus the per-layer overhead, never negative.
            const QString tip = table->index(row, EstimateTableModel::CyclesColumn).data(Qt::ToolTipRole).toString();
            const qlonglong overhead = *l.cyclesTotal - std::max(*l.cyclesDdr, *l.cyclesNpu);
            QVERIFY2(overhead >= 0 && tip.contains(QStringLiteral("+ %1 per-layer overhead").arg(overhead)), qPrintable(tip));
            const QString workLoad = table->index(row, EstimateTableModel::WorkLoadColumn).data().toString();
            QVERIFY2(workLoad.startsWith(QStringLiteral("100.0%/0.0%")), qPrintable(workLoad));  // one core of three
        }
    }
    // The model has Constant nodes the estimate folds away, so the Layers IDs run ahead of the estimate's rows.
    QVERIFY(differsFromRow > 0);
}

void AnalysisViewsTest::barsAndPointsShowTheLayerInTooltips() {
    const EstimateResult* result = estimate()->result();
    EstimateTimeChart* bars = estimate()->timeChart();
    QCustomPlot* plot = bars->plot();
    const int last = int(result->report.layers.size()) - 1;
    const QPoint at(int(plot->xAxis->coordToPixel(last)), plot->axisRect()->rect().bottom() - 3);
    const QString tip = bars->toolTipAt(at);
    const QString id = estimate()->tableModel()->idText(last);
    QVERIFY2(tip.startsWith(QStringLiteral("Layer %1: ").arg(id)), qPrintable(tip));
    QVERIFY(tip.contains(QString::fromStdString(result->report.layers[size_t(last)].fullName)));
    QVERIFY(tip.contains(QString::fromStdString(result->report.layers[size_t(last)].opType)));
    // Hovering shows it (the chart tracks the mouse).
    QTest::mouseMove(plot, at);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), tip);
    QVERIFY(bars->toolTipAt(QPoint(1, 1)).isEmpty());  // outside the axis rect: no bar
    CyclesChart* cycles = estimate()->cyclesChart();
    int npuRow = -1;
    for (size_t i = 0; i < result->report.layers.size() && npuRow < 0; ++i)
        if (result->report.layers[i].target == "NPU") npuRow = int(i);
    const QString pointTip = cycles->toolTipAt(cycles->pixelOfRow(npuRow));
    QVERIFY2(pointTip.contains(QStringLiteral("cycles DDR")), qPrintable(pointTip));
    QVERIFY(pointTip.startsWith(QStringLiteral("Layer ")));
}

void AnalysisViewsTest::estimateTableRowSelectsTheLayerEverywhere() {
    const EstimateResult* result = estimate()->result();
    QTableView* table = estimate()->tableView();
    const int row = int(result->report.layers.size()) / 2;
    const QModelIndex index =
        estimate()->tableProxy()->mapFromSource(estimate()->tableModel()->index(row, EstimateTableModel::OpTypeColumn));
    table->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    QCOMPARE(window_->workbench()->selection()->selectedNodes(), result->layerNodes[size_t(row)]);
    QCOMPARE(estimate()->timeChart()->highlightedRows(), std::vector<int>{row});
    QVERIFY(selectedLayerNames(*window_).contains(result->layerNodes[size_t(row)].front()));
    // And the other way: a bar click selects that row of the table.
    const int other = row == 0 ? 1 : 0;
    QCustomPlot* plot = estimate()->timeChart()->plot();
    const QPoint bar(int(plot->xAxis->coordToPixel(other)), plot->axisRect()->rect().bottom() - 3);
    QTest::mouseClick(plot, Qt::LeftButton, {}, bar);
    const QModelIndexList selected = table->selectionModel()->selectedRows();
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected.front().data(EstimateTableModel::EstimateRowRole).toInt(), other);
}

void AnalysisViewsTest::adviceFillsASortedTestedTable() {
    QVERIFY(window_->setCurrentView(QStringLiteral("suggestions")));
    QSignalSpy finished(suggestions(), &SuggestionsView::adviceShown);
    suggestions()->adviseAction()->trigger();
    QVERIFY(finished.wait(kTimeoutMs));
    SuggestionTreeModel* model = suggestions()->model();
    QVERIFY(model->rowCount() > 0);
    // Sorted by estimated gain, largest first, numerically (the view's default).
    QSortFilterProxyModel* proxy = suggestions()->proxyModel();
    for (int r = 1; r < proxy->rowCount(); ++r)
        QVERIFY(proxy->index(r - 1, SuggestionTreeModel::GainColumn).data(SuggestionTreeModel::SortRole).toDouble() >=
                proxy->index(r, SuggestionTreeModel::GainColumn).data(SuggestionTreeModel::SortRole).toDouble());
    // Re-sorting by another column and back keeps the tester happy and the order right.
    suggestions()->treeView()->sortByColumn(SuggestionTreeModel::RuleColumn, Qt::AscendingOrder);
    suggestions()->treeView()->sortByColumn(SuggestionTreeModel::GainColumn, Qt::DescendingOrder);
    QCOMPARE(proxy->rowCount(), model->rowCount());
}

namespace {
int countOps(const npuwb::Model& model, const std::string& op) {
    return int(std::count_if(model.graph.nodes.begin(), model.graph.nodes.end(),
                             [&](const npuwb::Node& n) { return n.opType == op; }));
}
bool hasNode(const npuwb::Model& model, const std::string& name) {
    return std::any_of(model.graph.nodes.begin(), model.graph.nodes.end(),
                       [&](const npuwb::Node& n) { return n.name == name; });
}
int groupOfPass(const SuggestionTreeModel& model, const std::string& pass) {
    for (size_t g = 0; g < model.groups().size(); ++g)
        if (model.groups()[g].pass == pass && model.groups()[g].rule == "graph-rewrite") return int(g);
    return -1;
}
}  // namespace

void AnalysisViewsTest::adviceGroupsSitesByRuleAndPass() {
    SuggestionTreeModel* model = suggestions()->model();
    // Every finding is under exactly one group, whose rule and pass it shares.
    int sites = 0;
    for (int g = 0; g < model->rowCount(); ++g) {
        const QModelIndex group = model->index(g, 0);
        QVERIFY(group.data(SuggestionTreeModel::IsGroupRole).toBool());
        const auto& info = model->groups()[size_t(g)];
        QCOMPARE(model->rowCount(group), int(info.sites.size()));
        QCOMPARE(model->index(g, SuggestionTreeModel::SitesColumn).data().toInt(), int(info.sites.size()));
        double gain = 0;
        for (int r = 0; r < model->rowCount(group); ++r) {
            const int f = model->index(r, 0, group).data(SuggestionTreeModel::FindingIndexRole).toInt();
            QCOMPARE(model->findings()[size_t(f)].rule, info.rule);
            QCOMPARE(model->findings()[size_t(f)].pass, info.pass);
            gain += model->findings()[size_t(f)].estimatedGainUs;
        }
        const double shown = model->index(g, SuggestionTreeModel::GainColumn).data(SuggestionTreeModel::SortRole).toDouble();
        QVERIFY(qAbs(shown - gain) < 1e-9);
        sites += model->rowCount(group);
    }
    QCOMPARE(sites, int(model->findings().size()));
    QVERIFY(model->rowCount() < int(model->findings().size()));  // grouping merged something
    const int hswish = groupOfPass(*model, "fuse_hardswish");
    QVERIFY2(hswish >= 0, "no fuse_hardswish group for the two spelled-out HardSwish");
    QCOMPARE(int(model->groups()[size_t(hswish)].sites.size()), 2);
    const QString hazard = model->index(hswish, SuggestionTreeModel::HazardColumn).data().toString();
    QVERIFY2(hazard.contains(QStringLiteral("2 sites")), qPrintable(hazard));
    // A group of several sites: Apply to All Sites, not This Site.
    suggestions()->selectGroup(hswish);
    QCOMPARE(suggestions()->sitesToApply(true).size(), 2);
    QVERIFY(suggestions()->sitesToApply(false).isEmpty());
    QVERIFY(suggestions()->applyAllAction()->isEnabled());
    QVERIFY(!suggestions()->applyAction()->isEnabled());
    // The context menu offers both (and the window's Copy).
    QVERIFY(suggestions()->treeView()->actions().contains(suggestions()->applyAction()));
    QVERIFY(suggestions()->treeView()->actions().contains(suggestions()->applyAllAction()));
}

void AnalysisViewsTest::applyToThisSiteRewritesOnlyThatSite() {
    SuggestionsView* view = suggestions();
    const int g = groupOfPass(*view->model(), "fuse_hardswish");
    QVERIFY(g >= 0);
    const auto group = view->model()->groups()[size_t(g)];
    const npuwb::advisor::Finding chosen = view->model()->findings()[size_t(group.sites[0])];
    const npuwb::advisor::Finding other = view->model()->findings()[size_t(group.sites[1])];
    view->selectFinding(group.sites[0]);
    QCOMPARE(view->sitesToApply(false), QStringList{QString::fromStdString(chosen.nodes.front())});
    QVERIFY(view->applyAction()->isEnabled());
    const auto before = window_->workbench()->currentModel();
    const int clipsBefore = countOps(*before, "Clip");
    QCOMPARE(clipsBefore, 2);

    QSignalSpy changed(window_->workbench(), &Workbench::modelChanged);
    view->applyAction()->trigger();
    QVERIFY(changed.wait(kTimeoutMs));
    const auto after = window_->workbench()->currentModel();
    QCOMPARE(countOps(*after, "Clip"), clipsBefore - 1);
    for (const std::string& node : other.nodes) QVERIFY2(hasNode(*after, node), node.c_str());  // untouched
    int chosenGone = 0;
    for (const std::string& node : chosen.nodes) chosenGone += hasNode(*after, node) ? 0 : 1;
    QVERIFY(chosenGone > 0);
    // The proof is shown in the status bar and stays in the view while it re-advises.
    const QString status = window_->statusBar()->currentMessage();
    QVERIFY2(status.contains(QStringLiteral("max abs diff")), qPrintable(status));
    QVERIFY2(status.contains(QString::fromStdString(chosen.nodes.front())), qPrintable(status));
    QVERIFY(view->proofLabel()->isVisible());
    QVERIFY(view->proofLabel()->text().contains(QStringLiteral("max rel diff")));
    QTRY_VERIFY_WITH_TIMEOUT(!window_->workbench()->isBusy(), kTimeoutMs);
    if (const QByteArray dir = qgetenv("NPUWB_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(window_->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/sug-applied-one-site.png")));
    // Re-advised: one fuse_hardswish site is left.
    const int left = groupOfPass(*view->model(), "fuse_hardswish");
    QVERIFY(left >= 0);
    QCOMPARE(int(view->model()->groups()[size_t(left)].sites.size()), 1);

    window_->workbench()->undoStack()->undo();
    QCOMPARE(window_->workbench()->currentModel(), before);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->workbench()->isBusy(), kTimeoutMs);
}

void AnalysisViewsTest::applyToAllSitesRewritesEverySite() {
    SuggestionsView* view = suggestions();
    const int g = groupOfPass(*view->model(), "fuse_hardswish");
    QVERIFY(g >= 0);
    view->selectGroup(g);
    const auto before = window_->workbench()->currentModel();
    // The gain shown is what Apply changes in the estimate (measured on a copy), within 10%.
    const double shown = view->model()->index(g, SuggestionTreeModel::GainColumn).data(SuggestionTreeModel::SortRole)
                             .toDouble();
    const npuwb::ChipProfile chip = npuwb::findChipProfile(window_->workbench()->target().chip.toStdString());
    const double estimateBefore = npuwb::estimateModel(*before, chip).run.medianUs;
    QVERIFY2(view->summaryLabel()->text().contains(QStringLiteral("applying all")),
             qPrintable(view->summaryLabel()->text()));
    QSignalSpy changed(window_->workbench(), &Workbench::modelChanged);
    view->applyAllAction()->trigger();
    QVERIFY(changed.wait(kTimeoutMs));
    QCOMPARE(countOps(*window_->workbench()->currentModel(), "Clip"), 0);
    const double achieved =
        estimateBefore - npuwb::estimateModel(*window_->workbench()->currentModel(), chip).run.medianUs;
    QVERIFY2(std::abs(shown - achieved) <= 0.1 * std::max(std::abs(achieved), 1.0),
             qPrintable(QStringLiteral("shown %1 us, Apply changed the estimate by %2 us").arg(shown).arg(achieved)));
    QVERIFY(window_->statusBar()->currentMessage().contains(QStringLiteral("at 2 sites")));
    QTRY_VERIFY_WITH_TIMEOUT(!window_->workbench()->isBusy(), kTimeoutMs);
    QCOMPARE(groupOfPass(*view->model(), "fuse_hardswish"), -1);
    window_->workbench()->undoStack()->undo();
    QCOMPARE(window_->workbench()->currentModel(), before);
    QTRY_VERIFY_WITH_TIMEOUT(!window_->workbench()->isBusy(), kTimeoutMs);
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
    const QStringList nodes = SuggestionTreeModel::nodesOf(*view->currentFinding());
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
    // A run of this version (its rows stand in for one): the edit does not throw it away, undo brings it back.
    auto run = std::make_shared<npuwb::Report>();
    run->layers = window_->workbench()->loadedModel()->layers;
    run->run.medianUs = 1234.5;
    window_->workbench()->showReport(run);

    QSignalSpy changed(window_->workbench(), &Workbench::modelChanged);
    suggestions()->applySelectedFinding();
    QVERIFY(changed.wait(kTimeoutMs));
    const auto after = window_->workbench()->currentModel();
    QVERIFY(after != before);
    QVERIFY(after->graph.nodes.size() < nodesBefore);  // Reshape-Transpose-Reshape became one Conv
    QCOMPARE(window_->view<LayersView>()->tableModel()->rowCount(), int(after->graph.nodes.size()));
    QCOMPARE(window_->workbench()->undoStack()->count(), 1);
    QVERIFY(window_->statusBar()->currentMessage().contains(QStringLiteral("max abs diff")));
    QVERIFY(!window_->workbench()->lastReport());  // the edited version has not run

    window_->workbench()->undoStack()->undo();
    QCOMPARE(window_->workbench()->currentModel(), before);
    QVERIFY(window_->workbench()->lastReport());
    QCOMPARE(window_->workbench()->lastReport()->run.medianUs, 1234.5);
    QVERIFY(window_->view<LayersView>()->tableModel()->isTimed());
    QCOMPARE(window_->workbench()->currentModel()->graph.nodes.size(), nodesBefore);
    QCOMPARE(window_->view<LayersView>()->tableModel()->rowCount(), int(nodesBefore));
    window_->workbench()->undoStack()->redo();
    QCOMPARE(window_->workbench()->currentModel(), after);
    window_->workbench()->undoStack()->undo();
    QCOMPARE(window_->workbench()->currentModel()->graph.nodes.size(), nodesBefore);
    // The window re-advises on the restored model: let it finish before the next test.
    if (window_->workbench()->isBusy()) QTRY_VERIFY_WITH_TIMEOUT(!window_->workbench()->isBusy(), kTimeoutMs);
}

void AnalysisViewsTest::aRunsLayerIdsReachTheEstimate() {
    if (!estimate()->result()) {  // the model changed in the tests before: estimate again
        QSignalSpy shown(estimate(), &EstimateView::estimateShown);
        estimate()->estimateAction()->trigger();
        QVERIFY(shown.wait(kTimeoutMs));
    }
    // A report numbered otherwise (a vendor's, an older file) is shown with the model's IDs: the estimate's rows,
    // bars and tooltips keep the IDs the Layers table had before it.
    std::map<std::string, int64_t> modelIds;
    for (const npuwb::LayerRow& l : window_->workbench()->loadedModel()->layers) modelIds[l.fullName] = l.id;
    auto renumbered = std::make_shared<npuwb::Report>();
    renumbered->layers = window_->workbench()->loadedModel()->layers;
    for (npuwb::LayerRow& l : renumbered->layers) l.id += 100;
    window_->workbench()->showReport(renumbered);
    for (const npuwb::LayerRow& l : window_->workbench()->lastReport()->layers) QCOMPARE(l.id, modelIds.at(l.fullName));
    const EstimateResult* result = estimate()->result();
    QVERIFY(result);
    for (int row = 0; row < int(result->report.layers.size()); ++row) {
        const QString anchor = result->layerNodes[size_t(row)].front();
        const int id = window_->workbench()->selection()->layerOfNode(anchor);
        QVERIFY2(modelIds.count(anchor.toStdString()) && id == modelIds.at(anchor.toStdString()),
                 qPrintable(anchor + QStringLiteral(" -> %1").arg(id)));
        QCOMPARE(estimate()->tableModel()->idText(row), QString::number(id));
        QCOMPARE(estimate()->timeChart()->tickLabel(row), QString::number(id));
    }
    QVERIFY(estimate()->layerToolTip(0).startsWith(QStringLiteral("Layer %1:").arg(estimate()->tableModel()->idText(0))));
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
