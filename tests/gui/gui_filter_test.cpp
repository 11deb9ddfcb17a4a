// The one layer filter across the views (View > Filter Layers): the filter's logic on its own, then on resnet18
// after a local run and an estimate: op type Conv leaves only the Conv rows in the Layers and Estimate tables (their
// proxies under QAbstractItemModelTester), greys the other bars of the estimate's time chart, dims the other graph
// nodes, the memory rectangles other layers made and the Timeline's other kernel bars; name and time-range filters;
// Clear restores everything. Several op types at once (the bar's checkable list: Conv and Relu), and the criteria
// saved in the settings and restored. With NPUWB_SCREENSHOT_DIR set it saves filter.png (the Graph view filtered to Conv),
// filter-layers.png, filter-memory.png and filter-estimate.png.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QTemporaryDir>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>
#include <qcustomplot.h>

#include <algorithm>

#include "core/Workbench.h"
#include "models/EstimateTableModel.h"
#include "models/LayerFilter.h"
#include "models/LayerTableModel.h"
#include "models/TensorLifetimeModel.h"
#include "run/RunController.h"
#include "run/RunOptionsBar.h"
#include "shell/LayerFilterBar.h"
#include "shell/OpTypeChooser.h"
#include "shell/MainWindow.h"
#include "views/estimate/EstimateTimeChart.h"
#include "views/estimate/EstimateView.h"
#include "views/graph/GraphItems.h"
#include "views/graph/GraphView.h"
#include "views/layers/LayerTableView.h"
#include "views/layers/LayerTimeChart.h"
#include "views/layers/LayersView.h"
#include "views/memory/LifetimeChart.h"
#include "views/memory/MemoryView.h"
#include "views/timeline/GanttChart.h"
#include "views/timeline/TimelineView.h"

using namespace npuwb::ui;

namespace {
constexpr int kTimeoutMs = 240000;
const QString kResnet = QStringLiteral(NPUWB_MODELS_DIR "/resnet18.onnx");

void screenshot(QWidget* w, const QString& name) {
    const QByteArray dir = qgetenv("NPUWB_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QTest::qWait(300);  // let charts replot
    QVERIFY(w->grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name));
}

/// Rows a table shows that `pred` accepts: a fused kernel's nodes after the first are its row, not rows of their own.
template <class Pred> int countLayers(const std::vector<npuwb::LayerRow>& rows, Pred pred) {
    return int(std::count_if(rows.begin(), rows.end(),
                             [&](const npuwb::LayerRow& row) { return row.fusedInto.empty() && pred(row); }));
}
int shownLayers(const std::vector<npuwb::LayerRow>& rows) {
    return countLayers(rows, [](const npuwb::LayerRow&) { return true; });
}
/// The table's rows after a run: its layers and the model's nodes its rewrites removed (resnet18: 16 Identity).
int shownRows(const npuwb::Report& report) {
    return shownLayers(report.layers) + int(report.removedLayers.size());
}
}  // namespace

class LayerFilterTest : public QObject {
    Q_OBJECT

private slots:
    void filterLogic();
    void initTestCase();
    void opTypeFiltersEveryView();
    void nameFilter();
    void timeRangeFilter();
    void clearRestoresEveryView();
    void severalOpTypesAtOnce();
    void filterIsSavedInTheSettings();
    void cleanupTestCase();

private:
    LayerFilterBar* bar() const { return window_->filterBar(); }
    LayerFilter* filter() const { return window_->workbench()->layerFilter(); }
    LayersView* layers() const { return window_->view<LayersView>(); }
    EstimateView* estimate() const { return window_->view<EstimateView>(); }
    GraphView* graph() const { return window_->view<GraphView>(); }
    MemoryView* memory() const { return window_->view<MemoryView>(); }
    TimelineView* timeline() const { return window_->view<TimelineView>(); }
    /// Layers of the run timeline whose kernel bars are grey.
    int greyTimelineLayers() const;
    const npuwb::Report& report() const { return *window_->workbench()->lastReport(); }
    /// Op nodes of the graph drawn at full opacity.
    int brightOpNodes() const;
    /// Ticks or clears an op type's box in the bar's list, as a user does; false when the list lacks it.
    bool tick(const QString& op, bool on = true) const;

    std::unique_ptr<MainWindow> window_;
    std::vector<std::unique_ptr<QAbstractItemModelTester>> testers_;
};

void LayerFilterTest::filterLogic() {
    LayerFilter f;
    QSignalSpy changed(&f, &LayerFilter::changed);
    QVERIFY(!f.isActive());
    QVERIFY(f.matches(QStringLiteral("Relu"), QStringLiteral("CPU"), QStringLiteral("a"), -1));
    f.setOpTypes({QStringLiteral("Conv")});
    f.setOpTypes({QStringLiteral("Conv")});  // no change: no signal
    QCOMPARE(changed.count(), 1);
    QVERIFY(f.isActive());
    QVERIFY(f.matches(QStringLiteral("Conv"), QStringLiteral("CPU"), QStringLiteral("a"), -1));
    QVERIFY(!f.matches(QStringLiteral("Relu"), QStringLiteral("CPU"), QStringLiteral("a"), -1));
    f.setTarget(QStringLiteral("NPU"));
    QVERIFY(f.matches(QStringLiteral("Conv"), QStringLiteral("npu"), QStringLiteral("a"), -1));
    QVERIFY(!f.matches(QStringLiteral("Conv"), QStringLiteral("CPU"), QStringLiteral("a"), -1));
    f.setName(QStringLiteral("LAYER1"));
    QVERIFY(f.matches(QStringLiteral("Conv"), QStringLiteral("NPU"), QStringLiteral("/layer1/conv1"), -1));
    QVERIFY(!f.matches(QStringLiteral("Conv"), QStringLiteral("NPU"), QStringLiteral("/layer2/conv1"), -1));
    f.setTimeRange(10.0, 20.0);
    QVERIFY(f.matches(QStringLiteral("Conv"), QStringLiteral("NPU"), QStringLiteral("layer1"), 15.0));
    QVERIFY(f.matches(QStringLiteral("Conv"), QStringLiteral("NPU"), QStringLiteral("layer1"), 20.0));
    QVERIFY(!f.matches(QStringLiteral("Conv"), QStringLiteral("NPU"), QStringLiteral("layer1"), 25.0));
    QVERIFY(!f.matches(QStringLiteral("Conv"), QStringLiteral("NPU"), QStringLiteral("layer1"), 5.0));
    QVERIFY(!f.matches(QStringLiteral("Conv"), QStringLiteral("NPU"), QStringLiteral("layer1"), -1));  // no time
    f.setTimeRange(std::nullopt, 20.0);
    QVERIFY(f.matches(QStringLiteral("Conv"), QStringLiteral("NPU"), QStringLiteral("layer1"), 0.5));
    QCOMPARE(changed.count(), 5);
    f.clear();
    QCOMPARE(changed.count(), 6);
    QVERIFY(!f.isActive());
    f.clear();  // already clear: no signal
    QCOMPARE(changed.count(), 6);
}

void LayerFilterTest::initTestCase() {
    if (!QFileInfo::exists(kResnet)) QSKIP("tests/data/models lacks resnet18 (scripts/fetch-models.sh)");
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_filter_test"));
    QSettings().clear();
    window_ = std::make_unique<MainWindow>();
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QVERIFY(bar() && layers() && estimate() && graph() && memory());
    const auto mode = QAbstractItemModelTester::FailureReportingMode::QtTest;
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(layers()->tableView()->proxyModel(), mode));
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(estimate()->tableProxy(), mode));
    testers_.push_back(std::make_unique<QAbstractItemModelTester>(memory()->proxy(), mode));
    QVERIFY(!bar()->isVisible());
    window_->findChild<QAction*>(QStringLiteral("showLayerFilterAction"))->trigger();
    QVERIFY(bar()->isVisible());

    window_->setCurrentView(QStringLiteral("graph"));
    QSignalSpy laidOut(graph(), &GraphView::layoutShown);
    QSignalSpy loaded(window_->workbench(), &Workbench::modelLoaded);
    window_->openModel(kResnet);
    QVERIFY(loaded.wait(60000));
    QVERIFY(laidOut.count() > 0 || laidOut.wait(kTimeoutMs));
    window_->runner()->optionsBar()->setRuns(2);
    window_->runner()->optionsBar()->setWarmup(1);
    QSignalSpy ran(window_->runner(), &RunController::runFinished);
    window_->runner()->startRun();
    QVERIFY(ran.wait(kTimeoutMs));
    QVERIFY(window_->workbench()->lastReport());
    QSignalSpy estimated(estimate(), &EstimateView::estimateShown);
    estimate()->estimateAction()->trigger();
    QVERIFY(estimated.wait(kTimeoutMs));
    QVERIFY(bar()->opTypeChooser()->opTypes().contains(QStringLiteral("Conv")));
}

bool LayerFilterTest::tick(const QString& op, bool on) const {
    const QList<QListWidgetItem*> items = bar()->opTypeChooser()->list()->findItems(op, Qt::MatchExactly);
    if (items.size() != 1) return false;
    items.front()->setCheckState(on ? Qt::Checked : Qt::Unchecked);
    return true;
}

int LayerFilterTest::brightOpNodes() const {
    int bright = 0;
    for (int i = 0; i < graph()->nodeItemCount(); ++i)
        if (graph()->graphData().nodes[size_t(i)].kind == GraphNodeInfo::Kind::Op &&
            graph()->nodeItem(i)->opacity() == 1.0)
            ++bright;
    return bright;
}

int LayerFilterTest::greyTimelineLayers() const {
    int grey = 0;
    for (const auto& [name, colour] : timeline()->runTimeline()->colours)
        grey += timeline()->chart()->runBarColour(name) == QColor(0xdd, 0xdd, 0xdd);
    return grey;
}

void LayerFilterTest::opTypeFiltersEveryView() {
    const auto isConv = [](const npuwb::LayerRow& row) { return row.opType == "Conv"; };
    const int convs = countLayers(report().layers, isConv);
    QCOMPARE(convs, 20);  // resnet18: 17 3x3 and 3 downsampling 1x1 convolutions
    const auto& estimated = estimate()->result()->report.layers;
    // The estimate calls fused layers ConvolutionRelu ...: a row is a Conv when its anchor ONNX node is.
    int estimatedConvs = 0;
    for (const QStringList& nodes : estimate()->result()->layerNodes)
        for (const npuwb::LayerRow& row : report().layers)
            if (!nodes.isEmpty() && QString::fromStdString(row.fullName) == nodes.front() && isConv(row))
                ++estimatedConvs;
    QCOMPARE(estimatedConvs, convs);  // every convolution anchors its own fused layer

    QVERIFY(tick(QStringLiteral("Conv")));
    QCOMPARE(filter()->opTypes(), QSet<QString>{QStringLiteral("Conv")});
    QCOMPARE(bar()->opTypeChooser()->text(), QStringLiteral("Conv"));
    QCOMPARE(bar()->countLabel()->text(),
             QStringLiteral("%1 of %2 layers").arg(convs).arg(shownRows(report())));

    // Tables hide the other rows.
    QSortFilterProxyModel* layerRows = layers()->tableView()->proxyModel();
    QCOMPARE(layerRows->rowCount(), convs);
    for (int r = 0; r < layerRows->rowCount(); ++r) {  // a Conv, or a fused layer it leads ("Conv+Relu")
        const QString op = layerRows->index(r, LayerTableModel::OpTypeColumn).data().toString();
        QVERIFY2(op == QStringLiteral("Conv") || op.startsWith(QStringLiteral("Conv+")), qPrintable(op));
    }
    QCOMPARE(estimate()->tableProxy()->rowCount(), estimatedConvs);
    // The estimate's time chart greys the other bars; the Layers chart draws only the matching ones.
    QCOMPARE(estimate()->timeChart()->filteredOutBars()->dataCount(), int(estimated.size()) - estimatedConvs);
    QCOMPARE(estimate()->timeChart()->barCount(), int(estimated.size()));
    QCOMPARE(layers()->timeChart()->barCount(), convs);

    // The graph dims every node but the convolutions.
    int graphConvs = 0;
    for (const GraphNodeInfo& node : graph()->graphData().nodes) graphConvs += node.opType == QStringLiteral("Conv");
    QCOMPARE(graphConvs, convs);
    QCOMPARE(brightOpNodes(), graphConvs);
    for (int i = 0; i < graph()->nodeItemCount(); ++i)
        QCOMPARE(graph()->nodeItem(i)->opacity() == 1.0,
                 graph()->graphData().nodes[size_t(i)].opType == QStringLiteral("Conv"));

    // The memory view dims the tensors other layers made and says how many remain.
    const TensorLifetimeModel* tensors = memory()->model();
    int convTensors = 0;
    for (int r = 0; r < tensors->rowCount(); ++r) {
        const int producer = tensors->producerOfRow(r);
        for (const npuwb::LayerRow& row : report().layers)
            if (int(row.id) == producer && row.opType == "Conv") ++convTensors;
    }
    QVERIFY(convTensors > 0);
    QCOMPARE(memory()->matchingTensorCount(), convTensors);
    const std::vector<bool>& dimmed = memory()->chart()->dimmedRows();
    QCOMPARE(int(std::count(dimmed.begin(), dimmed.end(), false)), convTensors);
    QVERIFY(memory()->filterLabel()->isVisibleTo(memory()));
    const QString remain = QStringLiteral("%1 of %2").arg(convTensors).arg(tensors->rowCount());
    QVERIFY(memory()->filterLabel()->text().contains(remain));

    // The Timeline's run mode greys the kernel bars of the other layers.
    QVERIFY(timeline()->runTimeline());
    int timedConvs = 0;
    for (const auto& [name, colour] : timeline()->runTimeline()->colours)
        for (const npuwb::LayerRow& row : report().layers)
            timedConvs += row.fullName == name && isConv(row);
    QVERIFY(timedConvs > 0);
    QCOMPARE(greyTimelineLayers(), int(timeline()->runTimeline()->colours.size()) - timedConvs);

    window_->setCurrentView(QStringLiteral("graph"));
    screenshot(window_.get(), QStringLiteral("filter.png"));
    window_->setCurrentView(QStringLiteral("layers"));
    screenshot(window_.get(), QStringLiteral("filter-layers.png"));
    window_->setCurrentView(QStringLiteral("memory"));
    screenshot(window_.get(), QStringLiteral("filter-memory.png"));
    window_->setCurrentView(QStringLiteral("estimate"));
    screenshot(window_.get(), QStringLiteral("filter-estimate.png"));
}

void LayerFilterTest::nameFilter() {
    bar()->clearButton()->click();
    QVERIFY(!filter()->isActive());
    bar()->nameEdit()->setText(QStringLiteral("LAYER1"));  // case-insensitive: "/layer1/layer1.0/conv1/Conv" ...
    const int expected = countLayers(report().layers, [](const npuwb::LayerRow& row) {
        return QString::fromStdString(row.fullName).contains(QStringLiteral("layer1"), Qt::CaseInsensitive);
    });
    QVERIFY(expected > 0 && expected < shownLayers(report().layers));
    QCOMPARE(layers()->tableView()->proxyModel()->rowCount(), expected);
    QCOMPARE(bar()->countLabel()->text(),
             QStringLiteral("%1 of %2 layers").arg(expected).arg(shownRows(report())));
    // Name and op type together: the convolutions of layer1 only.
    QVERIFY(tick(QStringLiteral("Conv")));
    const int convsInLayer1 = countLayers(report().layers, [](const npuwb::LayerRow& row) {
        return row.opType == "Conv" && QString::fromStdString(row.fullName).contains(QStringLiteral("layer1"));
    });
    QCOMPARE(convsInLayer1, 4);  // two basic blocks of two convolutions
    QCOMPARE(layers()->tableView()->proxyModel()->rowCount(), convsInLayer1);
}

void LayerFilterTest::timeRangeFilter() {
    bar()->clearButton()->click();
    std::vector<double> times;
    for (const npuwb::LayerRow& row : report().layers) times.push_back(row.timeUs);
    std::sort(times.begin(), times.end());
    const double low = times[times.size() / 4], high = times[times.size() * 3 / 4];
    QVERIFY(high > low);
    bar()->minTimeEdit()->setText(QString::number(low, 'f', 3));
    bar()->maxTimeEdit()->setText(QString::number(high, 'f', 3));
    QVERIFY(filter()->minTimeUs() && filter()->maxTimeUs());
    const double min = *filter()->minTimeUs(), max = *filter()->maxTimeUs();
    const int expected = countLayers(report().layers, [&](const npuwb::LayerRow& row) {
        return row.timeUs >= min && row.timeUs <= max;
    });
    QVERIFY(expected > 0 && expected < shownLayers(report().layers));
    QCOMPARE(layers()->tableView()->proxyModel()->rowCount(), expected);
    for (int r = 0; r < expected; ++r) {
        const double t = layers()->tableView()->proxyModel()->index(r, LayerTableModel::TimeColumn)
                             .data(LayerTableModel::SortRole).toDouble();
        QVERIFY2(t >= min && t <= max, qPrintable(QString::number(t)));
    }
    QCOMPARE(layers()->timeChart()->barCount(), expected);
}

void LayerFilterTest::clearRestoresEveryView() {
    QVERIFY(tick(QStringLiteral("Conv")));
    QVERIFY(filter()->isActive());
    bar()->clearButton()->click();
    QVERIFY(!filter()->isActive());
    QVERIFY(bar()->opTypeChooser()->checked().isEmpty());
    QCOMPARE(bar()->opTypeChooser()->text(), QStringLiteral("any op type"));
    QVERIFY(bar()->nameEdit()->text().isEmpty());
    QVERIFY(bar()->minTimeEdit()->text().isEmpty() && bar()->maxTimeEdit()->text().isEmpty());
    QVERIFY(bar()->countLabel()->text().isEmpty());
    QVERIFY(!bar()->clearButton()->isEnabled());
    const int all = shownLayers(report().layers);
    QVERIFY(!report().removedLayers.empty());  // resnet18's Identity nodes on weights
    QCOMPARE(layers()->tableView()->proxyModel()->rowCount(), shownRows(report()));
    QCOMPARE(layers()->timeChart()->barCount(), all);
    const int estimated = int(estimate()->result()->report.layers.size());
    QCOMPARE(estimate()->tableProxy()->rowCount(), estimated);
    QCOMPARE(estimate()->timeChart()->filteredOutBars()->dataCount(), 0);
    QCOMPARE(brightOpNodes(), graph()->graphData().opNodes);
    QCOMPARE(memory()->matchingTensorCount(), memory()->model()->rowCount());
    QVERIFY(memory()->chart()->dimmedRows().empty());
    QVERIFY(!memory()->filterLabel()->isVisibleTo(memory()));
    QCOMPARE(greyTimelineLayers(), 0);
}

void LayerFilterTest::severalOpTypesAtOnce() {
    bar()->clearButton()->click();
    const auto convOrPool = [](const npuwb::LayerRow& row) { return row.opType == "Conv" || row.opType == "MaxPool"; };
    const int expected = countLayers(report().layers, convOrPool);
    const int convs = countLayers(report().layers, [](const npuwb::LayerRow& row) { return row.opType == "Conv"; });
    QVERIFY(expected > convs);  // the stem's MaxPool (resnet18's Relus run inside the convolutions' kernels)
    QVERIFY(tick(QStringLiteral("Conv")));
    QVERIFY(tick(QStringLiteral("MaxPool")));
    QCOMPARE(filter()->opTypes(), (QSet<QString>{QStringLiteral("Conv"), QStringLiteral("MaxPool")}));
    QCOMPARE(bar()->opTypeChooser()->text(), QStringLiteral("Conv, MaxPool"));
    QCOMPARE(bar()->countLabel()->text(),
             QStringLiteral("%1 of %2 layers").arg(expected).arg(shownRows(report())));
    QSortFilterProxyModel* rows = layers()->tableView()->proxyModel();
    QCOMPARE(rows->rowCount(), expected);
    for (int r = 0; r < rows->rowCount(); ++r) {
        const QString op = rows->index(r, LayerTableModel::OpTypeColumn).data().toString();
        const bool conv = op == QStringLiteral("Conv") || op.startsWith(QStringLiteral("Conv+"));
        QVERIFY2(conv || op == QStringLiteral("MaxPool"), qPrintable(op));
    }
    QCOMPARE(layers()->timeChart()->barCount(), expected);
    int graphMatches = 0;
    for (const GraphNodeInfo& node : graph()->graphData().nodes)
        graphMatches += node.opType == QStringLiteral("Conv") || node.opType == QStringLiteral("MaxPool");
    QCOMPARE(brightOpNodes(), graphMatches);
    QVERIFY(tick(QStringLiteral("Add")));  // a third: the button counts them
    QCOMPARE(bar()->opTypeChooser()->text(), QStringLiteral("3 op types"));
    bar()->show();
    window_->setCurrentView(QStringLiteral("layers"));
    screenshot(window_.get(), QStringLiteral("filter-several-op-types.png"));
    if (!qEnvironmentVariableIsEmpty("NPUWB_SCREENSHOT_DIR")) {  // the popup list is a window of its own
        QMenu* popup = bar()->opTypeChooser()->menu();
        popup->popup(bar()->opTypeChooser()->mapToGlobal(QPoint(0, bar()->opTypeChooser()->height())));
        screenshot(popup, QStringLiteral("filter-op-type-list.png"));
        popup->close();
    }
    QVERIFY(tick(QStringLiteral("Add"), false));
    QVERIFY(tick(QStringLiteral("MaxPool"), false));  // back to one: Conv only
    QCOMPARE(rows->rowCount(), convs);
    bar()->clearButton()->click();
}

void LayerFilterTest::filterIsSavedInTheSettings() {
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("filter.ini")), QSettings::IniFormat);
    QVERIFY(tick(QStringLiteral("Conv")));
    QVERIFY(tick(QStringLiteral("MaxPool")));
    bar()->nameEdit()->setText(QStringLiteral("layer"));
    bar()->minTimeEdit()->setText(QStringLiteral("1.5"));
    bar()->toggleAction()->setChecked(true);
    bar()->saveSettings(settings);
    bar()->clearButton()->click();
    bar()->toggleAction()->setChecked(false);
    QVERIFY(!filter()->isActive());

    bar()->restoreSettings(settings);
    QCOMPARE(filter()->opTypes(), (QSet<QString>{QStringLiteral("Conv"), QStringLiteral("MaxPool")}));
    QCOMPARE(filter()->name(), QStringLiteral("layer"));
    QCOMPARE(filter()->minTimeUs(), std::optional<double>(1.5));
    QVERIFY(!filter()->maxTimeUs());
    QVERIFY(bar()->toggleAction()->isChecked());
    QCOMPARE(bar()->opTypeChooser()->checked(), filter()->opTypes());  // the list shows what was restored
    QCOMPARE(bar()->nameEdit()->text(), QStringLiteral("layer"));

    // A saved op type the open model lacks is dropped, the others kept.
    settings.setValue(QStringLiteral("layerFilter/opTypes"), QStringList{QStringLiteral("Conv"), QStringLiteral("NoSuchOp")});
    bar()->restoreSettings(settings);
    QCOMPARE(filter()->opTypes(), QSet<QString>{QStringLiteral("Conv")});
    // Saved hidden but active: the bar comes back shown, so no layer is hidden out of sight.
    settings.setValue(QStringLiteral("layerFilter/shown"), false);
    bar()->toggleAction()->setChecked(false);
    bar()->restoreSettings(settings);
    QVERIFY(bar()->toggleAction()->isChecked());
    bar()->clearButton()->click();
    bar()->toggleAction()->setChecked(false);
}

void LayerFilterTest::cleanupTestCase() {
    testers_.clear();
    window_.reset();
}

QTEST_MAIN(LayerFilterTest)
#include "gui_filter_test.moc"
