#include "views/graph/GraphView.h"

#include <QAction>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

#include "core/ViewRegistry.h"
#include "core/Workbench.h"
#include "jobs/GraphLayoutJob.h"
#include "models/LayerFilter.h"
#include "models/LayerSelection.h"
#include "views/graph/GraphFilter.h"
#include "views/graph/GraphItems.h"
#include "views/graph/NodeProperties.h"

namespace npuwb::ui {

NPUWB_GUI_VIEW(GraphView, "graph", QT_TRANSLATE_NOOP("views", "&Graph"), Qt::ALT | Qt::Key_0, 15);

GraphView::GraphView(Workbench& workbench, QWidget* parent)
    : WorkbenchView(workbench, parent),
      job_(new GraphLayoutJob(this)),
      scene_(new QGraphicsScene(this)),
      canvas_(new GraphCanvas(this)),
      minimap_(new GraphMinimap(canvas_, this)),
      properties_(new NodeProperties(this)),
      splitter_(new QSplitter(Qt::Horizontal, this)),
      status_(new QLabel(this)),
      legend_(new QLabel(this)),
      metric_(new QComboBox(this)),
      search_(new QLineEdit(this)),
      hitsLabel_(new QLabel(this)),
      cancel_(new QPushButton(tr("Cancel"), this)),
      collapseAction_(new QAction(tr("Collapse Blocks"), this)) {
    scene_->setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    canvas_->setScene(scene_);
    minimap_->setFixedHeight(170);

    status_->setObjectName(QStringLiteral("graphStatus"));
    // A line of its own that wraps: a long status neither widens the tab nor is cut.
    status_->setWordWrap(true);
    status_->setText(tr("Open a model to see its graph"));
    legend_->setObjectName(QStringLiteral("graphLegend"));
    legend_->setTextFormat(Qt::RichText);
    legend_->setWordWrap(true);
    metric_->setObjectName(QStringLiteral("graphMetric"));
    for (GraphMetric m : kGraphMetrics) metric_->addItem(metricTitle(m), int(m));
    metric_->setToolTip(tr("Colour nodes by a metric of the last run or estimate; nodes without it are grey"));
    search_->setObjectName(QStringLiteral("graphSearch"));
    search_->setPlaceholderText(tr("Find node by name or op type (Ctrl+F, Enter: next)"));
    search_->setClearButtonEnabled(true);
    search_->setMinimumWidth(260);
    cancel_->setObjectName(QStringLiteral("graphCancel"));
    cancel_->hide();
    collapseAction_->setObjectName(QStringLiteral("graphCollapseBlocks"));
    collapseAction_->setCheckable(true);
    collapseAction_->setEnabled(false);
    collapseAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    collapseAction_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    collapseAction_->setToolTip(tr("Collapse every repeated block to one box, or expand them all (Ctrl+Shift+B); "
                                   "double-click a block or use its context menu for one"));
    addAction(collapseAction_);
    auto* blocksButton = new QToolButton(this);
    blocksButton->setDefaultAction(collapseAction_);
    auto* fit = new QPushButton(tr("Fit"), this);
    fit->setToolTip(tr("Show the whole graph (0); zoom with the wheel or +/-, drag to pan"));

    auto* header = new QHBoxLayout;
    header->addWidget(new QLabel(tr("Colour by"), this));
    header->addWidget(metric_);
    header->addWidget(search_);
    header->addWidget(hitsLabel_);
    header->addWidget(blocksButton);
    header->addWidget(fit);
    header->addStretch(1);
    auto* statusRow = new QHBoxLayout;
    statusRow->addWidget(status_, 1);
    statusRow->addWidget(cancel_);
    auto* side = new QWidget(this);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 0, 0, 0);
    sideLayout->addWidget(minimap_);
    sideLayout->addWidget(properties_, 1);
    splitter_->setObjectName(QStringLiteral("graphSplitter"));
    splitter_->addWidget(canvas_);
    splitter_->addWidget(side);
    splitter_->setStretchFactor(0, 3);
    splitter_->setStretchFactor(1, 1);
    splitter_->setSizes({900, 480});  // the properties' keys whole and most values beside them at 1400x900
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(header);
    layout->addLayout(statusRow);
    layout->addWidget(legend_);
    layout->addWidget(splitter_, 1);

    connect(fit, &QPushButton::clicked, canvas_, &GraphCanvas::fit);
    connect(cancel_, &QPushButton::clicked, job_, &GraphLayoutJob::cancelLayout);
    connect(job_, &GraphLayoutJob::finished, this, &GraphView::onLayoutFinished);
    connect(job_, &GraphLayoutJob::failed, this, &GraphView::onLayoutFailed);
    connect(job_, &GraphLayoutJob::cancelled, this, [this] {
        cancel_->hide();
        status_->setText(
            tr("Layout cancelled: %1 nodes not drawn (switch tabs and back to try again)").arg(data_.nodes.size()));
        layoutPending_ = true;
        emit layoutEnded();
    });
    connect(metric_, &QComboBox::currentIndexChanged, this, &GraphView::recolor);
    connect(search_, &QLineEdit::textChanged, this, &GraphView::onSearchChanged);
    connect(search_, &QLineEdit::returnPressed, this, &GraphView::nextHit);
    auto* find = new QShortcut(QKeySequence::Find, this, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
    connect(find, &QShortcut::activated, this, [this] {
        search_->setFocus();
        search_->selectAll();
    });
    connect(canvas_, &GraphCanvas::nodeClicked, this, &GraphView::onNodeClicked);
    connect(canvas_, &GraphCanvas::blockClicked, this, &GraphView::onBlockClicked);
    connect(canvas_, &GraphCanvas::blockToggleRequested, this,
            [this](int block) { setBlockCollapsed(block, !isBlockCollapsed(block)); });
    connect(canvas_, &GraphCanvas::blockMenuRequested, this, &GraphView::onBlockMenu);
    connect(collapseAction_, &QAction::triggered, this, &GraphView::setAllBlocksCollapsed);
    connect(canvas_, &GraphCanvas::moveRequested, this, &GraphView::onMove);

    connect(&workbench, &Workbench::modelLoaded, this, [this] {
        freshModel_ = true;
        onModelChanged();
    });
    connect(&workbench, &Workbench::modelChanged, this, &GraphView::onModelChanged);
    connect(&workbench, &Workbench::shapesResolved, this, &GraphView::onShapesResolved);
    connect(&workbench, &Workbench::reportChanged, this, &GraphView::onGroupsMaybeChanged);
    connect(&workbench, &Workbench::estimateChanged, this, &GraphView::onGroupsMaybeChanged);
    connect(&workbench, &Workbench::accuracyChanged, this, [this] {
        recolor();
        refreshProperties();
    });
    connect(workbench.selection(), &LayerSelection::nodesSelected, this, &GraphView::followSelection);
    connect(workbench.layerFilter(), &LayerFilter::changed, this, &GraphView::recolor);
}

GraphView::~GraphView() = default;

GraphNodeItem* GraphView::nodeItem(int index) const {
    return index >= 0 && size_t(index) < items_.size() ? items_[size_t(index)] : nullptr;
}

GraphMetric GraphView::metric() const { return GraphMetric(metric_->currentData().toInt()); }

void GraphView::setMetric(GraphMetric metric) { metric_->setCurrentIndex(metric_->findData(int(metric))); }

void GraphView::onModelChanged() {
    ++drawGeneration_;  // a scene still being drawn is of the old model
    job_->cancelLayout();
    scene_->clear();
    scene_->setSceneRect(QRectF());  // back to following the items until the new layout sets it
    minimap_->clear();
    items_.clear();
    groups_.clear();
    blockItems_.clear();
    blockFrames_.clear();
    nodeSizes_.clear();
    groupCount_ = 0;
    current_ = currentBlock_ = focusNode_ = focusBlock_ = -1;
    const bool fresh = std::exchange(freshModel_, false);
    const QSet<QString> collapsedBefore = collapsedPrefixes();
    hits_.clear();
    properties_->showNode(data_, -1, {});
    const auto loaded = workbench().loadedModel();
    if (!loaded || !loaded->model) {
        ++buildGeneration_;
        buildPending_ = startWhenBuilt_ = false;
        data_ = GraphData();
        applyBlockState(true, {});
        status_->setText(
            loaded ? tr("%1 is a compiled model: it has no ONNX graph to draw").arg(QFileInfo(loaded->path).fileName())
                   : tr("Open a model to see its graph"));
        return;
    }
    // The graph's data (names, edges, lookups) is built in an event loop turn of its own: on a 10,000-node model it
    // takes tens of ms, which added to the other views' reaction to the new model froze the window > 100 ms.
    data_ = GraphData();
    applyBlockState(true, {});
    buildPending_ = true;
    status_->setText(tr("Reading the graph …"));
    QTimer::singleShot(0, this, [this, generation = ++buildGeneration_, model = loaded->model, fresh, collapsedBefore] {
        if (generation != buildGeneration_) return;  // another model came meanwhile
        buildPending_ = false;
        data_ = buildGraphData(model);
        data_.shapes = shapesAtChosenSizes();
        applyBlockState(fresh, collapsedBefore);
        layoutPending_ = true;
        if (isVisible() || std::exchange(startWhenBuilt_, false))
            startLayout();
        else
            status_->setText(tr("%1 nodes: laid out when this tab is shown").arg(data_.nodes.size()));
    });
}

std::shared_ptr<const LearnedShapes> GraphView::shapesAtChosenSizes() const {
    const auto shaped = workbench().shapedModel();
    if (!shaped || shaped->model != data_.model) return nullptr;
    return {shaped, &shaped->shapes};  // shares the ShapedModel's lifetime
}

void GraphView::onShapesResolved() {
    if (!data_.model) return;
    data_.shapes = shapesAtChosenSizes();
    blocks_ = findBlocks(data_);  // the same blocks (same graph), their MACs now counted at these sizes
    for (QGraphicsItem* item : scene_->items())
        if (auto* edge = dynamic_cast<GraphEdgeItem*>(item)) edge->setToolTip(edgeToolTip(edge->dataEdges()));
    refreshProperties();
}

QString GraphView::edgeToolTip(const std::vector<int>& dataEdges) const {
    // A block's edge may stand for many values: the first few are listed.
    constexpr int kListedValues = 12;
    QStringList tip;
    int more = 0;
    for (const int dataEdge : dataEdges)
        for (const QString& value : data_.edges[size_t(dataEdge)].values) {
            if (tip.size() >= kListedValues) {
                ++more;
                continue;
            }
            tip << QStringLiteral("%1: %2").arg(value, describeValue(data_, value.toStdString()));
        }
    if (more > 0) tip << tr("… and %n more", nullptr, more);
    return tip.join(QLatin1Char('\n'));
}

void GraphView::onGroupsMaybeChanged() {
    recolor();
    refreshProperties();
    // Fused groups are laid out as clusters: a new set of groups needs a new layout (not for big graphs, whose
    // cheap layout draws group boxes without them).
    if (!data_.model || job_->isRunning() || drawing_ || fusedGroups() == layoutGroups_) return;
    if (int(folded_.units.size()) >= job_->largeGraphNodes()) {
        if (!items_.empty()) drawGroupsAndFit();  // keep positions, redraw group boxes
        return;
    }
    layoutPending_ = true;
    if (isVisible()) startLayout();
}

void GraphView::showEvent(QShowEvent* event) {
    WorkbenchView::showEvent(event);
    if (layoutPending_ && !job_->isRunning()) startLayout();
}

bool GraphView::startFromCommandLine() {
    if (!data_.model && !buildPending_) return false;
    // Connected first: a layout that cannot start (no dot) ends inside startLayout().
    connect(this, &GraphView::layoutEnded, this, &WorkbenchView::resultShown, Qt::SingleShotConnection);
    if (buildPending_)
        startWhenBuilt_ = true;  // the data's turn starts it
    else if (!job_->isRunning())
        startLayout();
    return true;
}

std::vector<QStringList> GraphView::fusedGroups() const {
    const auto estimate = workbench().lastEstimate();
    return fusedLayerGroups(estimate ? &estimate->layerNodes : nullptr, workbench().lastReport());
}

void GraphView::startLayout() {
    ++drawGeneration_;
    drawing_ = false;
    layoutPending_ = false;
    if (!data_.model) return;
    folded_ = foldGraph(data_, blocks_, collapsed_);
    auto request = std::make_shared<LayoutRequest>();
    request->nodes.reserve(folded_.units.size());
    GraphNodeItem::Sizer sizeOf(font());
    for (const int unit : folded_.units) {
        if (unit < 0) {
            request->nodes.push_back(GraphBlockItem::sizeFor(blocks_.blocks[size_t(-1 - unit)], font()));
            continue;
        }
        GraphNodeInfo shown = data_.nodes[size_t(unit)];
        shown.name = shownName(unit);
        request->nodes.push_back(sizeOf(shown));
    }
    nodeSizes_ = request->nodes;  // what the drawing uses too
    for (const FoldedGraph::Edge& edge : folded_.edges) request->edges.push_back({edge.from, edge.to});
    // Expanded blocks among collapsed ones are clusters, so their frames hold only their own nodes; a fused layer
    // keeps its cluster where it does not cross one (dot's clusters here are disjoint, the first one wins).
    if (folded_.blockUnits > 0)
        for (size_t b = 0; b < blocks_.blocks.size(); ++b) {
            if (collapsed_[b]) continue;
            std::vector<int> members;
            for (int node : blocks_.blocks[b].members) members.push_back(folded_.unitOfNode[size_t(node)]);
            request->groups.push_back(std::move(members));
        }
    layoutGroups_ = fusedGroups();
    for (const QStringList& group : layoutGroups_) {
        std::vector<int> members;
        for (const QString& name : group)
            if (const int node = data_.nodeOfName.value(name, -1); node >= 0 && !folded_.hidden(node))
                members.push_back(folded_.unitOfNode[size_t(node)]);
        if (members.size() > 1) request->groups.push_back(std::move(members));
    }
    const bool large = int(request->nodes.size()) >= job_->largeGraphNodes();
    status_->setText(large ? tr("Laying out %1 nodes by rank (past %2 nodes Graphviz would take too long) …")
                                 .arg(request->nodes.size())
                                 .arg(job_->largeGraphNodes())
                           : tr("Laying out %1 nodes with Graphviz dot …").arg(request->nodes.size()));
    cancel_->show();
    job_->start(std::move(request));
}

void GraphView::onLayoutFailed(const QString& message) {
    cancel_->hide();
    status_->setText(tr("No layout: %1").arg(message));
    status_->setToolTip(message);
    if (items_.empty()) {  // nothing drawn: say why where the graph would be, in full
        QGraphicsTextItem* text = scene_->addText(tr("No layout: %1").arg(message));
        text->setTextWidth(600);
        canvas_->resetTransform();
        canvas_->centerOn(text);
    }
    workbench().showMessage(message);
    emit layoutEnded();
}

void GraphView::onLayoutFinished(std::shared_ptr<const LayoutResult> result, qint64 elapsedMs) {
    cancel_->hide();
    drawClock_.start();
    scene_->clear();
    items_.assign(data_.nodes.size(), nullptr);
    blockItems_.assign(blocks_.blocks.size(), nullptr);
    groups_.clear();
    blockFrames_.clear();
    drawing_ = true;
    status_->setText(tr("Drawing %1 nodes …").arg(folded_.units.size()));
    addItemsInTurns(std::move(result), elapsedMs, 0, drawGeneration_);
}

void GraphView::addItemsInTurns(std::shared_ptr<const LayoutResult> result, qint64 layoutMs, size_t from,
                                quint64 generation) {
    if (generation != drawGeneration_) return;  // a new model or layout came meanwhile
    // Node boxes first, then edges; a few hundred items per event loop turn keep the window answering (a
    // 10,000-node graph built in one go blocked it for a few hundred ms).
    constexpr size_t kItemsPerTurn = 500;
    const size_t nodes = folded_.units.size();
    const size_t total = nodes + folded_.edges.size();
    const size_t to = std::min(total, from + kItemsPerTurn);
    for (size_t i = from; i < to; ++i) {
        if (i < nodes) {
            const int unit = folded_.units[i];
            const QSizeF size = i < nodeSizes_.size() ? nodeSizes_[i] : QSizeF(64, 32);
            GraphNodeItem* item = nullptr;
            if (unit >= 0) {
                const GraphNodeInfo& info = data_.nodes[size_t(unit)];
                GraphNodeInfo shown = info;
                shown.name = shownName(unit);
                item = items_[size_t(unit)] = new GraphNodeItem(unit, shown, size, font());
                if (shown.name != info.name)  // the tooltip names it in full
                    item->setToolTip(QStringLiteral("<b>%1</b><br>%2").arg(info.opType.toHtmlEscaped(),
                                                                          info.name.toHtmlEscaped()));
            } else {
                const int block = -1 - unit;
                item = blockItems_[size_t(block)] =
                    new GraphBlockItem(block, blocks_.blocks[size_t(block)], size, font());
            }
            item->setPos(i < result->centers.size() ? result->centers[i] : QPointF());
            scene_->addItem(item);
            continue;
        }
        const size_t e = i - nodes;
        if (e >= result->edgeRoutes.size() || result->edgeRoutes[e].empty()) continue;
        auto* edge = new GraphEdgeItem(result->edgeRoutes[e], result->splines, folded_.edges[e].dataEdges);
        edge->setToolTip(edgeToolTip(folded_.edges[e].dataEdges));
        scene_->addItem(edge);
    }
    if (to < total) {
        QTimer::singleShot(0, this, [this, result, layoutMs, to, generation] {
            addItemsInTurns(result, layoutMs, to, generation);
        });
        return;
    }
    drawing_ = false;
    showLaidOut(*result, layoutMs);
}

void GraphView::showLaidOut(const LayoutResult& result, qint64 layoutMs) {
    drawGroupsAndFit();
    const bool large = int(folded_.units.size()) >= job_->largeGraphNodes();
    // The blocks first: a long header is cut at its end.
    const QString blocks = blocks_.empty() ? QString()
                                           : tr(" (%1 of %2 blocks collapsed)")
                                                 .arg(folded_.blockUnits)
                                                 .arg(blocks_.blocks.size());
    QString text = tr("%1 nodes%2, %3 edges; %4 %5 ms, drawn %6 ms")
                       .arg(data_.nodes.size())
                       .arg(blocks)
                       .arg(data_.edges.size())
                       .arg(result.method)
                       .arg(layoutMs)
                       .arg(drawClock_.elapsed());
    if (large) text += tr(" (cheaper layout past %1 nodes)").arg(job_->largeGraphNodes());
    status_->setText(text);
    status_->setToolTip(text);
    // Start readable at the top (Netron style) when the whole graph would be too small to read.
    canvas_->resetTransform();
    canvas_->fit();
    const GraphNodeItem* first = nullptr;  // the top box
    for (const GraphNodeItem* item : items_)
        if (item && (!first || item->y() < first->y())) first = item;
    for (const GraphNodeItem* item : blockItems_)
        if (item && (!first || item->y() < first->y())) first = item;
    if (canvas_->zoom() < 0.5 && first) {
        canvas_->resetTransform();
        canvas_->zoomBy(0.8 / canvas_->zoom());
        // Under the first node, not the middle of the bounding box: a wide or slanting layout would show nothing.
        const double top = scene_->sceneRect().top() + 40;  // the items' bounding rect, as drawGroupsAndFit set it
        canvas_->centerOn(first->x(), top + canvas_->viewport()->height() / 2.0 / canvas_->zoom());
    }
    followSelection(workbench().selection()->selectedNodes());
    showFocus();
    emit layoutShown();
    emit layoutEnded();
}

void GraphView::drawGroupsAndFit() {
    for (GraphGroupItem* group : groups_) delete group;
    groups_.clear();
    for (const QStringList& group : fusedGroups()) {
        QRectF around;
        for (const QString& name : group)
            if (GraphNodeItem* item = nodeItem(data_.nodeOfName.value(name, -1)))
                around = around.united(item->sceneBoundingRect());
        if (around.isNull()) continue;
        groups_.push_back(new GraphGroupItem(around, group.first(), font()));
        scene_->addItem(groups_.back());
    }
    groupCount_ = int(groups_.size());
    drawBlockFrames();
    // The bounds from our own lists: the scene's itemsBoundingRect walks every item through its index (tens of ms
    // for a 10,000-node graph). Edges run between the boxes; the margin covers a spline's bulge.
    QRectF bounds;
    for (const GraphNodeItem* item : items_)
        if (item) bounds = bounds.united(item->sceneBoundingRect());
    for (const GraphNodeItem* item : blockItems_)
        if (item) bounds = bounds.united(item->sceneBoundingRect());
    for (const GraphGroupItem* group : groups_) bounds = bounds.united(group->sceneBoundingRect());
    for (const GraphBlockFrameItem* frame : blockFrames_)
        if (frame) bounds = bounds.united(frame->sceneBoundingRect());
    if (bounds.isNull()) bounds = scene_->itemsBoundingRect();  // no boxes: a message or nothing
    scene_->setSceneRect(bounds.adjusted(-40, -40, 40, 40));
    recolor();
}

MetricSources GraphView::sources() const {
    MetricSources s;
    s.run = workbench().lastReport();
    if (const auto estimate = workbench().lastEstimate()) {
        s.estimate = &estimate->report;
        s.estimateTarget = QStringLiteral("%1 %2").arg(estimate->target.chip, estimate->target.dtype);
    }
    s.accuracy = workbench().lastAccuracy().get();
    return s;
}

void GraphView::recolor() {
    if (!data_.model) return;
    colors_ = colorNodes(data_, metric(), sources());
    for (size_t v = 0; v < items_.size() && v < colors_.colors.size(); ++v)
        if (items_[v]) items_[v]->setFill(colors_.colors[v]);
    blockColors_ = blockColors(data_, blocks_, metric(), sources(), colors_, &blockNote_);
    for (size_t b = 0; b < blockItems_.size() && b < blockColors_.size(); ++b)
        if (blockItems_[b]) blockItems_[b]->setFill(blockColors_[b]);
    // The shared filter dims the nodes it rejects; they stay in place so the graph keeps its shape. A block is dimmed
    // when none of its nodes match.
    const auto estimate = workbench().lastEstimate();
    const std::vector<bool> matches = nodesMatchingFilter(data_, *workbench().layerFilter(), workbench().lastReport(),
                                                          estimate ? &estimate->report : nullptr);
    for (size_t v = 0; v < items_.size() && v < matches.size(); ++v)
        if (items_[v]) items_[v]->setOpacity(matches[v] ? 1.0 : 0.2);
    for (size_t b = 0; b < blockItems_.size(); ++b) {
        if (!blockItems_[b]) continue;
        const auto& members = blocks_.blocks[b].members;
        const bool any = std::any_of(members.begin(), members.end(),
                                     [&](int v) { return size_t(v) < matches.size() && matches[size_t(v)]; });
        blockItems_[b]->setOpacity(any ? 1.0 : 0.2);
    }
    showLegend();
    minimap_->refit();
}

void GraphView::showLegend() {
    QString html = legendHtml(metric(), colors_);
    if (folded_.blockUnits > 0 && !blockNote_.isEmpty())
        html += QStringLiteral("&nbsp;&nbsp;&nbsp;%1").arg(blockNote_.toHtmlEscaped());
    legend_->setText(html);
}

void GraphView::clearCurrent() {
    if (GraphNodeItem* old = drawnItem(current_)) old->setCurrent(false);
    if (GraphNodeItem* old = blockItem(currentBlock_)) old->setCurrent(false);
    current_ = currentBlock_ = -1;
}

void GraphView::setCurrent(int node, bool centre) {
    clearCurrent();
    siblingsOf_ = -1;
    current_ = node;
    // A node in a collapsed block: its block's box stands for it (the panel still shows the node).
    if (GraphNodeItem* item = drawnItem(node)) {
        item->setCurrent(true);
        if (centre)
            canvas_->centerOn(item);
        else
            canvas_->ensureVisible(item, 40, 40);
        canvas_->viewportMoved();
    }
    refreshProperties();
}

void GraphView::refreshProperties() {
    if (!data_.model) return;
    if (currentBlock_ >= 0 && size_t(currentBlock_) < blocks_.blocks.size())
        properties_->showBlock(data_, blocks_.blocks[size_t(currentBlock_)], sources());
    else
        properties_->showNode(data_, current_, sources());
}

void GraphView::publish(int node) {
    if (node < 0) return;
    // A fused node selects its whole layer: the clicked node first, then the layer's anchor and other members.
    QStringList names{data_.nodes[size_t(node)].name};
    for (const QStringList& group : fusedGroups())
        if (group.contains(names.first()))
            for (const QString& name : group)
                if (!names.contains(name)) names << name;
    publishing_ = true;
    workbench().selection()->selectNodes(names);
    publishing_ = false;
}

void GraphView::onNodeClicked(int node) {
    setCurrent(node, false);
    publish(node);
}

void GraphView::followSelection(const QStringList& names) {
    for (GraphNodeItem* item : items_)
        if (item) item->setMarked(false);
    for (GraphNodeItem* item : blockItems_)
        if (item) item->setMarked(false);
    int first = -1;
    for (const QString& name : names)
        if (const int node = data_.nodeOfName.value(name, -1); node >= 0) {
            if (first < 0) first = node;
            if (GraphNodeItem* item = drawnItem(node)) item->setMarked(true);
        }
    if (publishing_) return;  // our own click: the node is current already, the canvas stays put
    setCurrent(first, true);
}

void GraphView::onMove(GraphCanvas::Move move) {
    if (data_.nodes.empty()) return;
    int from = siblingsOf_;
    const int next = current_ < 0 ? 0 : neighbour(data_, current_, move, from);  // nothing current: the first input
    if (next < 0) return;
    setCurrent(next, current_ < 0);
    siblingsOf_ = from;
    publish(next);
}

void GraphView::onSearchChanged(const QString& text) {
    for (int hit : hits_)
        if (GraphNodeItem* item = drawnItem(hit)) item->setSearchHit(false);
    hits_.clear();
    hit_ = -1;
    const QString needle = text.trimmed();
    if (!needle.isEmpty())
        for (size_t v = 0; v < data_.nodes.size(); ++v)
            if (data_.nodes[v].name.contains(needle, Qt::CaseInsensitive) ||
                data_.nodes[v].opType.compare(needle, Qt::CaseInsensitive) == 0)
                hits_.push_back(int(v));
    for (int hit : hits_)  // a hit inside a collapsed block lights its box
        if (GraphNodeItem* item = drawnItem(hit)) item->setSearchHit(true);
    hitsLabel_->setText(needle.isEmpty() ? QString() : tr("%n hit(s)", nullptr, int(hits_.size())));
}

void GraphView::nextHit() {
    if (hits_.empty()) return;
    hit_ = (hit_ + 1) % int(hits_.size());
    hitsLabel_->setText(tr("%1 of %2").arg(hit_ + 1).arg(hits_.size()));
    setCurrent(hits_[size_t(hit_)], true);
    publish(hits_[size_t(hit_)]);
}

void GraphView::saveSettings(QSettings& settings) const {
    settings.setValue(QStringLiteral("splitter"), splitter_->saveState());
    settings.setValue(QStringLiteral("metric"), metric_->currentIndex());
}

void GraphView::restoreSettings(QSettings& settings) {
    splitter_->restoreState(settings.value(QStringLiteral("splitter")).toByteArray());
    const int metric = settings.value(QStringLiteral("metric"), 0).toInt();
    if (metric >= 0 && metric < metric_->count()) metric_->setCurrentIndex(metric);
}

}  // namespace npuwb::ui
