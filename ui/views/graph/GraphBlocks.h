#pragma once
// Repeated blocks of a model found in its node names, and the graph the canvas draws with some of them collapsed.
// Exporters write a module's scope into its nodes' names ("/encoder/layers/encoder_layer_3/self_attention/MatMul",
// "/blocks.3/attn/qkv/MatMul"): a scope whose last part ends in an index, with siblings of the same stem that hold
// the same ops, is one block of a repeated family. The outermost such family wins: the indexed scopes inside a
// block (ln_1/ln_2, mlp.0/mlp.3) are its parts, not repetitions of the model.
#include <QColor>
#include <QString>

#include <cstdint>
#include <vector>

#include "views/graph/GraphColoring.h"
#include "views/graph/GraphData.h"

namespace npuwb::ui {

/// From this many op nodes a model with repeated blocks opens with them collapsed.
inline constexpr int kCollapseBlocksNodes = 300;

struct GraphBlock {
    QString prefix;            // "/encoder/layers/encoder_layer_3"
    QString title;             // "encoder_layer_3"
    std::vector<int> members;  // GraphData nodes, in graph order
    int64_t params = 0;        // elements of the initializers its nodes read
    int64_t macs = 0;          // from the model's declared shapes; 0 when unknown
    bool macsComplete = true;  // every member's shapes were known
};

struct GraphBlocks {
    std::vector<GraphBlock> blocks;
    std::vector<int> blockOf;  // per GraphData node: its block, -1 for none
    bool empty() const { return blocks.empty(); }
    int of(int node) const { return node >= 0 && size_t(node) < blockOf.size() ? blockOf[size_t(node)] : -1; }
};

/// The blocks of `data`. A node without a scope whose inputs are all weights (an exporter's Identity of a shared
/// weight, a Constant) joins the block that alone reads it, so a collapsed model is not a fringe of such nodes.
GraphBlocks findBlocks(const GraphData& data);

/// What the canvas draws: a unit per node outside collapsed blocks and one per collapsed block, and the edges
/// between units (one per pair, each listing the GraphData edges it stands for).
struct FoldedGraph {
    struct Edge {
        int from = 0;
        int to = 0;
        std::vector<int> dataEdges;
    };
    std::vector<int> units;        // >= 0: a GraphData node; < 0: the collapsed block -1 - unit
    std::vector<int> unitOfNode;   // per GraphData node: the unit drawing it (its block's when collapsed)
    std::vector<int> unitOfBlock;  // per block: its unit when collapsed, else -1
    std::vector<Edge> edges;
    int blockUnits = 0;
    bool hidden(int node) const { return units[size_t(unitOfNode[size_t(node)])] < 0; }
};

/// `collapsed`: per block.
FoldedGraph foldGraph(const GraphData& data, const GraphBlocks& blocks, const std::vector<bool>& collapsed);

/// One colour per block from its members': a sum of times or MACs on the blocks' own scale (the hot blocks stand
/// out), else the colour most of its members have. `note` says which, for the legend.
std::vector<QColor> blockColors(const GraphData& data, const GraphBlocks& blocks, GraphMetric metric,
                                const MetricSources& sources, const NodeColors& nodeColors, QString* note);

}  // namespace npuwb::ui
