// The Graph view (views/graph) and its layout job: Graphviz dot's -Tplain output read back (and malformed text
// refused with an error, never a crash), a slow or missing dot cancelled, timed out and reported, and the view on
// real models: one item per node, the shared selection both ways, search, keyboard moves along edges, colours by
// time after a local run, fused layers of an estimate as groups, the properties panel, and a 10,000-node chain on
// the cheaper layout. Layout times are printed (qInfo) for the models laid out. With NPUWB_SCREENSHOT_DIR set it
// saves graph-resnet18-time.png and graph-ppocr-det.png there; NPUWB_GRAPH_BENCH_MODELS (paths joined by ':')
// lays out more models and prints their times.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QStandardItemModel>

#include <csignal>
#include <map>
#include <string>

#include "core/Workbench.h"
#include "jobs/EstimateJob.h"
#include "jobs/GraphLayoutJob.h"
#include "models/GraphLayout.h"
#include "models/LayerSelection.h"
#include "npuwb/Error.h"
#include "run/RunController.h"
#include "run/RunOptionsBar.h"
#include "shell/MainWindow.h"
#include "views/graph/GraphItems.h"
#include "views/graph/GraphView.h"
#include "views/graph/NodeProperties.h"

using namespace npuwb::ui;
using npuwb::LayerRow;
using npuwb::Report;

namespace {

constexpr int kTimeoutMs = 120000;
const QString kModels = QStringLiteral(NPUWB_SOURCE_DIR "/tests/data/models/");

/// A diamond with a tail: 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3, 3 -> 4; nodes 1 and 3 grouped.
LayoutRequest diamond() {
    LayoutRequest r;
    r.nodes = {QSizeF(80, 30), QSizeF(100, 30), QSizeF(60, 30), QSizeF(80, 40), QSizeF(70, 30)};
    r.edges = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}};
    r.groups = {{1, 3}};
    return r;
}

QByteArray runDot(const QByteArray& dot) {
    QProcess process;
    process.start(QStringLiteral("dot"), {QStringLiteral("-Tplain")});
    process.write(dot);
    process.closeWriteChannel();
    if (!process.waitForFinished(30000)) return {};
    return process.readAllStandardOutput();
}

/// A stand-in for dot: a shell script with `body`, which may write its pid to `pidFile`.
QString fakeDot(const QTemporaryDir& dir, const QString& body) {
    const QString path = dir.filePath(QStringLiteral("fake-dot"));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write(QStringLiteral("#!/bin/sh\n%1\n").arg(body).toUtf8());
    file.close();
    file.setPermissions(file.permissions() | QFileDevice::ExeOwner);
    return path;
}

bool processAlive(qint64 pid) {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    if (!status.open(QIODevice::ReadOnly)) return false;
    return !status.readAll().contains("State:\tZ");  // a zombie is dead, just not reaped
}

}  // namespace

class GraphViewTest : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void readsDotPlainOutput();
    void refusesMalformedPlainOutput();
    void layeredLayoutKeepsRanksInOrder();
    void layoutJobCancelsAndTimesOut();
    void missingDotIsAClearError();
    void viewSaysWhenDotIsMissing();
    void viewCancelsASlowLayout();
    void showsEveryNodeOfAModel();
    void selectionGoesBothWays();
    void searchesByNameAndOpType();
    void keysFollowEdges();
    void coloursByTimeAfterARun();
    void estimateFusedLayersAreGroups();
    void propertiesShowWeights();
    void coloursByQuantizationError();
    void laysOutPpOcrDet();
    void largeChainUsesTheCheaperLayout();
    void benchModels();
    void cleanupTestCase();

private:
    GraphView* graph() const { return window_->view<GraphView>(); }
    /// Opens `path` with the Graph tab current and waits for its layout; returns the layout time in ms.
    qint64 openAndLayOut(const QString& path);
    void screenshot(const QString& name);
    int opItems() const;
    /// In view and at the canvas's vertical centre (a graph narrower than the canvas cannot scroll sideways).
    bool isCentred(const GraphNodeItem* item) const;

    std::unique_ptr<MainWindow> window_;
    std::unique_ptr<QAbstractItemModelTester> tester_;
};

void GraphViewTest::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("npuwb-test"));
    QCoreApplication::setApplicationName(QStringLiteral("gui_graph_test"));
    QSettings().clear();
    window_ = std::make_unique<MainWindow>();
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QVERIFY(graph());
    tester_ = std::make_unique<QAbstractItemModelTester>(graph()->properties()->model(),
                                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
}

qint64 GraphViewTest::openAndLayOut(const QString& path) {
    window_->setCurrentView(QStringLiteral("graph"));
    QSignalSpy shown(graph(), &GraphView::layoutShown);
    QElapsedTimer clock;
    clock.start();
    window_->openModel(path);
    if (!shown.wait(kTimeoutMs)) return -1;
    const qint64 total = clock.elapsed();
    qInfo().noquote() << QFileInfo(path).fileName() << ":" << graph()->statusLabel()->text() << "; load + layout + draw"
                      << total << "ms";
    return total;
}

int GraphViewTest::opItems() const {
    int ops = 0;
    for (int i = 0; i < graph()->nodeItemCount(); ++i)
        ops += graph()->graphData().nodes[size_t(i)].kind == GraphNodeInfo::Kind::Op ? 1 : 0;
    return ops;
}

bool GraphViewTest::isCentred(const GraphNodeItem* item) const {
    const GraphCanvas* canvas = graph()->canvas();
    const QRectF visible = canvas->mapToScene(canvas->viewport()->rect()).boundingRect();
    const QRectF box = item->sceneBoundingRect();
    if (!visible.contains(box) || std::abs(box.center().y() - visible.center().y()) >= box.height())
        qWarning() << "visible" << visible << "node" << box;
    return visible.contains(box) && std::abs(box.center().y() - visible.center().y()) < box.height();
}

void GraphViewTest::screenshot(const QString& name) {
    const QByteArray dir = qgetenv("NPUWB_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    QTest::qWait(200);  // let the last paints land
    QVERIFY(window_->grab().save(QDir(QString::fromLocal8Bit(dir)).filePath(name)));
}

void GraphViewTest::readsDotPlainOutput() {
    const LayoutRequest request = diamond();
    const QByteArray dot = toDot(request);
    QVERIFY(dot.contains("subgraph cluster_0 { n1; n3; }"));
    const QByteArray plain = runDot(dot);
    QVERIFY2(plain.startsWith("graph "), plain.constData());
    const LayoutResult result = parsePlain(plain, request);
    QCOMPARE(result.centers.size(), request.nodes.size());
    QCOMPARE(result.edgeRoutes.size(), request.edges.size());
    QVERIFY(result.splines);
    for (const QPointF& c : result.centers)
        QVERIFY(c.x() > 0 && c.y() > 0 && c.x() < result.size.width() && c.y() < result.size.height());
    // Top to bottom, y down: every producer above its consumer.
    for (const auto& e : request.edges) QVERIFY(result.centers[size_t(e.from)].y() < result.centers[size_t(e.to)].y());
    for (const auto& route : result.edgeRoutes) QVERIFY(route.size() >= 4 && route.size() % 3 == 1);
    // Quoted words with escapes (labels) are one word.
    const QByteArray quoted = "graph 1 2 2\nnode n0 1 1 1 0.5 \"a \\\"b\\\" c\" solid box black lightgrey\nstop\n";
    LayoutRequest one;
    one.nodes = {QSizeF(72, 36)};
    QCOMPARE(parsePlain(quoted, one).centers[0], QPointF(72, 72));
}

void GraphViewTest::refusesMalformedPlainOutput() {
    const LayoutRequest request = diamond();
    const QByteArray good = runDot(toDot(request));
    QVERIFY(!good.isEmpty());
    const QList<QByteArray> bad = {
        QByteArray(),
        "graph 1 2 2\n",                                        // no stop: truncated
        "node n0 1 1 1 1 x solid box black lightgrey\nstop\n",  // before the graph line
        "graph 1 x 2\nstop\n",
        "graph 1 2 2\nnode n9 1 1 1 1 \"\" solid box black lightgrey\nstop\n",
        "graph 1 2 2\nnode m0 1 1 1 1 \"\" solid box black lightgrey\nstop\n",
        "graph 1 2 2\nnode n0 nan 1 1 1 \"\" solid\nstop\n",
        "graph 1 2 2\nnode n0 1 1 1 1 \"unterminated\nstop\n",
        "graph 1 2 2\nedge n0 n4 2 1 1 2 2 solid black\nstop\n",  // not asked for
        "graph 1 2 2\nedge n0 n1 99999999 1 1 solid black\nstop\n",
        "graph 1 2 2\nedge n0 n1 -1 solid black\nstop\n",
        "graph 1 2 2\nbogus 1 2\nstop\n",
        good.left(good.size() / 2),            // cut in the middle
        QByteArray(good).replace("n2", "n7"),  // a node it never had
        QByteArray("\x00\xff\xfe garbage", 12),
    };
    for (const QByteArray& text : bad) {
        try {
            parsePlain(text, request);
            QFAIL(qPrintable(QStringLiteral("accepted: %1").arg(QString::fromLatin1(text.left(80)))));
        } catch (const npuwb::Error& e) {
            QVERIFY2(QByteArray(e.what()).contains("dot output"), e.what());
        }
    }
}

void GraphViewTest::layeredLayoutKeepsRanksInOrder() {
    const LayoutRequest request = diamond();
    const LayoutResult result = layeredLayout(request);
    QVERIFY(!result.splines);
    for (const auto& e : request.edges) QVERIFY(result.centers[size_t(e.from)].y() < result.centers[size_t(e.to)].y());
    QCOMPARE(result.centers[1].y(), result.centers[2].y());                                // one rank
    QVERIFY(std::abs(result.centers[1].x() - result.centers[2].x()) >= (100 + 60) / 2.0);  // no overlap
    // An edge past a rank goes around the node in its way instead of through it.
    LayoutRequest skip;
    skip.nodes = {QSizeF(80, 30), QSizeF(80, 30), QSizeF(80, 30)};
    skip.edges = {{0, 1}, {1, 2}, {0, 2}};
    const LayoutResult around = layeredLayout(skip);
    QCOMPARE(around.edgeRoutes[0].size(), size_t(2));
    QCOMPARE(around.edgeRoutes[2].size(), size_t(4));
    QVERIFY(around.edgeRoutes[2][1].x() > around.centers[1].x() + 40);
}

void GraphViewTest::layoutJobCancelsAndTimesOut() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString pidFile = dir.filePath(QStringLiteral("pid"));
    GraphLayoutJob job;
    job.setProgram(fakeDot(dir, QStringLiteral("echo $$ > %1; exec sleep 60").arg(pidFile)));
    auto request = std::make_shared<const LayoutRequest>(diamond());

    QSignalSpy cancelled(&job, &GraphLayoutJob::cancelled);
    QSignalSpy failed(&job, &GraphLayoutJob::failed);
    QSignalSpy finished(&job, &GraphLayoutJob::finished);
    job.start(request);
    QVERIFY(job.isRunning());
    QTRY_VERIFY(QFile::exists(pidFile) && QFile(pidFile).size() > 0);
    QFile file(pidFile);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const qint64 pid = file.readAll().trimmed().toLongLong();
    QVERIFY(pid > 0 && processAlive(pid));
    QElapsedTimer clock;
    clock.start();
    job.cancelLayout();
    QCOMPARE(cancelled.count(), 1);
    QVERIFY(!job.isRunning());
    QVERIFY(clock.elapsed() < 5000);
    QTRY_VERIFY(!processAlive(pid));  // the child was killed, not left behind
    QVERIFY(failed.isEmpty() && finished.isEmpty());

    QFile::remove(pidFile);
    job.setTimeoutMs(400);
    job.setFallBackOnTimeout(false);
    job.start(request);
    QVERIFY(failed.wait(10000));
    QVERIFY2(failed.last().at(0).toString().contains(QStringLiteral("longer than 1 s")),
             qPrintable(failed.last().at(0).toString()));
    QVERIFY(!job.isRunning());
    QTRY_VERIFY(QFile::exists(pidFile) && QFile(pidFile).size() > 0);
    file.close();
    QVERIFY(file.open(QIODevice::ReadOnly));
    const qint64 second = file.readAll().trimmed().toLongLong();
    QVERIFY(second > 0);
    QTRY_VERIFY(!processAlive(second));

    // By default a timeout still draws the graph, with the in-process layout, and says why.
    QFile::remove(pidFile);
    job.setFallBackOnTimeout(true);
    job.start(request);
    QVERIFY(finished.wait(10000));
    const auto result = finished.last().at(0).value<std::shared_ptr<const LayoutResult>>();
    QCOMPARE(result->centers.size(), request->nodes.size());
    QVERIFY2(result->method.contains(QStringLiteral("layered by rank")) &&
                 result->method.contains(QStringLiteral("took longer than 1 s")),
             qPrintable(result->method));
    QTRY_VERIFY(QFile::exists(pidFile) && QFile(pidFile).size() > 0);
    file.close();
    QVERIFY(file.open(QIODevice::ReadOnly));
    const qint64 third = file.readAll().trimmed().toLongLong();
    QVERIFY(third > 0);
    QTRY_VERIFY(!processAlive(third));
    finished.clear();

        // A dot that answers garbage: an error naming the line, not a crash.
    job.setProgram(fakeDot(dir, QStringLiteral("cat > /dev/null; echo 'graph 1 1 1'; echo 'node n0 zz'")));
    job.start(request);
    QVERIFY(failed.wait(10000));
    QVERIFY2(failed.last().at(0).toString().contains(QStringLiteral("dot output line 2")),
             qPrintable(failed.last().at(0).toString()));
    // A dot that fails: its exit code and message.
    job.setProgram(fakeDot(dir, QStringLiteral("cat > /dev/null; echo 'syntax error in line 1' >&2; exit 3")));
    job.start(request);
    QVERIFY(failed.wait(10000));
    QVERIFY2(failed.last().at(0).toString().contains(QStringLiteral("exit code 3")) &&
                 failed.last().at(0).toString().contains(QStringLiteral("syntax error")),
             qPrintable(failed.last().at(0).toString()));
    QVERIFY(finished.isEmpty());
}

void GraphViewTest::missingDotIsAClearError() {
    for (const QString& program : {QStringLiteral("/nonexistent/dot"), QStringLiteral("npuwb-no-such-dot")}) {
        GraphLayoutJob job;
        job.setProgram(program);
        QSignalSpy failed(&job, &GraphLayoutJob::failed);
        job.start(std::make_shared<const LayoutRequest>(diamond()));
        QTRY_COMPARE(failed.count(), 1);
        const QString message = failed.first().at(0).toString();
        QVERIFY2(message.contains(QStringLiteral("Graphviz 'dot' not found")) && message.contains(program),
                 qPrintable(message));
        QVERIFY(!job.isRunning());
    }
}

void GraphViewTest::viewSaysWhenDotIsMissing() {
    GraphLayoutJob* job = graph()->layoutJob();
    const QString program = job->program();
    job->setProgram(QStringLiteral("/nonexistent/dot"));
    window_->setCurrentView(QStringLiteral("graph"));
    QSignalSpy ended(graph(), &GraphView::layoutEnded);
    window_->openModel(kModels + QStringLiteral("resnet18.onnx"));
    QVERIFY(ended.wait(kTimeoutMs));
    job->setProgram(program);
    QVERIFY2(graph()->statusLabel()->text().contains(QStringLiteral("Graphviz 'dot' not found")),
             qPrintable(graph()->statusLabel()->text()));
    QCOMPARE(graph()->nodeItemCount(), 0);
    window_->workbench()->showMessage(QString(), 1);  // the message would linger in the later screenshots
}

void GraphViewTest::viewCancelsASlowLayout() {
    QTemporaryDir dir;
    GraphLayoutJob* job = graph()->layoutJob();
    const QString program = job->program();
    job->setProgram(fakeDot(dir, QStringLiteral("exec sleep 60")));
    QSignalSpy ended(graph(), &GraphView::layoutEnded);
    window_->openModel(kModels + QStringLiteral("resnet18.onnx"));
    auto* cancel = graph()->findChild<QPushButton*>(QStringLiteral("graphCancel"));
    QVERIFY(cancel);
    QTRY_VERIFY(job->isRunning() && cancel->isVisible());
    QVERIFY(window_->workbench()->hasModel());  // the window is usable meanwhile: dot runs as its own process
    QTest::mouseClick(cancel, Qt::LeftButton);
    QCOMPARE(ended.count(), 1);
    QVERIFY(!job->isRunning());
    QVERIFY(!cancel->isVisible());
    QVERIFY2(graph()->statusLabel()->text().contains(QStringLiteral("cancelled")),
             qPrintable(graph()->statusLabel()->text()));
    job->setProgram(program);
}

void GraphViewTest::showsEveryNodeOfAModel() {
    QVERIFY(openAndLayOut(kModels + QStringLiteral("resnet18.onnx")) >= 0);
    const auto model = window_->workbench()->currentModel();
    QVERIFY(model);
    QCOMPARE(opItems(), int(model->graph.nodes.size()));
    QCOMPARE(graph()->nodeItemCount(),
             int(model->graph.nodes.size() + model->graph.inputs.size() + model->graph.outputs.size()));
    QVERIFY(graph()->statusLabel()->text().contains(QStringLiteral("Graphviz dot")));
    // Every node has a place of its own.
    QSet<QPair<int, int>> places;
    for (int i = 0; i < graph()->nodeItemCount(); ++i)
        places.insert({int(graph()->nodeItem(i)->pos().x()), int(graph()->nodeItem(i)->pos().y())});
    QCOMPARE(int(places.size()), graph()->nodeItemCount());
    QVERIFY(graph()->minimap()->isVisible());
}

void GraphViewTest::selectionGoesBothWays() {
    LayerSelection* selection = window_->workbench()->selection();
    const auto& layers = window_->workbench()->loadedModel()->layers;
    QVERIFY(layers.size() > 20);
    // Another tab selects a layer: the graph makes its node current and centres it.
    const LayerRow& row = layers[layers.size() / 2];  // mid-graph: the canvas can scroll it to the centre
    selection->selectLayer(int(row.id));
    const int node = graph()->currentNode();
    QVERIFY(node >= 0);
    QCOMPARE(graph()->graphData().nodes[size_t(node)].name, QString::fromStdString(row.fullName));
    GraphNodeItem* item = graph()->nodeItem(node);
    QVERIFY(item->isCurrent());
    QVERIFY2(isCentred(item), "the selected node is not centred");
    // A click in the graph selects the layer everywhere.
    const LayerRow& other = layers[5];
    GraphNodeItem* target =
        graph()->nodeItem(graph()->graphData().nodeOfName.value(QString::fromStdString(other.fullName)));
    QVERIFY(target);
    graph()->canvas()->ensureVisible(target);
    const QPoint at = graph()->canvas()->mapFromScene(target->sceneBoundingRect().center());
    QTest::mouseClick(graph()->canvas()->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(selection->selectedLayer(), int(other.id));
    QCOMPARE(graph()->currentNode(), target->index());
    QVERIFY(!item->isCurrent());
}

void GraphViewTest::searchesByNameAndOpType() {
    QLineEdit* search = graph()->searchField();
    search->setText(QStringLiteral("gemm"));  // op type, any case
    QCOMPARE(int(graph()->searchHits().size()), 1);
    search->setText(QStringLiteral("layer3.1/conv"));
    QCOMPARE(int(graph()->searchHits().size()), 2);  // conv1 and conv2 of that block
    for (int hit : graph()->searchHits()) QVERIFY(graph()->nodeItem(hit)->isSearchHit());
    QTest::keyClick(search, Qt::Key_Return);
    const int first = graph()->currentNode();
    QCOMPARE(first, graph()->searchHits()[0]);
    QTest::keyClick(search, Qt::Key_Return);  // Enter cycles
    QCOMPARE(graph()->currentNode(), graph()->searchHits()[1]);
    QTest::keyClick(search, Qt::Key_Return);
    QCOMPARE(graph()->currentNode(), first);
    QCOMPARE(window_->workbench()->selection()->selectedNodes().value(0),
             graph()->graphData().nodes[size_t(first)].name);
    search->clear();
    QVERIFY(graph()->searchHits().empty());
    QVERIFY(!graph()->nodeItem(first)->isSearchHit());
    // Ctrl+F puts the cursor into the field.
    graph()->canvas()->setFocus();
    QTest::keyClick(graph()->canvas(), Qt::Key_F, Qt::ControlModifier);
    QVERIFY(search->hasFocus());
}

void GraphViewTest::keysFollowEdges() {
    const GraphData& data = graph()->graphData();
    GraphCanvas* canvas = graph()->canvas();
    const int conv1 = data.nodeOfName.value(QStringLiteral("/conv1/Conv"), -1);
    QVERIFY(conv1 >= 0);
    window_->workbench()->selection()->selectNodes({QStringLiteral("/conv1/Conv")});
    QCOMPARE(graph()->currentNode(), conv1);
    canvas->setFocus();
    QTest::keyClick(canvas, Qt::Key_Down);
    QCOMPARE(data.nodes[size_t(graph()->currentNode())].opType, QStringLiteral("Relu"));
    QTest::keyClick(canvas, Qt::Key_Tab);
    QCOMPARE(data.nodes[size_t(graph()->currentNode())].opType, QStringLiteral("MaxPool"));
    QTest::keyClick(canvas, Qt::Key_Up);
    QCOMPARE(data.nodes[size_t(graph()->currentNode())].opType, QStringLiteral("Relu"));
    QTest::keyClick(canvas, Qt::Key_Backtab);
    QCOMPARE(graph()->currentNode(), conv1);
    QCOMPARE(window_->workbench()->selection()->selectedNodes().value(0), QStringLiteral("/conv1/Conv"));
    // The max pool feeds two nodes (a conv and the residual Add): Right/Left move between them.
    const int pool = data.nodeOfName.value(QStringLiteral("/maxpool/MaxPool"), -1);
    QVERIFY(pool >= 0 && data.consumers[size_t(pool)].size() == 2);
    window_->workbench()->selection()->selectNodes({data.nodes[size_t(data.consumers[size_t(pool)][0])].name});
    QTest::keyClick(canvas, Qt::Key_Right);
    QCOMPARE(graph()->currentNode(), data.consumers[size_t(pool)][1]);
    QTest::keyClick(canvas, Qt::Key_Left);
    QCOMPARE(graph()->currentNode(), data.consumers[size_t(pool)][0]);
    // Zoom keys.
    const double zoom = canvas->zoom();
    QTest::keyClick(canvas, Qt::Key_Plus);
    QVERIFY(canvas->zoom() > zoom);
    QTest::keyClick(canvas, Qt::Key_Minus);
    QTest::keyClick(canvas, Qt::Key_Minus);
    QVERIFY(canvas->zoom() < zoom);
    QTest::keyClick(canvas, Qt::Key_0);  // fit: the whole graph in view
    const QRectF visible = canvas->mapToScene(canvas->viewport()->rect()).boundingRect();
    for (int i = 0; i < graph()->nodeItemCount(); ++i)
        QVERIFY(visible.adjusted(-1, -1, 1, 1).contains(graph()->nodeItem(i)->sceneBoundingRect().center()));
}

void GraphViewTest::coloursByTimeAfterARun() {
    graph()->setMetric(GraphMetric::Time);
    QCOMPARE(graph()->nodeColors().coloured, 0);  // no run yet: all grey
    QVERIFY(graph()->legendLabel()->text().contains(QStringLiteral("no run yet")));
    window_->runner()->optionsBar()->setRuns(3);
    window_->runner()->optionsBar()->setWarmup(1);
    QSignalSpy finished(window_->runner(), &RunController::runFinished);
    window_->runner()->startRun();
    QVERIFY(finished.wait(kTimeoutMs));
    const Report* report = window_->workbench()->lastReport();
    QVERIFY(report);
    const NodeColors& colors = graph()->nodeColors();
    // Nodes with a time, their own or (a fused kernel's nodes) their layer's, that the graph shows (the session
    // drops Identity nodes).
    std::map<std::string, double> timeOf;
    for (const LayerRow& row : report->layers) timeOf[row.fullName] = row.timeUs;
    int timed = 0;
    for (const LayerRow& row : report->layers)
        timed += (row.fusedInto.empty() ? row.timeUs : timeOf[row.fusedInto]) > 0 &&
                 graph()->graphData().nodeOfName.contains(QString::fromStdString(row.fullName));
    QVERIFY(timed > opItems() / 2);
    QCOMPARE(colors.coloured, timed);
    // The slowest layer has the hottest colour, and it is no longer grey.
    const auto slowest = std::max_element(report->layers.begin(), report->layers.end(),
                                          [](const LayerRow& a, const LayerRow& b) { return a.timeUs < b.timeUs; });
    const int node = graph()->graphData().nodeOfName.value(QString::fromStdString(slowest->fullName), -1);
    QVERIFY(node >= 0);
    QCOMPARE(graph()->nodeItem(node)->fill(), colors.legend[4].first);
    QVERIFY(graph()->nodeItem(node)->fill() != missingMetricColor());
    QVERIFY(graph()->legendLabel()->text().contains(QStringLiteral("last run")));
    graph()->canvas()->resetTransform();  // readable labels for the picture
    graph()->canvas()->zoomBy(0.8);
    window_->workbench()->selection()->selectNodes({QString::fromStdString(slowest->fullName)});
    screenshot(QStringLiteral("graph-resnet18-time.png"));
}

void GraphViewTest::estimateFusedLayersAreGroups() {
    QCOMPARE(graph()->groupCount(), 0);  // a local run fuses nothing
    EstimateJob job;
    QSignalSpy estimated(&job, &EstimateJob::finished);
    job.start(window_->workbench()->currentModel(), TargetOptions{});
    QVERIFY(estimated.wait(kTimeoutMs));
    const auto result = estimated.first().at(0).value<std::shared_ptr<const EstimateResult>>();
    int fused = 0;
    for (const QStringList& nodes : result->layerNodes) fused += nodes.size() > 1 ? 1 : 0;
    QVERIFY(fused > 0);
    QSignalSpy shown(graph(), &GraphView::layoutShown);
    window_->workbench()->showEstimate(result);
    // Fused groups are clusters: laid out again.
    QVERIFY2(shown.wait(kTimeoutMs), qPrintable(graph()->statusLabel()->text()));
    QCOMPARE(graph()->groupCount(), fused);
    graph()->setMetric(GraphMetric::Target);
    QVERIFY(graph()->legendLabel()->text().contains(QStringLiteral("estimate on rk3588")));
    QVERIFY(graph()->legendLabel()->text().contains(QStringLiteral("NPU")));
    graph()->setMetric(GraphMetric::Bound);
    QVERIFY(graph()->nodeColors().coloured > 0);
    // Clicking a fused node selects its whole layer.
    QStringList group;
    for (const QStringList& nodes : result->layerNodes)
        if (nodes.size() > 1) group = nodes;
    const int member = graph()->graphData().nodeOfName.value(group.last(), -1);
    QVERIFY(member >= 0);
    emit graph()->canvas()->nodeClicked(member);
    const QStringList selected = window_->workbench()->selection()->selectedNodes();
    QCOMPARE(selected.first(), group.last());
    for (const QString& name : group) QVERIFY(selected.contains(name));
    for (const QString& name : group)
        QVERIFY(graph()->nodeItem(graph()->graphData().nodeOfName.value(name))->isMarked());
    graph()->canvas()->resetTransform();
    graph()->canvas()->zoomBy(0.8);
    graph()->canvas()->centerOn(graph()->nodeItem(member));
    screenshot(QStringLiteral("graph-resnet18-estimate-bound.png"));
}

void GraphViewTest::propertiesShowWeights() {
    window_->workbench()->selection()->selectNodes({QStringLiteral("/conv1/Conv")});
    QStandardItemModel* tree = graph()->properties()->model();
    QStringList sections;
    for (int i = 0; i < tree->rowCount(); ++i) sections << tree->item(i, 0)->text();
    for (const char* s : {"Node", "Last run", "Attributes", "Inputs", "Outputs", "Weights"})
        QVERIFY2(sections.contains(QString::fromLatin1(s)), qPrintable(sections.join(QLatin1Char(','))));
    const auto inputs = tree->findItems(QStringLiteral("input"), Qt::MatchExactly | Qt::MatchRecursive, 0);
    QVERIFY(!inputs.isEmpty());
    const QModelIndex type = inputs.first()->index().siblingAtColumn(1);
    QVERIFY2(type.data().toString().contains(QStringLiteral("[1,3,224,224]")), qPrintable(type.data().toString()));
    const WeightHistogram* histogram = graph()->properties()->histogram();
    QVERIFY(histogram->isVisible());
    int sum = 0;
    for (int bin : histogram->data().bins) sum += bin;
    QCOMPARE(sum, 64 * 3 * 7 * 7);  // conv1's kernel, every value counted once
    QVERIFY(histogram->data().min < 0 && histogram->data().max > 0);
}

void GraphViewTest::coloursByQuantizationError() {
    graph()->setMetric(GraphMetric::QuantError);
    QCOMPARE(graph()->nodeColors().coloured, 0);
    QVERIFY(graph()->legendLabel()->text().contains(QStringLiteral("no accuracy analysis")));
    // An analysis of two layers (what the Accuracy view shares after a quantization): a noisy one and a clean one.
    auto accuracy = std::make_shared<npuwb::AccuracySection>();
    accuracy->samples = 4;
    npuwb::AccuracyLayer noisy, clean;
    noisy.fullName = "/conv1/Conv";
    noisy.precision = "int8";
    noisy.singleSnrDb = 3.0;
    clean.fullName = "/fc/Gemm";
    clean.precision = "float";
    clean.singleSnrDb = 60.0;
    accuracy->layers = {noisy, clean};
    window_->workbench()->showAccuracy(accuracy);
    const GraphData& data = graph()->graphData();
    const int conv = data.nodeOfName.value(QStringLiteral("/conv1/Conv"), -1);
    const int fc = data.nodeOfName.value(QStringLiteral("/fc/Gemm"), -1);
    QVERIFY(conv >= 0 && fc >= 0);
    QCOMPARE(graph()->nodeColors().coloured, 2);
    // Low SNR is hot (dark), 40 dB and up pale.
    QVERIFY(graph()->nodeItem(conv)->fill().lightnessF() < graph()->nodeItem(fc)->fill().lightnessF());
    graph()->setMetric(GraphMetric::Precision);
    QCOMPARE(graph()->nodeColors().coloured, 2);
    QVERIFY(graph()->legendLabel()->text().contains(QStringLiteral("int8")));
    QVERIFY(graph()->nodeItem(conv)->fill() != graph()->nodeItem(fc)->fill());
    window_->workbench()->selection()->selectNodes({QStringLiteral("/conv1/Conv")});
    QVERIFY(!graph()->properties()->model()->findItems(QStringLiteral("Quantization")).isEmpty());
    window_->workbench()->showAccuracy(nullptr);
    QCOMPARE(graph()->nodeColors().coloured, 0);
}

void GraphViewTest::laysOutPpOcrDet() {
    graph()->setMetric(GraphMetric::OpType);
    QVERIFY(openAndLayOut(kModels + QStringLiteral("ch_PP-OCRv4_det_infer.onnx")) >= 0);
    QCOMPARE(opItems(), int(window_->workbench()->currentModel()->graph.nodes.size()));
    QVERIFY(graph()->statusLabel()->text().contains(QStringLiteral("Graphviz dot")));
    screenshot(QStringLiteral("graph-ppocr-det.png"));
}

void GraphViewTest::largeChainUsesTheCheaperLayout() {
    QTemporaryDir dir;
    const QString chain = dir.filePath(QStringLiteral("chain10k.onnx"));
    QCOMPARE(QProcess::execute(
                 QStringLiteral("/usr/bin/python3"),
                 {QStringLiteral(NPUWB_SOURCE_DIR "/tests/bench/make_chain.py"), QStringLiteral("10000"), chain}),
             0);
    QVERIFY(openAndLayOut(chain) >= 0);
    QCOMPARE(opItems(), 10000);
    QVERIFY2(graph()->statusLabel()->text().contains(QStringLiteral("layered by rank")),
             qPrintable(graph()->statusLabel()->text()));
    // Still usable: selecting a layer far down centres it.
    window_->workbench()->selection()->selectNodes({QStringLiteral("n9000")});
    GraphNodeItem* item = graph()->nodeItem(graph()->currentNode());
    QVERIFY(item && graph()->graphData().nodes[size_t(item->index())].name == QStringLiteral("n9000"));
    QVERIFY(isCentred(item));
    // How long one full repaint of the window (canvas and minimap over 10,000 nodes) takes.
    QElapsedTimer paint;
    paint.start();
    window_->grab();
    qInfo() << "10,000-node chain: one window repaint" << paint.elapsed() << "ms";
    screenshot(QStringLiteral("graph-chain10k.png"));
}

void GraphViewTest::benchModels() {
    // By hand only: NPUWB_GRAPH_BENCH_MODELS=a.onnx:b.onnx (nothing to do otherwise, and nothing skipped);
    // NPUWB_GRAPH_BENCH_LARGE=N uses the in-process layout from N nodes, to compare it with dot's on the same models.
    if (const int large = qEnvironmentVariableIntValue("NPUWB_GRAPH_BENCH_LARGE"); large > 0)
        graph()->layoutJob()->setLargeGraphNodes(large);
    const QString models = qEnvironmentVariable("NPUWB_GRAPH_BENCH_MODELS");
    for (const QString& path : models.split(QLatin1Char(':'), Qt::SkipEmptyParts)) {
        QVERIFY2(openAndLayOut(path) >= 0, qPrintable(path));
        screenshot(QStringLiteral("graph-bench-%1.png").arg(QFileInfo(path).baseName()));
    }
}

void GraphViewTest::cleanupTestCase() {
    tester_.reset();
    window_.reset();
}

QTEST_MAIN(GraphViewTest)
#include "gui_graph_test.moc"
