#pragma once
// The Graph view's picture of a model: one node per ONNX node plus the graph's inputs and outputs, one edge per
// (producer, consumer) pair with the values it carries, and the adjacency that keyboard navigation follows.
#include <QHash>
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

#include "npuwb/ShapeLearning.h"
#include "npuwb/ir/Graph.h"

namespace npuwb::ui {

struct GraphNodeInfo {
    enum class Kind { Op, Input, Output };
    Kind kind = Kind::Op;
    QString name;        // the layer name reports use (LayerRow::fullName): the node name, else its first output
    QString opType;      // "Input" / "Output" for the graph's ends
    int graphNode = -1;  // index in Graph::nodes for Kind::Op
    std::string value;   // the graph input/output value for Kind::Input/Output
};

struct GraphEdgeInfo {
    int from = 0;
    int to = 0;
    QStringList values;  // value names carried from `from` to `to`
};

struct GraphData {
    std::shared_ptr<const Model> model;
    std::vector<GraphNodeInfo> nodes;
    std::vector<GraphEdgeInfo> edges;
    std::vector<std::vector<int>> producers;  // per node, in input order
    std::vector<std::vector<int>> consumers;  // per node, in graph order
    QHash<QString, int> nodeOfName;
    int opNodes = 0;
    /// The values' concrete shapes at the input sizes the user chose (null before or without them).
    std::shared_ptr<const LearnedShapes> shapes;

    const Graph& graph() const { return model->graph; }
};

/// Keyboard moves along edges: Up/Down, Left/Right.
enum class GraphMove { Producer, Consumer, PreviousSibling, NextSibling };

/// Where `move` leads from `node`, -1 when nowhere. Producer: the first input's producer; Consumer: the first
/// consumer; siblings: the other consumers of `from` (the node a Consumer move came from) or else of the first
/// producer. `from` is updated for the next move.
int neighbour(const GraphData& data, int node, GraphMove move, int& from);

/// The layer name of `node` as reports write it (node name, else first output, else op type).
QString layerName(const Node& node);
GraphData buildGraphData(std::shared_ptr<const Model> model);
/// "[1,64,56,56] float32" from the value's initializer, its shape at the chosen input sizes (data.shapes) or its
/// declared type; "" when unknown.
QString describeValue(const GraphData& data, const std::string& value);

}  // namespace npuwb::ui
