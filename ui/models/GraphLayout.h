#pragma once
// Node positions and edge routes for the Graph view. Graphviz `dot` lays a graph out as a separate process (its
// EPL code stays out of this GPL program): toDot() writes what it reads, parsePlain() reads its `-Tplain` answer.
// Past a size where dot takes too long, layeredLayout() places nodes by rank in-process (a cheaper picture).
#include <QByteArray>
#include <QPointF>
#include <QSizeF>
#include <QString>

#include <vector>

namespace npuwb::ui {

/// What to lay out: boxes of a given size (points), directed edges between them, and groups drawn together
/// (fused layers). Edges are unique (from, to) pairs.
struct LayoutRequest {
    struct Edge {
        int from = 0;
        int to = 0;
    };
    std::vector<QSizeF> nodes;
    std::vector<Edge> edges;
    std::vector<std::vector<int>> groups;
};

/// Positions in points, y down, origin top left.
struct LayoutResult {
    QSizeF size;
    std::vector<QPointF> centers;  // per request node
    /// Per request edge: a cubic B-spline's control points (1 + 3k points) from dot, or a polyline (two or more
    /// points) from the in-process layout; empty when the layout gave none.
    std::vector<std::vector<QPointF>> edgeRoutes;
    bool splines = false;  // edgeRoutes are Bezier control points, not polylines
    QString method;        // how it was laid out, for the view's header
};

/// Beyond this many nodes the view uses layeredLayout() (Netron switches to a cheaper layout past 3,000).
inline constexpr int kLargeGraphNodes = 3000;

/// The DOT text for `dot -Tplain`: nodes n0..nN-1 with fixed sizes, top-to-bottom, groups as clusters.
QByteArray toDot(const LayoutRequest& request);
/// Reads `dot -Tplain` output for `request`. Throws npuwb::Error (InvalidInput) naming the line on malformed text or
/// on a node or edge the request does not have.
LayoutResult parsePlain(const QByteArray& text, const LayoutRequest& request);
/// Longest-path ranks top to bottom, nodes of a rank ordered by their producers' mean position: linear time, no
/// crossing minimisation beyond that. For graphs too big for dot.
LayoutResult layeredLayout(const LayoutRequest& request);

}  // namespace npuwb::ui
