#include "views/graph/GraphBlocks.h"

#include <QCoreApplication>
#include <QHash>
#include <QMap>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "models/Format.h"
#include "npuwb/ModelSummary.h"

namespace npuwb::ui {
namespace {

constexpr int kMinBlockNodes = 4;  // a family's repeated members hold at least this many nodes

/// The scopes of a node name: "/a/b.3/MatMul" -> "/a", "/a/b.3" (the last part names the node itself).
QStringList scopesOf(const QString& name) {
    QStringList scopes;
    if (!name.startsWith(QLatin1Char('/'))) return scopes;
    for (qsizetype slash = name.indexOf(QLatin1Char('/'), 1); slash > 0;
         slash = name.indexOf(QLatin1Char('/'), slash + 1))
        scopes << name.left(slash);
    return scopes;
}

std::optional<Shape> concreteShape(const GraphData& data, const std::string& value) {
    const Graph& graph = data.graph();
    if (data.shapes)
        if (const Shape* known = data.shapes->find(value)) return *known;  // at the input sizes the user chose
    if (const auto init = graph.initializers.find(value); init != graph.initializers.end()) return init->second.shape();
    const ValueInfo* info = graph.findValueInfo(value);
    if (!info || !info->type.shape) return std::nullopt;
    Shape shape;
    for (const Dim& d : *info->type.shape) {
        if (!d.known()) return std::nullopt;
        shape.push_back(d.value);
    }
    return shape;
}

/// MACs of a node from its shapes at the chosen input sizes, else declared ones; nullopt when a shape is unknown.
std::optional<int64_t> staticMacs(const GraphData& data, const Node& node) {
    std::vector<Shape> in, out;
    for (const std::string& v : node.inputs) {
        if (v.empty()) {
            in.emplace_back();
            continue;
        }
        auto s = concreteShape(data, v);
        if (!s) return std::nullopt;
        in.push_back(std::move(*s));
    }
    for (const std::string& v : node.outputs) {
        auto s = v.empty() ? std::optional<Shape>(Shape{}) : concreteShape(data, v);
        if (!s) return std::nullopt;
        out.push_back(std::move(*s));
    }
    try {
        return nodeMacs(node, in, out);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

bool doesMacs(const std::string& op) {
    static const std::set<std::string> ops = {"Conv",       "ConvTranspose", "ConvInteger",  "QLinearConv", "MatMul",
                                              "MatMulInteger", "QLinearMatMul", "Gemm",     "Einsum",      "LSTM",
                                              "GRU",        "RNN",           "Attention"};
    return ops.count(op) > 0;
}

void summarize(const GraphData& data, GraphBlock& block) {
    const Graph& graph = data.graph();
    std::set<std::string> weights;
    for (int v : block.members) {
        const Node& node = graph.nodes[size_t(data.nodes[size_t(v)].graphNode)];
        for (const std::string& in : node.inputs) {
            const auto init = graph.initializers.find(in);
            if (init != graph.initializers.end() && weights.insert(in).second) block.params += init->second.numel();
        }
        if (const auto macs = staticMacs(data, node))
            block.macs += *macs;
        else if (doesMacs(node.opType))  // a Shape or Gather of unknown size misses nothing
            block.macsComplete = false;
    }
}

}  // namespace

GraphBlocks findBlocks(const GraphData& data) {
    GraphBlocks out;
    out.blockOf.assign(data.nodes.size(), -1);
    // Nodes under each scope, and each indexed scope's family: (parent scope, stem) -> member scopes.
    QHash<QString, std::vector<int>> nodesOf;
    std::vector<QStringList> scopes(data.nodes.size());
    for (size_t v = 0; v < data.nodes.size(); ++v) {
        if (data.nodes[v].kind != GraphNodeInfo::Kind::Op) continue;
        scopes[v] = scopesOf(data.nodes[v].name);
        for (const QString& scope : scopes[v]) nodesOf[scope].push_back(int(v));
    }
    if (nodesOf.isEmpty()) return out;
    static const QRegularExpression indexed(QStringLiteral("^(.*?)(\\d+)$"));
    std::map<std::pair<QString, QString>, QStringList> families;
    for (auto it = nodesOf.constBegin(); it != nodesOf.constEnd(); ++it) {
        const QString& scope = it.key();
        const qsizetype slash = scope.lastIndexOf(QLatin1Char('/'));
        const QRegularExpressionMatch match = indexed.match(scope.mid(slash + 1));
        if (match.hasMatch()) families[{scope.left(slash), match.captured(1)}] << scope;
    }
    // A family repeats when two of its big members hold the same ops.
    QSet<QString> repeated;
    for (const auto& [key, members] : families) {
        QMap<QStringList, int> signatures;
        int best = 0;
        for (const QString& scope : members) {
            const std::vector<int>& nodes = nodesOf[scope];
            if (int(nodes.size()) < kMinBlockNodes) continue;
            QStringList ops;
            for (int v : nodes) ops << data.nodes[size_t(v)].opType;
            ops.sort();
            best = std::max(best, ++signatures[ops]);
        }
        if (best < 2) continue;
        for (const QString& scope : members)
            if (nodesOf[scope].size() >= 2) repeated.insert(scope);
    }
    // The outermost repeated scope of each node is its block.
    QHash<QString, int> blockOfScope;
    for (size_t v = 0; v < data.nodes.size(); ++v)
        for (const QString& scope : scopes[v]) {
            if (!repeated.contains(scope)) continue;
            auto found = blockOfScope.constFind(scope);
            if (found == blockOfScope.constEnd()) {
                found = blockOfScope.insert(scope, int(out.blocks.size()));
                out.blocks.push_back({scope, scope.mid(scope.lastIndexOf(QLatin1Char('/')) + 1), {}, 0, 0, true});
            }
            out.blockOf[v] = *found;
            break;
        }
    if (out.blocks.empty()) return out;
    // Weight-only nodes outside any scope (Identity of a shared weight) join the one block that reads them.
    for (size_t v = 0; v < data.nodes.size(); ++v) {
        if (data.nodes[v].kind != GraphNodeInfo::Kind::Op || out.blockOf[v] >= 0 || !scopes[v].isEmpty()) continue;
        if (!data.producers[v].empty() || data.consumers[v].empty()) continue;
        const int block = out.blockOf[size_t(data.consumers[v].front())];
        const bool one = std::all_of(data.consumers[v].begin(), data.consumers[v].end(),
                                     [&](int c) { return out.blockOf[size_t(c)] == block; });
        if (block >= 0 && one) out.blockOf[v] = block;
    }
    for (size_t v = 0; v < data.nodes.size(); ++v)
        if (out.blockOf[v] >= 0) out.blocks[size_t(out.blockOf[v])].members.push_back(int(v));
    for (GraphBlock& block : out.blocks) summarize(data, block);
    return out;
}

FoldedGraph foldGraph(const GraphData& data, const GraphBlocks& blocks, const std::vector<bool>& collapsed) {
    FoldedGraph out;
    out.unitOfNode.assign(data.nodes.size(), -1);
    out.unitOfBlock.assign(blocks.blocks.size(), -1);
    // Units in graph order: a collapsed block where its first member would be.
    for (size_t v = 0; v < data.nodes.size(); ++v) {
        const int b = blocks.of(int(v));
        if (b >= 0 && size_t(b) < collapsed.size() && collapsed[size_t(b)]) {
            if (out.unitOfBlock[size_t(b)] < 0) {
                out.unitOfBlock[size_t(b)] = int(out.units.size());
                out.units.push_back(-1 - b);
                ++out.blockUnits;
            }
            out.unitOfNode[v] = out.unitOfBlock[size_t(b)];
        } else {
            out.unitOfNode[v] = int(out.units.size());
            out.units.push_back(int(v));
        }
    }
    std::map<std::pair<int, int>, std::vector<int>> pairs;
    for (size_t e = 0; e < data.edges.size(); ++e) {
        const int from = out.unitOfNode[size_t(data.edges[e].from)], to = out.unitOfNode[size_t(data.edges[e].to)];
        if (from != to) pairs[{from, to}].push_back(int(e));
    }
    for (auto& [pair, edges] : pairs) out.edges.push_back({pair.first, pair.second, std::move(edges)});
    return out;
}

std::vector<QColor> blockColors(const GraphData& data, const GraphBlocks& blocks, GraphMetric metric,
                                const MetricSources& sources, const NodeColors& nodeColors, QString* note) {
    std::vector<QColor> colors(blocks.blocks.size(), missingMetricColor());
    if (note) note->clear();
    const bool summed = metric == GraphMetric::Time || metric == GraphMetric::TimeShare || metric == GraphMetric::Macs;
    auto valueOf = [metric](const LayerRow& row) {
        return metric == GraphMetric::Macs ? double(row.macs) : metric == GraphMetric::Time ? row.timeUs
                                                                                           : row.timePercent;
    };
    const Report* report = nullptr;
    if (summed)
        for (const Report* candidate : {sources.run, sources.estimate})
            if (candidate && std::any_of(candidate->layers.begin(), candidate->layers.end(),
                                         [&](const LayerRow& row) { return valueOf(row) > 0; })) {
                report = candidate;
                break;
            }
    if (report) {
        // A fused layer's row covers several nodes: count each row once per block.
        const QHash<QString, const LayerRow*> rows = rowsByNode(*report);
        std::vector<double> totals(blocks.blocks.size(), 0.0);
        for (size_t b = 0; b < blocks.blocks.size(); ++b) {
            QSet<const LayerRow*> seen;
            for (int v : blocks.blocks[b].members)
                if (const LayerRow* row = rows.value(data.nodes[size_t(v)].name); row && !seen.contains(row)) {
                    seen.insert(row);
                    totals[b] += std::max(0.0, valueOf(*row));
                }
        }
        const double max = *std::max_element(totals.begin(), totals.end());
        const bool log = metric == GraphMetric::Macs;
        for (size_t b = 0; b < totals.size(); ++b)
            if (totals[b] > 0 && max > 0)
                colors[b] = heatColor(log ? std::log1p(totals[b]) / std::log1p(max) : totals[b] / max);
        if (note) {
            const QString top = metric == GraphMetric::Macs ? formatCount(int64_t(std::llround(max)))
                                : metric == GraphMetric::Time ? formatMicros(max)
                                                              : QStringLiteral("%1 %").arg(max, 0, 'f', 1);
            *note = QCoreApplication::translate("GraphBlocks", "collapsed blocks by their total, up to %1").arg(top);
        }
        return colors;
    }
    // Op type has no one answer for a block: a neutral fill; else what most members show.
    if (metric == GraphMetric::OpType) {
        std::fill(colors.begin(), colors.end(), QColor(0xdd, 0xe6, 0xf0));
        return colors;
    }
    for (size_t b = 0; b < blocks.blocks.size(); ++b) {
        QHash<QRgb, int> votes;
        int best = 0;
        for (int v : blocks.blocks[b].members) {
            if (size_t(v) >= nodeColors.colors.size() || nodeColors.colors[size_t(v)] == missingMetricColor()) continue;
            const QRgb rgb = nodeColors.colors[size_t(v)].rgb();
            if (const int n = ++votes[rgb]; n > best) {
                best = n;
                colors[b] = nodeColors.colors[size_t(v)];
            }
        }
    }
    if (note) *note = QCoreApplication::translate("GraphBlocks", "collapsed blocks as most of their nodes");
    return colors;
}

}  // namespace npuwb::ui
