// The Graph view's repeated blocks (views/graph/GraphBlocks) on models written by make_block_models.py: the blocks
// found in torch-style scoped names (the outermost repeating scope, not the indexed parts inside it), a big model
// opening collapsed, one block or all expanded and collapsed again (API, double-click, context menu, the action,
// Ctrl+Shift+B) with the drawn box count following, the state kept over a relayout, a model without repeating scopes
// staying flat, and selection, search, colouring, the filter and the properties panel reaching nodes inside a
// collapsed block. With NPUWB_GRAPH_BLOCKS_MODEL and NPUWB_SCREENSHOT_DIR set it opens that model and saves
// graph-blocks-collapsed.png and graph-blocks-expanded.png (its middle block expanded) there.
#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QContextMenuEvent>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTest>

#include <memory>

#include "core/Workbench.h"
#include "models/LayerFilter.h"
#include "models/LayerSelection.h"
#include "shell/MainWindow.h"
#include "views/graph/GraphItems.h"
#include "views/graph/GraphView.h"
#include "views/graph/NodeProperties.h"

using namespace npuwb::ui;

namespace {

constexpr int kTimeoutMs = 120000;
const QString kModels = QStringLiteral(NPUWB_BLOCK_MODELS_DIR "/");

/// The first row of the properties panel's first section with this key, "" when none.
QString propertyValue(const QStandardItemModel* model, const QString& key) {
    for (int s = 0; s < model->rowCount(); ++s) {
        const QStandardItem* section = model->item(s, 0);
        for (int r = 0; r < section->rowCount(); ++r)
            if (section->child(r, 0)->text() == key) return section->child(r, 1)->text();
    }
    return {};
}

}  // namespace

class GraphBlocksTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void findsTheOutermostRepeatingScopes();
    void bigModelOpensCollapsed();
    void expandsAndCollapsesOneBlock();
    void expandsAndCollapsesAll();
    void stateSurvivesARelayout();
    void selectionReachesACollapsedBlock();
    void searchColoursAndFilterReachBlocks();
    void smallModelStaysExpanded();
    void modelWithoutRepeatsStaysFlat();
    void screenshots();
    void cleanupTestCase();

private:
    GraphView* graph() const { return window_->view<GraphView>(); }
    bool openAndLayOut(const QString& path);
    /// Runs `change` and waits for the relayout it starts.
    bool relaidOut(const std::function<void()>& change);
    int block(const QString& prefix) const;
    QPoint onCanvas(const QGraphicsItem* item) const;
    void screenshot(const QString& name);

    std::unique_ptr<MainWindow> window_;
    std::unique_ptr<QAbstractItemModelTester> tester_;
};

void GraphBlocksTest::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_graph_blocks_test"));
    QSettings().clear();
    window_ = std::make_unique<MainWindow>();
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QVERIFY(graph());
    tester_ = std::make_unique<QAbstractItemModelTester>(graph()->properties()->model(),
                                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
}

bool GraphBlocksTest::openAndLayOut(const QString& path) {
    window_->setCurrentView(QStringLiteral("graph"));
    QSignalSpy shown(graph(), &GraphView::layoutShown);
    window_->openModel(path);
    return shown.wait(kTimeoutMs);
}

bool GraphBlocksTest::relaidOut(const std::function<void()>& change) {
    QSignalSpy shown(graph(), &GraphView::layoutShown);
    change();
    return shown.wait(kTimeoutMs);
}

int GraphBlocksTest::block(const QString& prefix) const {
    const auto& blocks = graph()->blocks().blocks;
    for (size_t b = 0; b < blocks.size(); ++b)
        if (blocks[b].prefix == prefix) return int(b);
    return -1;
}

QPoint GraphBlocksTest::onCanvas(const QGraphicsItem* item) const {
    graph()->canvas()->centerOn(item);
    return graph()->canvas()->mapFromScene(item->sceneBoundingRect().center());
}

void GraphBlocksTest::screenshot(const QString& name) {
    const QByteArray dir = qgetenv("NPUWB_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QTest::qWait(300);  // let the last paints land
    QVERIFY(window_->grab().save(QDir(QString::fromLocal8Bit(dir)).filePath(name)));
}

void GraphBlocksTest::findsTheOutermostRepeatingScopes() {
    QVERIFY(openAndLayOut(kModels + QStringLiteral("transformer.onnx")));
    const GraphData& data = graph()->graphData();
    const GraphBlocks& blocks = graph()->blocks();
    QCOMPARE(int(blocks.blocks.size()), 10);
    for (int i = 0; i < 10; ++i) {
        const GraphBlock& b = blocks.blocks[size_t(i)];
        QCOMPARE(b.prefix, QStringLiteral("/encoder/layers/encoder_layer_%1").arg(i));
        QCOMPARE(b.title, QStringLiteral("encoder_layer_%1").arg(i));
        // 35 scoped nodes plus the unscoped Identity of the shared weight only this layer reads.
        QCOMPARE(int(b.members.size()), 36);
        QCOMPARE(blocks.of(data.nodeOfName.value(QStringLiteral("Identity_%1").arg(i))), i);
        QVERIFY(b.params > 6 * 16 * 16);  // six 16x16 matrices and the vectors
        QVERIFY(b.macs > 0);
        QVERIFY(b.macsComplete);
    }
    // The indexed scopes inside a layer (ln_1/ln_2, mlp.0/mlp.3) are its parts, not blocks of their own.
    QCOMPARE(block(QStringLiteral("/encoder/layers/encoder_layer_0/ln_1")), -1);
    QCOMPARE(block(QStringLiteral("/encoder/layers/encoder_layer_0/mlp/mlp.0")), -1);
    QCOMPARE(blocks.of(data.nodeOfName.value(QStringLiteral("/encoder/layers/encoder_layer_4/mlp/mlp.3/Add"))), 4);
    QCOMPARE(blocks.of(data.nodeOfName.value(QStringLiteral("/patch/MatMul"))), -1);
    QCOMPARE(blocks.of(data.nodeOfName.value(QStringLiteral("/head/MatMul"))), -1);
}

void GraphBlocksTest::bigModelOpensCollapsed() {
    QVERIFY(openAndLayOut(kModels + QStringLiteral("transformer.onnx")));
    const GraphData& data = graph()->graphData();
    QVERIFY(data.opNodes > kCollapseBlocksNodes);
    for (int b = 0; b < 10; ++b) {
        QVERIFY(graph()->isBlockCollapsed(b));
        QVERIFY(graph()->blockItem(b));
        QVERIFY(!graph()->blockFrame(b));
    }
    // The patch MatMul, the head's two nodes, the input and output, and ten blocks.
    QCOMPARE(graph()->drawnBoxCount(), int(data.nodes.size()) - 360 + 10);
    QCOMPARE(graph()->drawnBoxCount(), 15);
    QVERIFY(!graph()->nodeItem(data.nodeOfName.value(QStringLiteral("/encoder/layers/encoder_layer_3/Add"))));
    QVERIFY(graph()->nodeItem(data.nodeOfName.value(QStringLiteral("/patch/MatMul"))));
    QVERIFY(graph()->collapseBlocksAction()->isEnabled());
    QVERIFY(graph()->collapseBlocksAction()->isChecked());
    QVERIFY(graph()->statusLabel()->text().contains(QStringLiteral("10 of 10 blocks collapsed")));
    // A box names its block, its node count and its figures.
    const QStringList lines = graph()->blockItem(3)->lines();
    QCOMPARE(lines.value(0), QStringLiteral("encoder_layer_3"));
    QCOMPARE(lines.value(1), QStringLiteral("36 nodes"));
    QVERIFY(lines.value(2).contains(QStringLiteral("MACs")) && lines.value(2).contains(QStringLiteral("params")));
    // Blocks are chained: one edge into each block from the one before.
    const QRectF first = graph()->blockItem(0)->sceneBoundingRect(), last = graph()->blockItem(9)->sceneBoundingRect();
    QVERIFY(first.bottom() < last.top());
}

void GraphBlocksTest::expandsAndCollapsesOneBlock() {
    const int collapsed = graph()->drawnBoxCount();
    const int target = block(QStringLiteral("/encoder/layers/encoder_layer_4"));
    QVERIFY(relaidOut([&] { graph()->setBlockCollapsed(target, false); }));
    QCOMPARE(graph()->drawnBoxCount(), collapsed - 1 + 36);
    QVERIFY(!graph()->blockItem(target));
    QVERIFY(graph()->blockFrame(target));  // its outline, while the others stay collapsed
    const GraphData& data = graph()->graphData();
    const int add = data.nodeOfName.value(QStringLiteral("/encoder/layers/encoder_layer_4/Add"));
    GraphNodeItem* inside = graph()->nodeItem(add);
    QVERIFY(inside);
    QVERIFY(graph()->blockFrame(target)->sceneBoundingRect().contains(inside->sceneBoundingRect()));
    // Shown where it was expanded.
    const QRectF visible = graph()->canvas()->mapToScene(graph()->canvas()->viewport()->rect()).boundingRect();
    QVERIFY(visible.intersects(graph()->blockFrame(target)->sceneBoundingRect()));
    for (int b = 0; b < 10; ++b) QCOMPARE(graph()->isBlockCollapsed(b), b != target);

    // Double-click on a node inside the expanded block collapses it again; on a box, expands that one.
    QVERIFY(relaidOut([&] {
        QTest::mouseDClick(graph()->canvas()->viewport(), Qt::LeftButton, {}, onCanvas(inside));
    }));
    QCOMPARE(graph()->drawnBoxCount(), collapsed);
    QVERIFY(graph()->isBlockCollapsed(target));
    QVERIFY(relaidOut([&] {
        QTest::mouseDClick(graph()->canvas()->viewport(), Qt::LeftButton, {}, onCanvas(graph()->blockItem(7)));
    }));
    QVERIFY(!graph()->isBlockCollapsed(7));
    QCOMPARE(graph()->drawnBoxCount(), collapsed - 1 + 36);
    QVERIFY(relaidOut([&] { graph()->setBlockCollapsed(7, true); }));
    QCOMPARE(graph()->drawnBoxCount(), collapsed);

    // The context menu on a box: its first entry expands that block.
    QVERIFY(relaidOut([&] {
        QWidget* viewport = graph()->canvas()->viewport();
        const QPoint at = onCanvas(graph()->blockItem(8));
        QContextMenuEvent event(QContextMenuEvent::Mouse, at, viewport->mapToGlobal(at));
        QApplication::sendEvent(viewport, &event);
        QMenu* menu = graph()->findChild<QMenu*>();
        QVERIFY(menu);
        QCOMPARE(menu->actions().value(0)->text(), QStringLiteral("Expand Block encoder_layer_8"));
        menu->actions().value(0)->trigger();
        menu->hide();
        delete menu;
    }));
    QVERIFY(!graph()->isBlockCollapsed(8));
    // The popup took the window's activation: shortcuts and clicks need it back.
    QTRY_VERIFY(!QApplication::activePopupWidget());
    window_->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(window_.get()));
    QVERIFY(relaidOut([&] { graph()->setBlockCollapsed(8, true); }));
}

void GraphBlocksTest::expandsAndCollapsesAll() {
    const GraphData& data = graph()->graphData();
    QAction* action = graph()->collapseBlocksAction();
    QVERIFY(relaidOut([&] { action->trigger(); }));  // checked (collapsed) -> expand all
    QCOMPARE(graph()->drawnBoxCount(), int(data.nodes.size()));
    QVERIFY(!action->isChecked());
    for (int b = 0; b < 10; ++b) QVERIFY(!graph()->blockFrame(b));  // a flat graph keeps its plain look
    QVERIFY(relaidOut([&] {
        graph()->canvas()->setFocus();
        QTest::keyClick(graph()->canvas(), Qt::Key_B, Qt::ControlModifier | Qt::ShiftModifier);
    }));
    QCOMPARE(graph()->drawnBoxCount(), 15);
    QVERIFY(action->isChecked());
}

void GraphBlocksTest::stateSurvivesARelayout() {
    QVERIFY(relaidOut([&] { graph()->setBlockCollapsed(2, false); }));
    const int drawn = graph()->drawnBoxCount();
    QVERIFY(relaidOut([&] { QVERIFY(graph()->startFromCommandLine()); }));  // lays the same model out again
    QCOMPARE(graph()->drawnBoxCount(), drawn);
    QVERIFY(!graph()->isBlockCollapsed(2));
    QVERIFY(graph()->isBlockCollapsed(3));
    QVERIFY(relaidOut([&] { graph()->setBlockCollapsed(2, true); }));
}

void GraphBlocksTest::selectionReachesACollapsedBlock() {
    const GraphData& data = graph()->graphData();
    const QString name = QStringLiteral("/encoder/layers/encoder_layer_6/self_attention/Softmax");
    const int node = data.nodeOfName.value(name, -1);
    QVERIFY(node >= 0);
    QVERIFY(graph()->isBlockCollapsed(6));
    // From another tab, through the shared selection: the block's box stands for the node.
    window_->workbench()->selection()->selectNodes({name});
    QCOMPARE(graph()->currentNode(), node);
    QVERIFY(graph()->blockItem(6)->isCurrent());
    QVERIFY(graph()->blockItem(6)->isMarked());
    QCOMPARE(propertyValue(graph()->properties()->model(), QStringLiteral("Name")), name);
    const QRectF visible = graph()->canvas()->mapToScene(graph()->canvas()->viewport()->rect()).boundingRect();
    QVERIFY(visible.contains(graph()->blockItem(6)->sceneBoundingRect().center()));
    // Clicking a box selects its block: every layer in it, and the panel sums it up.
    QTest::mouseClick(graph()->canvas()->viewport(), Qt::LeftButton, {}, onCanvas(graph()->blockItem(2)));
    QCOMPARE(graph()->currentBlock(), 2);
    QVERIFY(!graph()->blockItem(6)->isCurrent());
    QVERIFY(graph()->blockItem(2)->isCurrent());
    QCOMPARE(window_->workbench()->selection()->selectedNodes().size(), 36);
    QCOMPARE(propertyValue(graph()->properties()->model(), QStringLiteral("Scope")),
             QStringLiteral("/encoder/layers/encoder_layer_2"));
    QCOMPARE(propertyValue(graph()->properties()->model(), QStringLiteral("Nodes")), QStringLiteral("36"));
    // A selected node shows once its block is expanded.
    window_->workbench()->selection()->selectNodes({name});
    QVERIFY(relaidOut([&] { graph()->setBlockCollapsed(6, false); }));
    QVERIFY(graph()->nodeItem(node));
    QVERIFY(graph()->nodeItem(node)->isCurrent());
    QVERIFY(relaidOut([&] { graph()->setBlockCollapsed(6, true); }));
    QVERIFY(graph()->blockItem(6)->isCurrent());
}

void GraphBlocksTest::searchColoursAndFilterReachBlocks() {
    // Search: a hit inside a collapsed block lights its box.
    graph()->searchField()->setText(QStringLiteral("Softmax"));
    QCOMPARE(int(graph()->searchHits().size()), 10);
    for (int b = 0; b < 10; ++b) QVERIFY(graph()->blockItem(b)->isSearchHit());
    graph()->searchField()->setText(QStringLiteral("/patch/"));
    for (int b = 0; b < 10; ++b) QVERIFY(!graph()->blockItem(b)->isSearchHit());
    graph()->searchField()->clear();

    // Colour by time from a run: a block is coloured by its total, the slowest darkest.
    auto report = std::make_shared<npuwb::Report>();
    const GraphData& data = graph()->graphData();
    int64_t id = 0;
    for (const GraphNodeInfo& node : data.nodes) {
        if (node.kind != GraphNodeInfo::Kind::Op) continue;
        npuwb::LayerRow row;
        row.id = id++;
        row.fullName = node.name.toStdString();
        row.opType = node.opType.toStdString();
        row.timeUs = node.name.contains(QStringLiteral("encoder_layer_9/")) ? 50.0 : 1.0;
        report->layers.push_back(row);
    }
    window_->workbench()->showReport(report);
    graph()->setMetric(GraphMetric::Time);
    const QColor hot = graph()->blockItem(9)->fill(), cool = graph()->blockItem(1)->fill();
    QVERIFY(hot != missingMetricColor());
    QVERIFY(cool != missingMetricColor());
    QVERIFY(hot.lightnessF() < cool.lightnessF());
    QVERIFY(graph()->legendLabel()->text().contains(QStringLiteral("collapsed blocks")));
    graph()->setMetric(GraphMetric::OpType);

    // The shared filter: a block stays lit when one of its nodes matches, else it is dimmed with the rest.
    LayerFilter* filter = window_->workbench()->layerFilter();
    filter->setOpTypes({QStringLiteral("Softmax")});
    for (int b = 0; b < 10; ++b) QCOMPARE(graph()->blockItem(b)->opacity(), 1.0);
    filter->setOpTypes({QStringLiteral("Identity")});
    for (int b = 0; b < 10; ++b) QCOMPARE(graph()->blockItem(b)->opacity(), 1.0);  // each holds its Identity
    filter->setOpTypes({QStringLiteral("ReduceMean")});
    filter->setName(QStringLiteral("/head/"));
    for (int b = 0; b < 10; ++b) QVERIFY(graph()->blockItem(b)->opacity() < 1.0);
    QCOMPARE(graph()->nodeItem(data.nodeOfName.value(QStringLiteral("/head/ReduceMean")))->opacity(), 1.0);
    filter->setName(QString());
    filter->setOpTypes({});
}

void GraphBlocksTest::smallModelStaysExpanded() {
    QVERIFY(openAndLayOut(kModels + QStringLiteral("small_blocks.onnx")));
    const GraphData& data = graph()->graphData();
    QVERIFY(data.opNodes < kCollapseBlocksNodes);
    QCOMPARE(int(graph()->blocks().blocks.size()), 3);
    QCOMPARE(graph()->blocks().blocks[1].prefix, QStringLiteral("/blocks.1"));
    QCOMPARE(graph()->drawnBoxCount(), int(data.nodes.size()));
    QVERIFY(graph()->collapseBlocksAction()->isEnabled());
    QVERIFY(!graph()->collapseBlocksAction()->isChecked());
    QVERIFY(relaidOut([&] { graph()->collapseBlocksAction()->trigger(); }));
    QCOMPARE(graph()->drawnBoxCount(), int(data.nodes.size()) - 3 * 36 + 3);
}

void GraphBlocksTest::modelWithoutRepeatsStaysFlat() {
    QVERIFY(openAndLayOut(kModels + QStringLiteral("flat.onnx")));
    const GraphData& data = graph()->graphData();
    QVERIFY(data.opNodes > kCollapseBlocksNodes);
    QVERIFY(graph()->blocks().empty());  // /stageN/ scopes hold different ops: no repetition
    QCOMPARE(graph()->drawnBoxCount(), int(data.nodes.size()));
    QVERIFY(!graph()->collapseBlocksAction()->isEnabled());
    QVERIFY(!graph()->statusLabel()->text().contains(QStringLiteral("blocks")));
}

void GraphBlocksTest::screenshots() {
    const QByteArray model = qgetenv("NPUWB_GRAPH_BLOCKS_MODEL");
    if (model.isEmpty() || qEnvironmentVariableIsEmpty("NPUWB_SCREENSHOT_DIR")) return;  // by hand only
    QVERIFY(openAndLayOut(QString::fromLocal8Bit(model)));
    QVERIFY(!graph()->blocks().empty());
    // The first block's summary in the panel.
    const QPoint first = graph()->canvas()->mapFromScene(graph()->blockItem(0)->sceneBoundingRect().center());
    QTest::mouseClick(graph()->canvas()->viewport(), Qt::LeftButton, {}, first);
    QCOMPARE(graph()->currentBlock(), 0);
    screenshot(QStringLiteral("graph-blocks-collapsed.png"));
    const int middle = int(graph()->blocks().blocks.size()) / 2;
    window_->workbench()->selection()->clear();
    QVERIFY(relaidOut([&] { graph()->setBlockCollapsed(middle, false); }));
    // Its top node's properties in the panel.
    GraphNodeItem* top = nullptr;
    for (int node : graph()->blocks().blocks[size_t(middle)].members)
        if (GraphNodeItem* item = graph()->nodeItem(node); item && (!top || item->y() < top->y())) top = item;
    QVERIFY(top);
    QTest::mouseClick(graph()->canvas()->viewport(), Qt::LeftButton, {},
                      graph()->canvas()->mapFromScene(top->sceneBoundingRect().center()));
    screenshot(QStringLiteral("graph-blocks-expanded.png"));
}

void GraphBlocksTest::cleanupTestCase() {
    tester_.reset();
    window_.reset();
}

QTEST_MAIN(GraphBlocksTest)
#include "gui_graph_blocks_test.moc"
