#include "views/graph/GraphItems.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace npuwb::ui {
namespace {

constexpr double kPadding = 8.0;
constexpr double kMaxWidth = 220.0;
constexpr double kArrowLength = 9.0;

QFont boldOf(QFont font) {
    font.setBold(true);
    return font;
}

}  // namespace

QSizeF GraphNodeItem::sizeFor(const GraphNodeInfo& info, const QFont& font) {
    return sizeFor(info, QFontMetricsF(font), QFontMetricsF(boldOf(font)));
}

QFont GraphNodeItem::boldFont(const QFont& font) { return boldOf(font); }

QSizeF GraphNodeItem::sizeFor(const GraphNodeInfo& info, const QFontMetricsF& plain, const QFontMetricsF& bold) {
    const double text = std::max(bold.horizontalAdvance(info.opType), plain.horizontalAdvance(info.name));
    return {std::clamp(text + 2 * kPadding, 64.0, kMaxWidth), 2 * plain.height() + kPadding};
}

GraphNodeItem::Sizer::Sizer(const QFont& font) : plain_(font), bold_(boldOf(font)) {}

QSizeF GraphNodeItem::Sizer::operator()(const GraphNodeInfo& info) {
    auto op = opWidths_.constFind(info.opType);
    if (op == opWidths_.constEnd()) op = opWidths_.insert(info.opType, bold_.horizontalAdvance(info.opType));
    double name = 0;
    for (const QChar c : info.name) {
        auto w = charWidths_.constFind(c);
        if (w == charWidths_.constEnd()) w = charWidths_.insert(c, plain_.horizontalAdvance(c));
        name += *w;
        if (name > kMaxWidth) break;  // clamped below anyway
    }
    return {std::clamp(std::max(*op, name) + 2 * kPadding, 64.0, kMaxWidth), 2 * plain_.height() + kPadding};
}

GraphNodeItem::GraphNodeItem(int index, const GraphNodeInfo& info, QSizeF size, const QFont& font)
    : index_(index), kind_(info.kind), opType_(info.opType), name_(info.name), font_(font) {
    box_ = QRectF(-size.width() / 2, -size.height() / 2, size.width(), size.height());
    setToolTip(QStringLiteral("<b>%1</b><br>%2").arg(opType_.toHtmlEscaped(), name_.toHtmlEscaped()));
    setZValue(2);
}

void GraphNodeItem::setFill(const QColor& fill) {
    fill_ = fill;
    update();
}

void GraphNodeItem::setCurrent(bool current) {
    if (current == current_) return;
    current_ = current;
    setZValue(current ? 3 : 2);
    update();
}

void GraphNodeItem::setMarked(bool marked) {
    if (marked == marked_) return;
    marked_ = marked;
    update();
}

void GraphNodeItem::setSearchHit(bool hit) {
    if (hit == searchHit_) return;
    searchHit_ = hit;
    update();
}

QRectF GraphNodeItem::boundingRect() const { return box_.adjusted(-4, -4, 4, 4); }

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const bool io = kind_ != GraphNodeInfo::Kind::Op;
    QPen pen(current_ ? QColor(0x00, 0x66, 0xff) : searchHit_ ? QColor(0xff, 0x00, 0xcc) : QColor(0x55, 0x55, 0x55));
    pen.setWidthF(current_ || marked_ || searchHit_ ? 3.0 : 1.0);
    if (marked_ && !current_) pen.setColor(QColor(0x33, 0x99, 0xff));
    pen.setCosmetic(lod < 0.5);  // far out, a 1-unit pen would vanish
    painter->setPen(pen);
    painter->setBrush(io ? QColor(0xee, 0xee, 0xee) : fill_);
    if (lod < 0.25) {  // far out: boxes only
        painter->drawRect(box_);
        return;
    }
    const double radius = io ? box_.height() / 2 : 4.0;
    painter->drawRoundedRect(box_, radius, radius);
    const QColor text = !io && fill_.lightnessF() < 0.5 ? Qt::white : Qt::black;
    painter->setPen(text);
    const QRectF inner = box_.adjusted(kPadding / 2, kPadding / 2, -kPadding / 2, -kPadding / 2);
    const QRectF top(inner.left(), inner.top(), inner.width(), inner.height() / 2);
    const QRectF bottom(inner.left(), inner.center().y(), inner.width(), inner.height() / 2);
    painter->setFont(boldOf(font_));
    painter->drawText(top, Qt::AlignCenter, opType_);
    painter->setFont(font_);
    const QFontMetricsF metrics(font_);
    painter->drawText(bottom, Qt::AlignCenter, metrics.elidedText(name_, Qt::ElideMiddle, inner.width()));
}

GraphEdgeItem::GraphEdgeItem(const std::vector<QPointF>& route, bool splines) {
    QPainterPath path;
    if (route.size() >= 2) {
        path.moveTo(route[0]);
        if (splines && route.size() % 3 == 1) {
            for (size_t i = 1; i + 2 < route.size(); i += 3) path.cubicTo(route[i], route[i + 1], route[i + 2]);
        } else {
            for (size_t i = 1; i < route.size(); ++i) path.lineTo(route[i]);
        }
        // dot stops the spline where the arrowhead begins; the polyline ends at the box, where the arrow ends.
        const QPointF last = route.back(), before = route[route.size() - 2];
        const QPointF d = last - before;
        const double length = std::hypot(d.x(), d.y());
        const QPointF unit = length > 0 ? d / length : QPointF(0, 1);
        const QPointF tip = splines ? last + unit * kArrowLength : last;
        const QPointF base = tip - unit * kArrowLength, normal(-unit.y(), unit.x());
        arrow_ << tip << base + normal * 3.5 << base - normal * 3.5;
        if (!splines) {  // end the line at the arrow's base, not under its tip
            path = QPainterPath();
            path.moveTo(route[0]);
            for (size_t i = 1; i + 1 < route.size(); ++i) path.lineTo(route[i]);
            path.lineTo(base);
        }
    }
    setPath(path);
    setPen(QPen(QColor(0x70, 0x70, 0x70), 1.0));
    setZValue(1);
}

QRectF GraphEdgeItem::boundingRect() const {
    return QGraphicsPathItem::boundingRect().united(arrow_.boundingRect()).adjusted(-2, -2, 2, 2);
}

QPainterPath GraphEdgeItem::shape() const {
    QPainterPathStroker stroker;
    stroker.setWidth(6);  // easy to hover for the tooltip
    return stroker.createStroke(path());
}

void GraphEdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    painter->setPen(pen());
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path());
    painter->setBrush(pen().color());
    painter->drawPolygon(arrow_);
}

GraphGroupItem::GraphGroupItem(const QRectF& around, const QString& title, const QFont& font)
    : QGraphicsRectItem(around.adjusted(-8, -QFontMetricsF(font).height() - 6, 8, 8)), title_(title), font_(font) {
    QPen pen(QColor(0x33, 0x66, 0x99), 1.0, Qt::DashLine);
    setPen(pen);
    setBrush(QColor(0x33, 0x66, 0x99, 18));
    setZValue(0);
    setToolTip(QObject::tr("Fused layer %1").arg(title));
}

void GraphGroupItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) {
    QGraphicsRectItem::paint(painter, option, widget);
    if (option->levelOfDetailFromTransform(painter->worldTransform()) < 0.25) return;
    painter->setFont(font_);
    painter->setPen(QColor(0x33, 0x66, 0x99));
    const QRectF r = rect().adjusted(6, 2, -6, 0);
    painter->drawText(r, Qt::AlignLeft | Qt::AlignTop,
                      QFontMetricsF(font_).elidedText(title_, Qt::ElideMiddle, r.width()));
}

}  // namespace npuwb::ui
