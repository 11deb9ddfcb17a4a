#include "views/graph/GraphData.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace npuwb::ui {

QString layerName(const Node& node) {
    return QString::fromStdString(node.layerName());
}

int neighbour(const GraphData& data, int node, GraphMove move, int& from) {
    const auto& producers = data.producers[size_t(node)];
    const auto& consumers = data.consumers[size_t(node)];
    switch (move) {
        case GraphMove::Producer: from = -1; return producers.empty() ? -1 : producers.front();
        case GraphMove::Consumer: from = node; return consumers.empty() ? -1 : consumers.front();
        case GraphMove::PreviousSibling:
        case GraphMove::NextSibling: break;
    }
    auto feeds = [&](int p) {
        const auto& c = data.consumers[size_t(p)];
        return std::find(c.begin(), c.end(), node) != c.end();
    };
    if (from < 0 || size_t(from) >= data.nodes.size() || !feeds(from))
        from = producers.empty() ? -1 : producers.front();
    if (from < 0) return -1;
    const auto& siblings = data.consumers[size_t(from)];
    const int i = int(std::find(siblings.begin(), siblings.end(), node) - siblings.begin());
    const int n = int(siblings.size());
    if (n < 2) return -1;
    return siblings[size_t((i + (move == GraphMove::NextSibling ? 1 : n - 1)) % n)];
}

QString describeValue(const GraphData& data, const std::string& value) {
    const Graph& graph = data.graph();
    if (const auto init = graph.initializers.find(value); init != graph.initializers.end())
        return QStringLiteral("%1 %2").arg(QString::fromStdString(shapeToString(init->second.shape())),
                                           QString::fromUtf8(dtypeName(init->second.dtype())));
    const ValueInfo* info = graph.findValueInfo(value);
    const Shape* known = data.shapes ? data.shapes->find(value) : nullptr;
    if (!info && !known) return {};
    const QString type = info ? QString::fromUtf8(dtypeName(info->type.dtype)) : QString();
    if (known) return QStringLiteral("%1 %2").arg(QString::fromStdString(shapeToString(*known)), type).trimmed();
    if (!info->type.shape) return type;
    return QStringLiteral("%1 %2").arg(QString::fromStdString(symShapeToString(*info->type.shape)), type);
}

GraphData buildGraphData(std::shared_ptr<const Model> model) {
    GraphData data;
    data.model = std::move(model);
    const Graph& graph = data.graph();
    std::unordered_map<std::string, int> producerOf;
    for (const ValueInfo& input : graph.inputs) {
        if (graph.initializers.count(input.name)) continue;  // old exporters list weights as inputs
        producerOf[input.name] = int(data.nodes.size());
        data.nodes.push_back(
            {GraphNodeInfo::Kind::Input, QString::fromStdString(input.name), QStringLiteral("Input"), -1, input.name});
    }
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& node = graph.nodes[i];
        for (const std::string& out : node.outputs)
            if (!out.empty()) producerOf[out] = int(data.nodes.size());
        data.nodes.push_back(
            {GraphNodeInfo::Kind::Op, layerName(node), QString::fromStdString(node.opType), int(i), {}});
        ++data.opNodes;
    }
    for (const ValueInfo& output : graph.outputs)
        data.nodes.push_back({GraphNodeInfo::Kind::Output, QString::fromStdString(output.name),
                              QStringLiteral("Output"), -1, output.name});

    // One edge per (producer, consumer) pair, listing every value it carries, in a stable order.
    std::map<std::pair<int, int>, QStringList> carried;
    auto link = [&](const std::string& value, int consumer) {
        const auto producer = producerOf.find(value);
        if (producer == producerOf.end() || producer->second == consumer) return;
        QStringList& values = carried[{producer->second, consumer}];
        if (!values.contains(QString::fromStdString(value))) values.append(QString::fromStdString(value));
    };
    for (size_t v = 0; v < data.nodes.size(); ++v) {
        const GraphNodeInfo& info = data.nodes[v];
        if (info.kind == GraphNodeInfo::Kind::Op) {
            for (const std::string& in : graph.nodes[size_t(info.graphNode)].inputs)
                if (!in.empty()) link(in, int(v));
        } else if (info.kind == GraphNodeInfo::Kind::Output) {
            link(info.value, int(v));
        }
    }
    data.producers.assign(data.nodes.size(), {});
    data.consumers.assign(data.nodes.size(), {});
    for (auto& [pair, values] : carried) {
        data.edges.push_back({pair.first, pair.second, values});
        data.consumers[size_t(pair.first)].push_back(pair.second);
    }
    // Producers in input order, so Up follows the first input (the data path, not a weight's Constant).
    for (size_t v = 0; v < data.nodes.size(); ++v) {
        const GraphNodeInfo& info = data.nodes[v];
        std::vector<std::string> inputs = info.kind == GraphNodeInfo::Kind::Op
                                              ? graph.nodes[size_t(info.graphNode)].inputs
                                              : std::vector<std::string>{info.value};
        if (info.kind == GraphNodeInfo::Kind::Input) inputs.clear();
        for (const std::string& in : inputs) {
            const auto producer = producerOf.find(in);
            if (producer == producerOf.end() || producer->second == int(v)) continue;
            auto& list = data.producers[v];
            if (std::find(list.begin(), list.end(), producer->second) == list.end()) list.push_back(producer->second);
        }
    }
    for (size_t v = 0; v < data.nodes.size(); ++v) data.nodeOfName.insert(data.nodes[v].name, int(v));
    // Op names win over a graph input/output of the same name (the layer is what selections mean).
    for (size_t v = 0; v < data.nodes.size(); ++v)
        if (data.nodes[v].kind == GraphNodeInfo::Kind::Op) data.nodeOfName.insert(data.nodes[v].name, int(v));
    return data;
}

}  // namespace npuwb::ui
