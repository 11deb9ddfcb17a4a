#include "views/graph/GraphItems.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

#include "models/Format.h"
#include "models/OpTypeColors.h"

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

QPen GraphNodeItem::outlinePen(double lod) const {
    QPen pen(current_ ? QColor(0x00, 0x66, 0xff) : searchHit_ ? QColor(0xff, 0x00, 0xcc) : QColor(0x55, 0x55, 0x55));
    pen.setWidthF(current_ || marked_ || searchHit_ ? 3.0 : 1.0);
    if (marked_ && !current_) pen.setColor(QColor(0x33, 0x99, 0xff));
    pen.setCosmetic(lod < 0.5);  // far out, a 1-unit pen would vanish
    return pen;
}

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const bool io = kind_ != GraphNodeInfo::Kind::Op;
    painter->setPen(outlinePen(lod));
    painter->setBrush(io ? QColor(0xee, 0xee, 0xee) : fill_);
    if (lod < 0.25) {  // far out: boxes only
        painter->drawRect(box_);
        return;
    }
    const double radius = io ? box_.height() / 2 : 4.0;
    painter->drawRoundedRect(box_, radius, radius);
    const QColor text = io ? QColor(Qt::black) : readableTextOn(fill_);
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

GraphEdgeItem::GraphEdgeItem(const std::vector<QPointF>& route, bool splines, std::vector<int> dataEdges)
    : dataEdges_(std::move(dataEdges)) {
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

namespace {
constexpr double kStackOffset = 4.0;  // the cards behind a block's box

QStringList blockLines(const GraphBlock& block) {
    QStringList lines{block.title, QObject::tr("%n nodes", nullptr, int(block.members.size()))};
    QStringList figures;
    if (block.macs > 0)  // "+": some members' shapes were unknown
        figures << QObject::tr("%1 MACs%2").arg(formatCount(block.macs),
                                               block.macsComplete ? QString() : QStringLiteral("+"));
    if (block.params > 0) figures << QObject::tr("%1 params").arg(formatCount(block.params));
    if (!figures.isEmpty()) lines << figures.join(QStringLiteral(" · "));
    return lines;
}
}  // namespace

QSizeF GraphBlockItem::sizeFor(const GraphBlock& block, const QFont& font) {
    const QFontMetricsF plain(font), bold(boldOf(font));
    const QStringList lines = blockLines(block);
    double width = bold.horizontalAdvance(lines.first());
    for (qsizetype i = 1; i < lines.size(); ++i) width = std::max(width, plain.horizontalAdvance(lines[i]));
    // Wider than a node, so the stack reads as a block; the title is elided past kMaxWidth like a node's name.
    return {std::clamp(width + 3 * kPadding + kStackOffset * 2, 120.0, kMaxWidth + 60),
            lines.size() * plain.height() + 2 * kPadding + kStackOffset * 2};
}

GraphBlockItem::GraphBlockItem(int block, const GraphBlock& info, QSizeF size, const QFont& font)
    : GraphNodeItem(-1 - block, GraphNodeInfo{GraphNodeInfo::Kind::Op, info.title, QString(), -1, {}}, size, font),
      lines_(blockLines(info)) {
    setToolTip(QObject::tr("<b>%1</b><br>%2<br>Double-click to expand")
                   .arg(info.prefix.toHtmlEscaped(), lines_.mid(1).join(QStringLiteral("<br>")).toHtmlEscaped()));
}

void GraphBlockItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const QRectF front = box_.adjusted(0, 0, -2 * kStackOffset, -2 * kStackOffset);
    QPen back(QColor(0x55, 0x55, 0x55), 1.0);
    back.setCosmetic(lod < 0.5);
    painter->setPen(back);
    painter->setBrush(fill_.isValid() ? fill_.darker(115) : QColor(0xcc, 0xcc, 0xcc));
    for (int card = 2; card >= 1; --card) painter->drawRect(front.translated(card * kStackOffset, card * kStackOffset));
    painter->setPen(outlinePen(lod));
    painter->setBrush(fill_.isValid() ? fill_ : QColor(0xdd, 0xe6, 0xf0));
    if (lod < 0.25) {
        painter->drawRect(front);
        return;
    }
    painter->drawRoundedRect(front, 4.0, 4.0);
    painter->setPen(fill_.isValid() ? readableTextOn(fill_) : QColor(Qt::black));
    const QRectF inner = front.adjusted(kPadding, kPadding / 2, -kPadding, -kPadding / 2);
    const double line = inner.height() / std::max<qsizetype>(1, lines_.size());
    for (qsizetype i = 0; i < lines_.size(); ++i) {
        painter->setFont(i == 0 ? boldOf(font_) : font_);
        const QRectF row(inner.left(), inner.top() + i * line, inner.width(), line);
        const QFontMetricsF m(painter->font());
        painter->drawText(row, Qt::AlignCenter, m.elidedText(lines_[i], Qt::ElideMiddle, row.width()));
    }
}

GraphBlockFrameItem::GraphBlockFrameItem(int block, const QRectF& around, const QString& title, const QFont& font)
    : QGraphicsRectItem(around.adjusted(-12, -QFontMetricsF(font).height() - 10, 12, 12)),
      block_(block),
      title_(title),
      font_(font) {
    setPen(QPen(QColor(0x6a, 0x51, 0xa3), 1.5, Qt::DashDotLine));
    setBrush(QColor(0x6a, 0x51, 0xa3, 12));
    setZValue(-1);  // under fused layers' boxes
    setToolTip(QObject::tr("Block %1: double-click to collapse").arg(title));
}

void GraphBlockFrameItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) {
    QGraphicsRectItem::paint(painter, option, widget);
    if (option->levelOfDetailFromTransform(painter->worldTransform()) < 0.25) return;
    QFont bold = boldOf(font_);
    painter->setFont(bold);
    painter->setPen(QColor(0x6a, 0x51, 0xa3));
    const QRectF r = rect().adjusted(8, 4, -8, 0);
    painter->drawText(r, Qt::AlignLeft | Qt::AlignTop,
                      QFontMetricsF(bold).elidedText(title_, Qt::ElideMiddle, r.width()));
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
