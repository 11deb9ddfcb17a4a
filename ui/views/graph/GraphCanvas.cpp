#include "views/graph/GraphCanvas.h"

#include <QContextMenuEvent>
#include <QGraphicsScene>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "views/graph/GraphItems.h"

namespace npuwb::ui {
namespace {
constexpr double kMinZoom = 0.01, kMaxZoom = 8.0;
constexpr qsizetype kRenderedItems = 2000;  // the minimap draws scenes of fewer items as they are
}

GraphCanvas::GraphCanvas(QWidget* parent) : QGraphicsView(parent) {
    setObjectName(QStringLiteral("graphCanvas"));
    setDragMode(QGraphicsView::ScrollHandDrag);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setBackgroundBrush(QColor(0xfb, 0xfb, 0xfb));
    setFocusPolicy(Qt::StrongFocus);
}

void GraphCanvas::zoomBy(double factor) {
    const double target = std::clamp(zoom() * factor, kMinZoom, kMaxZoom);
    scale(target / zoom(), target / zoom());
    emit viewportMoved();
}

void GraphCanvas::fit() {
    if (!scene()) return;
    // The scene's rect (the Graph view sets it once per layout): itemsBoundingRect walks all 20,000 items of a
    // 10,000-node graph, tens of ms on the GUI thread.
    fitInView(scene()->sceneRect().adjusted(-10, -10, 10, 10), Qt::KeepAspectRatio);
    // A tall chain fitted whole is unreadable: never start smaller than the boxes' outlines need.
    if (zoom() < kMinZoom) scale(kMinZoom / zoom(), kMinZoom / zoom());
    emit viewportMoved();
}

bool GraphCanvas::event(QEvent* event) {
    if (event->type() == QEvent::KeyPress) {
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->key() == Qt::Key_Tab || key->key() == Qt::Key_Backtab) {
            const bool back = key->key() == Qt::Key_Backtab || (key->modifiers() & Qt::ShiftModifier);
            emit moveRequested(back ? Move::Producer : Move::Consumer);
            return true;
        }
    }
    return QGraphicsView::event(event);
}

void GraphCanvas::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
        case Qt::Key_Plus:
        case Qt::Key_Equal: zoomBy(1.25); return;
        case Qt::Key_Minus: zoomBy(0.8); return;
        case Qt::Key_0: fit(); return;
        case Qt::Key_Up: emit moveRequested(Move::Producer); return;
        case Qt::Key_Down: emit moveRequested(Move::Consumer); return;
        case Qt::Key_Left: emit moveRequested(Move::PreviousSibling); return;
        case Qt::Key_Right: emit moveRequested(Move::NextSibling); return;
        default: QGraphicsView::keyPressEvent(event);
    }
}

void GraphCanvas::wheelEvent(QWheelEvent* event) {
    if (event->angleDelta().y() == 0) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    zoomBy(std::pow(1.0015, event->angleDelta().y()));
    event->accept();
}

void GraphCanvas::mousePressEvent(QMouseEvent* event) {
    pressPos_ = event->pos();
    QGraphicsView::mousePressEvent(event);
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* event) {
    QGraphicsView::mouseReleaseEvent(event);
    if (event->button() != Qt::LeftButton || (event->pos() - pressPos_).manhattanLength() > 4) return;  // a drag
    for (QGraphicsItem* item : items(event->pos())) {
        if (auto* block = dynamic_cast<GraphBlockItem*>(item)) {
            emit blockClicked(block->block());
            return;
        }
        if (auto* node = dynamic_cast<GraphNodeItem*>(item)) {
            emit nodeClicked(node->index());
            return;
        }
    }
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton)
        for (QGraphicsItem* item : items(event->pos())) {  // topmost first: a node inside a frame is passed over
            if (auto* block = dynamic_cast<GraphBlockItem*>(item)) {
                emit blockToggleRequested(block->block());
                return;
            }
            if (auto* frame = dynamic_cast<GraphBlockFrameItem*>(item)) {
                emit blockToggleRequested(frame->block());
                return;
            }
        }
    QGraphicsView::mouseDoubleClickEvent(event);
}

void GraphCanvas::contextMenuEvent(QContextMenuEvent* event) {
    for (QGraphicsItem* item : items(event->pos())) {
        if (auto* block = dynamic_cast<GraphBlockItem*>(item)) {
            emit blockMenuRequested(-1, block->block(), event->globalPos());
            return;
        }
        if (auto* node = dynamic_cast<GraphNodeItem*>(item)) {
            emit blockMenuRequested(node->index(), -1, event->globalPos());
            return;
        }
        if (auto* frame = dynamic_cast<GraphBlockFrameItem*>(item)) {
            emit blockMenuRequested(-1, frame->block(), event->globalPos());
            return;
        }
    }
    emit blockMenuRequested(-1, -1, event->globalPos());
}

void GraphCanvas::scrollContentsBy(int dx, int dy) {
    QGraphicsView::scrollContentsBy(dx, dy);
    emit viewportMoved();
}

void GraphCanvas::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    emit viewportMoved();
}

GraphMinimap::GraphMinimap(GraphCanvas* canvas, QWidget* parent) : QWidget(parent), canvas_(canvas) {
    setObjectName(QStringLiteral("graphMinimap"));
    setToolTip(tr("Click or drag to move the graph"));
    setMinimumSize(80, 60);
    connect(canvas_, &GraphCanvas::viewportMoved, this, qOverload<>(&QWidget::update));
}


QTransform GraphMinimap::toWidget() const {
    const QRectF scene = source_;
    if (scene.isEmpty()) return {};
    const double scale = std::min((width() - 4) / scene.width(), (height() - 4) / scene.height());
    const QPointF offset((width() - scene.width() * scale) / 2, (height() - scene.height() * scale) / 2);
    return QTransform::fromTranslate(-scene.left(), -scene.top()) * QTransform::fromScale(scale, scale) *
           QTransform::fromTranslate(offset.x(), offset.y());
}

void GraphMinimap::refit() {
    QGraphicsScene* scene = canvas_->scene();
    const double ratio = devicePixelRatioF();
    picture_ = QPixmap((QSizeF(size()) * ratio).toSize());
    picture_.setDevicePixelRatio(ratio);
    picture_.fill(QColor(0xf0, 0xf0, 0xf0));
    // Kept until the next refit: every paint and click maps through it, and asking the scene for its items' bounds
    // each time cost two walks over all items per paint.
    source_ = scene ? scene->sceneRect() : QRectF();
    const QRectF& source = source_;
    if (scene && !source.isEmpty()) {
        QPainter painter(&picture_);
        // No stacking order (-1): sorting the items of a 10,000-node scene costs tens of ms.
        const QList<QGraphicsItem*> items = scene->items(Qt::SortOrder(-1));
        if (items.size() < kRenderedItems) {
            painter.setRenderHint(QPainter::Antialiasing);
            painter.setTransform(toWidget());
            scene->render(&painter, source, source);
        } else {
            // Rendering every item of a 10,000-node scene took ~200 ms on the GUI thread: the node boxes as filled
            // rectangles of at least a pixel (what shows at this scale) take a few.
            const QTransform map = toWidget();
            for (QGraphicsItem* item : items)
                if (const auto* node = dynamic_cast<const GraphNodeItem*>(item)) {
                    QRectF box = map.mapRect(node->sceneBoundingRect());
                    box.setSize(box.size().expandedTo(QSizeF(1, 1)));
                    painter.fillRect(box, node->fill().isValid() ? node->fill() : QColor(0xcc, 0xcc, 0xcc));
                }
        }
    }
    update();
}

void GraphMinimap::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.drawPixmap(0, 0, picture_);
    if (source_.isEmpty()) return;
    QRectF visible = toWidget().mapRect(canvas_->mapToScene(canvas_->viewport()->rect()).boundingRect());
    // On a very tall graph the visible part is a few pixels here: keep the marker big enough to see.
    if (visible.height() < 8) visible.adjust(0, -(8 - visible.height()) / 2, 0, (8 - visible.height()) / 2);
    if (visible.width() < 8) visible.adjust(-(8 - visible.width()) / 2, 0, (8 - visible.width()) / 2, 0);
    painter.setPen(QColor(0x00, 0x66, 0xff));
    painter.setBrush(QColor(0x00, 0x66, 0xff, 40));
    painter.drawRect(visible);
}

void GraphMinimap::moveCanvasTo(const QPoint& pos) {
    bool invertible = false;
    const QTransform back = toWidget().inverted(&invertible);
    if (invertible) canvas_->centerOn(back.map(QPointF(pos)));
}

void GraphMinimap::mousePressEvent(QMouseEvent* event) { moveCanvasTo(event->pos()); }

void GraphMinimap::mouseMoveEvent(QMouseEvent* event) {
    if (event->buttons() & Qt::LeftButton) moveCanvasTo(event->pos());
}

void GraphMinimap::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (source_.isEmpty())
        clear();
    else
        refit();
}

void GraphMinimap::clear() {
    source_ = QRectF();
    const double ratio = devicePixelRatioF();
    picture_ = QPixmap((QSizeF(size()) * ratio).toSize());
    picture_.setDevicePixelRatio(ratio);
    picture_.fill(QColor(0xf0, 0xf0, 0xf0));
    update();
}

}  // namespace npuwb::ui
