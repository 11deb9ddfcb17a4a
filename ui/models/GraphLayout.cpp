#include "models/GraphLayout.h"

#include <QHash>
#include <QList>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "npuwb/Error.h"

namespace npuwb::ui {
namespace {

constexpr double kPointsPerInch = 72.0;
constexpr double kNodeGap = 18.0;  // points between boxes of a rank (in-process layout)
constexpr double kRankGap = 30.0;  // points between ranks

QByteArray inches(double points) { return QByteArray::number(points / kPointsPerInch, 'f', 3); }

/// One line of -Tplain split into words; "quoted strings" (with \" escapes) are one word without their quotes.
QList<QByteArray> splitPlainLine(const QByteArray& line, int lineNumber) {
    QList<QByteArray> words;
    int i = 0;
    const int n = int(line.size());
    while (i < n) {
        while (i < n && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        if (i >= n) break;
        QByteArray word;
        if (line[i] == '"') {
            ++i;
            bool closed = false;
            for (; i < n; ++i) {
                if (line[i] == '\\' && i + 1 < n) {
                    word += line[++i];
                } else if (line[i] == '"') {
                    closed = true;
                    ++i;
                    break;
                } else {
                    word += line[i];
                }
            }
            if (!closed) failInput("dot output line " + std::to_string(lineNumber) + ": unterminated quoted string");
        } else {
            while (i < n && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') word += line[i++];
        }
        words.append(word);
    }
    return words;
}

double number(const QList<QByteArray>& words, int index, int lineNumber) {
    bool ok = false;
    const double value = index < words.size() ? words[index].toDouble(&ok) : 0.0;
    if (!ok || !std::isfinite(value))
        failInput("dot output line " + std::to_string(lineNumber) + ": expected a number in field " +
                  std::to_string(index + 1));
    return value;
}

/// "n12" -> 12, checked against the request's node count.
int nodeIndex(const QByteArray& name, int count, int lineNumber) {
    bool ok = false;
    const int index = name.startsWith('n') ? name.mid(1).toInt(&ok) : -1;
    if (!ok || index < 0 || index >= count)
        failInput("dot output line " + std::to_string(lineNumber) + ": unknown node '" + name.toStdString() + "'");
    return index;
}

/// Where an edge from rank `from` to rank `to` (more than one apart) passes the nodes between: right of those that a
/// straight line from x `a` to `b` would cross; NaN when none is in the way (or too many ranks to look through).
double detourX(const LayoutResult& layout, const LayoutRequest& request, const std::vector<std::vector<int>>& rows,
               int from, int to, double a, double b) {
    if (to - from < 2) return std::nan("");
    const double left = std::min(a, b) - 4, right = std::max(a, b) + 4;
    double detour = std::nan("");
    size_t looked = 0;
    for (int r = from + 1; r < to && r < int(rows.size()); ++r)
        for (int v : rows[size_t(r)]) {
            if (++looked > 4000) return std::nan("");  // a huge span: a straight line, no quadratic time
            const double x = layout.centers[size_t(v)].x(), half = request.nodes[size_t(v)].width() / 2;
            if (x + half < left || x - half > right) continue;
            detour = std::isnan(detour) ? x + half + kNodeGap : std::max(detour, x + half + kNodeGap);
        }
    return detour;
}

}  // namespace

QByteArray toDot(const LayoutRequest& request) {
    QByteArray dot;
    dot.reserve(int(request.nodes.size()) * 40 + int(request.edges.size()) * 16 + 256);
    dot += "digraph G {\n  graph [rankdir=TB, nodesep=0.25, ranksep=0.35, outputorder=edgesfirst";
    // Crossing minimisation dominates dot's time on big graphs: fewer passes keep it within seconds.
    if (request.nodes.size() > 800) dot += ", mclimit=0.3, nslimit=4, nslimit1=4, remincross=false";
    dot += "];\n  node [shape=box, fixedsize=true, label=\"\"];\n";
    for (size_t i = 0; i < request.nodes.size(); ++i)
        dot += "  n" + QByteArray::number(qulonglong(i)) + " [width=" + inches(request.nodes[i].width()) +
               ", height=" + inches(request.nodes[i].height()) + "];\n";
    std::vector<bool> grouped(request.nodes.size(), false);
    for (size_t g = 0; g < request.groups.size(); ++g) {
        QByteArray members;
        for (int node : request.groups[g]) {
            if (node < 0 || size_t(node) >= grouped.size() || grouped[size_t(node)]) continue;  // clusters are disjoint
            grouped[size_t(node)] = true;
            members += " n" + QByteArray::number(node) + ";";
        }
        if (!members.isEmpty())
            dot += "  subgraph cluster_" + QByteArray::number(qulonglong(g)) + " {" + members + " }\n";
    }
    for (const LayoutRequest::Edge& e : request.edges)
        dot += "  n" + QByteArray::number(e.from) + " -> n" + QByteArray::number(e.to) + ";\n";
    dot += "}\n";
    return dot;
}

LayoutResult parsePlain(const QByteArray& text, const LayoutRequest& request) {
    LayoutResult result;
    result.splines = true;
    result.method = QStringLiteral("Graphviz dot");
    const int nodeCount = int(request.nodes.size());
    result.centers.assign(request.nodes.size(), QPointF());
    result.edgeRoutes.assign(request.edges.size(), {});
    QHash<quint64, int> edgeOf;
    for (size_t i = 0; i < request.edges.size(); ++i)
        edgeOf.insert(quint64(uint32_t(request.edges[i].from)) << 32 | uint32_t(request.edges[i].to), int(i));
    std::vector<bool> placed(request.nodes.size(), false);
    double height = -1.0;
    bool stopped = false;
    const QList<QByteArray> lines = text.split('\n');
    for (int l = 0; l < lines.size() && !stopped; ++l) {
        const int lineNumber = l + 1;
        const QList<QByteArray> w = splitPlainLine(lines[l], lineNumber);
        if (w.isEmpty()) continue;
        if (w[0] == "graph") {
            const double scale = number(w, 1, lineNumber);
            result.size = QSizeF(number(w, 2, lineNumber) * scale, number(w, 3, lineNumber) * scale) * kPointsPerInch;
            height = result.size.height();
        } else if (w[0] == "node") {
            if (height < 0) failInput("dot output line " + std::to_string(lineNumber) + ": node before the graph line");
            const int index = nodeIndex(w.value(1), nodeCount, lineNumber);
            result.centers[size_t(index)] =
                QPointF(number(w, 2, lineNumber) * kPointsPerInch, height - number(w, 3, lineNumber) * kPointsPerInch);
            placed[size_t(index)] = true;
        } else if (w[0] == "edge") {
            if (height < 0) failInput("dot output line " + std::to_string(lineNumber) + ": edge before the graph line");
            const int from = nodeIndex(w.value(1), nodeCount, lineNumber);
            const int to = nodeIndex(w.value(2), nodeCount, lineNumber);
            const double points = number(w, 3, lineNumber);
            if (points < 0 || points > 1e6 || points != std::floor(points) || w.size() < 4 + 2 * int(points))
                failInput("dot output line " + std::to_string(lineNumber) + ": bad point count");
            const auto edge = edgeOf.constFind(quint64(uint32_t(from)) << 32 | uint32_t(to));
            if (edge == edgeOf.constEnd())
                failInput("dot output line " + std::to_string(lineNumber) + ": edge n" + std::to_string(from) +
                          " -> n" + std::to_string(to) + " was not asked for");
            std::vector<QPointF>& route = result.edgeRoutes[size_t(*edge)];
            for (int p = 0; p < int(points); ++p)
                route.emplace_back(number(w, 4 + 2 * p, lineNumber) * kPointsPerInch,
                                   height - number(w, 5 + 2 * p, lineNumber) * kPointsPerInch);
        } else if (w[0] == "stop") {
            stopped = true;
        } else {
            failInput("dot output line " + std::to_string(lineNumber) + ": unknown statement '" + w[0].toStdString() +
                      "'");
        }
    }
    if (!stopped) failInput("dot output ends without 'stop' (truncated?)");
    const auto missing = std::find(placed.begin(), placed.end(), false);
    if (missing != placed.end())
        failInput("dot output has no position for node n" + std::to_string(missing - placed.begin()));
    return result;
}

LayoutResult layeredLayout(const LayoutRequest& request) {
    const size_t n = request.nodes.size();
    LayoutResult result;
    result.method = QStringLiteral("layered by rank");
    std::vector<std::vector<int>> producers(n), consumers(n);
    for (const LayoutRequest::Edge& e : request.edges) {
        if (e.from < 0 || e.to < 0 || size_t(e.from) >= n || size_t(e.to) >= n) continue;
        producers[size_t(e.to)].push_back(e.from);
        consumers[size_t(e.from)].push_back(e.to);
    }
    // Longest-path ranks (Kahn's order); nodes left on a cycle go below everything else.
    std::vector<int> rank(n, 0), pending(n, 0), order;
    order.reserve(n);
    for (size_t v = 0; v < n; ++v) {
        pending[v] = int(producers[v].size());
        if (pending[v] == 0) order.push_back(int(v));
    }
    for (size_t head = 0; head < order.size(); ++head)
        for (int c : consumers[size_t(order[head])]) {
            rank[size_t(c)] = std::max(rank[size_t(c)], rank[size_t(order[head])] + 1);
            if (--pending[size_t(c)] == 0) order.push_back(c);
        }
    int maxRank = 0;
    for (int r : rank) maxRank = std::max(maxRank, r);
    for (size_t v = 0; v < n; ++v)
        if (pending[v] > 0) rank[v] = maxRank + 1;
    std::vector<std::vector<int>> rows(size_t(maxRank) + 2);
    for (size_t v = 0; v < n; ++v) rows[size_t(rank[v])].push_back(int(v));

    // Each node wants to sit under the mean of its producers; overlaps are pushed to the right.
    result.centers.assign(n, QPointF());
    double y = kRankGap, minX = std::numeric_limits<double>::max(), maxX = 0.0;
    for (std::vector<int>& row : rows) {
        if (row.empty()) continue;
        std::vector<double> want(row.size());
        double fresh = 0.0;
        for (size_t i = 0; i < row.size(); ++i) {
            const auto& ps = producers[size_t(row[i])];
            double sum = 0.0;
            for (int p : ps) sum += result.centers[size_t(p)].x();
            want[i] =
                ps.empty() ? (fresh += request.nodes[size_t(row[i])].width() + kNodeGap) : sum / double(ps.size());
        }
        std::vector<size_t> byWant(row.size());
        for (size_t i = 0; i < byWant.size(); ++i) byWant[i] = i;
        std::stable_sort(byWant.begin(), byWant.end(), [&](size_t a, size_t b) { return want[a] < want[b]; });
        double right = -std::numeric_limits<double>::max(), rowHeight = 0.0;
        for (size_t i : byWant) {
            const QSizeF box = request.nodes[size_t(row[i])];
            const double x = std::max(want[i], right + kNodeGap + box.width() / 2);
            right = x + box.width() / 2;
            result.centers[size_t(row[i])] = QPointF(x, 0.0);
            rowHeight = std::max(rowHeight, box.height());
            minX = std::min(minX, x - box.width() / 2);
            maxX = std::max(maxX, right);
        }
        for (int v : row) result.centers[size_t(v)].setY(y + rowHeight / 2);
        y += rowHeight + kRankGap;
    }
    const double shift = n ? kNodeGap - minX : 0.0;
    for (QPointF& c : result.centers) c.rx() += shift;
    result.size = QSizeF(n ? maxX - minX + 2 * kNodeGap : 0.0, y);
    result.edgeRoutes.reserve(request.edges.size());
    for (const LayoutRequest::Edge& e : request.edges) {
        if (e.from < 0 || e.to < 0 || size_t(e.from) >= n || size_t(e.to) >= n) {
            result.edgeRoutes.emplace_back();
            continue;
        }
        const QPointF a = result.centers[size_t(e.from)] + QPointF(0, request.nodes[size_t(e.from)].height() / 2);
        const QPointF b = result.centers[size_t(e.to)] - QPointF(0, request.nodes[size_t(e.to)].height() / 2);
        const double detour = detourX(result, request, rows, rank[size_t(e.from)], rank[size_t(e.to)], a.x(), b.x());
        if (std::isnan(detour))
            result.edgeRoutes.push_back({a, b});
        else  // around the nodes a straight line would hide
            result.edgeRoutes.push_back(
                {a, QPointF(detour, a.y() + kRankGap / 2), QPointF(detour, b.y() - kRankGap / 2), b});
    }
    return result;
}

}  // namespace npuwb::ui
