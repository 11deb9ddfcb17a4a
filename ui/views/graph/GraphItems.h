#pragma once
// The Graph view's scene items: a node box (op type over name, fill by the chosen metric), an edge with its arrow
// (tooltip: the values and their shapes), a fused layer's group box, and a collapsed block's box or an expanded
// block's frame. Zoomed far out, nodes skip their text so that big graphs still paint quickly.
#include <QColor>
#include <QFont>
#include <QFontMetricsF>
#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QHash>
#include <QPainterPath>

#include <vector>

#include "views/graph/GraphBlocks.h"
#include "views/graph/GraphData.h"

namespace npuwb::ui {

class GraphNodeItem : public QGraphicsItem {
public:
    GraphNodeItem(int index, const GraphNodeInfo& info, QSizeF size, const QFont& font);

    /// The box a node needs for its text (points), the same for layout and drawing.
    static QSizeF sizeFor(const GraphNodeInfo& info, const QFont& font);
    /// The same with the font's plain and bold metrics made once (making them per node was most of the cost).
    static QSizeF sizeFor(const GraphNodeInfo& info, const QFontMetricsF& plain, const QFontMetricsF& bold);
    static QFont boldFont(const QFont& font);
    /// Sizes many nodes at the layout's start: op type widths cached per op type, a name's width summed from cached
    /// character advances (shaping 10,000 names took ~40 ms of the GUI thread; the name is elided when drawn).
    class Sizer {
    public:
        explicit Sizer(const QFont& font);
        QSizeF operator()(const GraphNodeInfo& info);

    private:
        QFontMetricsF plain_, bold_;
        QHash<QString, double> opWidths_;
        QHash<QChar, double> charWidths_;
    };

    int index() const { return index_; }
    void setFill(const QColor& fill);
    QColor fill() const { return fill_; }
    void setCurrent(bool current);
    bool isCurrent() const { return current_; }
    void setMarked(bool marked);  // part of the shared selection (a fused layer's other nodes)
    bool isMarked() const { return marked_; }
    void setSearchHit(bool hit);
    bool isSearchHit() const { return searchHit_; }

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

protected:
    /// The box's outline in the state's pen (current, marked, search hit), far out with a cosmetic pen.
    QPen outlinePen(double lod) const;

    int index_;
    GraphNodeInfo::Kind kind_;
    QString opType_, name_;
    QRectF box_;
    QFont font_;
    QColor fill_;
    bool current_ = false, marked_ = false, searchHit_ = false;
};

class GraphEdgeItem : public QGraphicsPathItem {
public:
    /// `route`: Bezier control points (1 + 3k) when `splines`, else a polyline ending at the consumer's border.
    /// `dataEdges`: the GraphData edges this drawn edge stands for (one, or several across a collapsed block).
    GraphEdgeItem(const std::vector<QPointF>& route, bool splines, std::vector<int> dataEdges);
    const std::vector<int>& dataEdges() const { return dataEdges_; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QPolygonF arrow_;
    std::vector<int> dataEdges_;
};

/// A collapsed repeated block (GraphBlocks): one box standing for its nodes, drawn as a stack of cards with its
/// name, node count, parameters and MACs. index() is -1 - the block's index.
class GraphBlockItem : public GraphNodeItem {
public:
    GraphBlockItem(int block, const GraphBlock& info, QSizeF size, const QFont& font);
    static QSizeF sizeFor(const GraphBlock& info, const QFont& font);
    int block() const { return -1 - index(); }
    QStringList lines() const { return lines_; }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QStringList lines_;
};

/// An expanded block's outline around its nodes (while other blocks are collapsed): double-click collapses it.
class GraphBlockFrameItem : public QGraphicsRectItem {
public:
    GraphBlockFrameItem(int block, const QRectF& around, const QString& title, const QFont& font);
    int block() const { return block_; }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    int block_;
    QString title_;
    QFont font_;
};

/// A fused layer (LayerRow::fusedNodes): a dashed box around its nodes, its layer name on top.
class GraphGroupItem : public QGraphicsRectItem {
public:
    GraphGroupItem(const QRectF& around, const QString& title, const QFont& font);
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QString title_;
    QFont font_;
};

}  // namespace npuwb::ui
