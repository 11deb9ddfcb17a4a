#include "views/graph/GraphView.h"

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
      cancel_(new QPushButton(tr("Cancel"), this)) {
    scene_->setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    canvas_->setScene(scene_);
    minimap_->setFixedHeight(170);

    status_->setObjectName(QStringLiteral("graphStatus"));
    // A long status must not widen the tab (and squeeze the window's docks): it is cut, its tooltip has it all.
    status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    status_->setMinimumWidth(120);
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
    auto* fit = new QPushButton(tr("Fit"), this);
    fit->setToolTip(tr("Show the whole graph (0); zoom with the wheel or +/-, drag to pan"));

    auto* header = new QHBoxLayout;
    header->addWidget(status_, 1);
    header->addWidget(cancel_);
    header->addWidget(new QLabel(tr("Colour by"), this));
    header->addWidget(metric_);
    header->addWidget(search_);
    header->addWidget(hitsLabel_);
    header->addWidget(fit);
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
    splitter_->setSizes({1000, 380});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(header);
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
    connect(canvas_, &GraphCanvas::moveRequested, this, &GraphView::onMove);

    connect(&workbench, &Workbench::modelLoaded, this, &GraphView::onModelChanged);
    connect(&workbench, &Workbench::modelChanged, this, &GraphView::onModelChanged);
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
    nodeSizes_.clear();
    groupCount_ = 0;
    current_ = -1;
    hits_.clear();
    properties_->showNode(data_, -1, {});
    const auto loaded = workbench().loadedModel();
    if (!loaded || !loaded->model) {
        ++buildGeneration_;
        buildPending_ = startWhenBuilt_ = false;
        data_ = GraphData();
        status_->setText(
            loaded ? tr("%1 is a compiled model: it has no ONNX graph to draw").arg(QFileInfo(loaded->path).fileName())
                   : tr("Open a model to see its graph"));
        return;
    }
    // The graph's data (names, edges, lookups) is built in an event loop turn of its own: on a 10,000-node model it
    // takes tens of ms, which added to the other views' reaction to the new model froze the window > 100 ms.
    data_ = GraphData();
    buildPending_ = true;
    status_->setText(tr("Reading the graph …"));
    QTimer::singleShot(0, this, [this, generation = ++buildGeneration_, model = loaded->model] {
        if (generation != buildGeneration_) return;  // another model came meanwhile
        buildPending_ = false;
        data_ = buildGraphData(model);
        layoutPending_ = true;
        if (isVisible() || std::exchange(startWhenBuilt_, false))
            startLayout();
        else
            status_->setText(tr("%1 nodes: laid out when this tab is shown").arg(data_.nodes.size()));
    });
}

void GraphView::onGroupsMaybeChanged() {
    recolor();
    refreshProperties();
    // Fused groups are laid out as clusters: a new set of groups needs a new layout (not for big graphs, whose
    // cheap layout draws group boxes without them).
    if (!data_.model || job_->isRunning() || drawing_ || fusedGroups() == layoutGroups_) return;
    if (int(data_.nodes.size()) >= job_->largeGraphNodes()) {
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
    auto request = std::make_shared<LayoutRequest>();
    request->nodes.reserve(data_.nodes.size());
    GraphNodeItem::Sizer sizeOf(font());
    for (const GraphNodeInfo& node : data_.nodes) request->nodes.push_back(sizeOf(node));
    nodeSizes_ = request->nodes;  // what the drawing uses too
    for (const GraphEdgeInfo& edge : data_.edges) request->edges.push_back({edge.from, edge.to});
    layoutGroups_ = fusedGroups();
    for (const QStringList& group : layoutGroups_) {
        std::vector<int> members;
        for (const QString& name : group)
            if (const int node = data_.nodeOfName.value(name, -1); node >= 0) members.push_back(node);
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
    items_.clear();
    groups_.clear();
    drawing_ = true;
    status_->setText(tr("Drawing %1 nodes …").arg(data_.nodes.size()));
    addItemsInTurns(std::move(result), elapsedMs, 0, drawGeneration_);
}

void GraphView::addItemsInTurns(std::shared_ptr<const LayoutResult> result, qint64 layoutMs, size_t from,
                                quint64 generation) {
    if (generation != drawGeneration_) return;  // a new model or layout came meanwhile
    // Node boxes first, then edges; a few hundred items per event loop turn keep the window answering (a
    // 10,000-node graph built in one go blocked it for a few hundred ms).
    constexpr size_t kItemsPerTurn = 500;
    const size_t nodes = data_.nodes.size();
    const size_t total = nodes + data_.edges.size();
    const size_t to = std::min(total, from + kItemsPerTurn);
    for (size_t i = from; i < to; ++i) {
        if (i < nodes) {
            const QSizeF size = i < nodeSizes_.size() ? nodeSizes_[i] : GraphNodeItem::sizeFor(data_.nodes[i], font());
            auto* item = new GraphNodeItem(int(i), data_.nodes[i], size, font());
            item->setPos(i < result->centers.size() ? result->centers[i] : QPointF());
            scene_->addItem(item);
            items_.push_back(item);
            continue;
        }
        const size_t e = i - nodes;
        if (e >= result->edgeRoutes.size() || result->edgeRoutes[e].empty()) continue;
        auto* edge = new GraphEdgeItem(result->edgeRoutes[e], result->splines);
        QStringList tip;
        for (const QString& value : data_.edges[e].values)
            tip << QStringLiteral("%1: %2").arg(value, describeValue(data_.graph(), value.toStdString()));
        edge->setToolTip(tip.join(QLatin1Char('\n')));
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
    const bool large = int(data_.nodes.size()) >= job_->largeGraphNodes();
    QString text = tr("%1 nodes, %2 edges; %3 %4 ms, drawn %5 ms")
                       .arg(data_.nodes.size())
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
    if (canvas_->zoom() < 0.5 && !items_.empty()) {
        canvas_->resetTransform();
        canvas_->zoomBy(0.8 / canvas_->zoom());
        // Under the first node, not the middle of the bounding box: a wide or slanting layout would show nothing.
        const GraphNodeItem* first = *std::min_element(
            items_.begin(), items_.end(), [](const GraphNodeItem* a, const GraphNodeItem* b) { return a->y() < b->y(); });
        const double top = scene_->sceneRect().top() + 40;  // the items' bounding rect, as drawGroupsAndFit set it
        canvas_->centerOn(first->x(), top + canvas_->viewport()->height() / 2.0 / canvas_->zoom());
    }
    followSelection(workbench().selection()->selectedNodes());
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
    // The bounds from our own lists: the scene's itemsBoundingRect walks every item through its index (tens of ms
    // for a 10,000-node graph). Edges run between the boxes; the margin covers a spline's bulge.
    QRectF bounds;
    for (const GraphNodeItem* item : items_) bounds = bounds.united(item->sceneBoundingRect());
    for (const GraphGroupItem* group : groups_) bounds = bounds.united(group->sceneBoundingRect());
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
    for (size_t v = 0; v < items_.size() && v < colors_.colors.size(); ++v) items_[v]->setFill(colors_.colors[v]);
    // The shared filter dims the nodes it rejects; they stay in place so the graph keeps its shape.
    const auto estimate = workbench().lastEstimate();
    const std::vector<bool> matches = nodesMatchingFilter(data_, *workbench().layerFilter(), workbench().lastReport(),
                                                          estimate ? &estimate->report : nullptr);
    for (size_t v = 0; v < items_.size() && v < matches.size(); ++v) items_[v]->setOpacity(matches[v] ? 1.0 : 0.2);
    showLegend();
    minimap_->refit();
}

void GraphView::showLegend() { legend_->setText(legendHtml(metric(), colors_)); }

void GraphView::setCurrent(int node, bool centre) {
    if (GraphNodeItem* old = nodeItem(current_)) old->setCurrent(false);
    siblingsOf_ = -1;
    current_ = node;
    if (GraphNodeItem* item = nodeItem(node)) {
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
    if (data_.model) properties_->showNode(data_, current_, sources());
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
    for (GraphNodeItem* item : items_) item->setMarked(false);
    int first = -1;
    for (const QString& name : names)
        if (const int node = data_.nodeOfName.value(name, -1); node >= 0) {
            if (first < 0) first = node;
            if (GraphNodeItem* item = nodeItem(node)) item->setMarked(true);
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
        if (GraphNodeItem* item = nodeItem(hit)) item->setSearchHit(false);
    hits_.clear();
    hit_ = -1;
    const QString needle = text.trimmed();
    if (!needle.isEmpty())
        for (size_t v = 0; v < data_.nodes.size(); ++v)
            if (data_.nodes[v].name.contains(needle, Qt::CaseInsensitive) ||
                data_.nodes[v].opType.compare(needle, Qt::CaseInsensitive) == 0)
                hits_.push_back(int(v));
    for (int hit : hits_)
        if (GraphNodeItem* item = nodeItem(hit)) item->setSearchHit(true);
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
