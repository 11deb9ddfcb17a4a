#pragma once
// The model as the partitioner sees it: top-level nodes in execution order with a predicted cost on every unit,
// and the values between them with their sizes.
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "npuwb/DeviceProfile.h"
#include "npuwb/ShapeLearning.h"
#include "npuwb/ir/Graph.h"

namespace npuwb::partition {

inline constexpr double kCannotRun = std::numeric_limits<double>::infinity();

struct WorkNode {
    size_t graphIndex = 0;  // into Model::graph.nodes
    std::string name;       // node name, or its first output when unnamed
    std::string opType;
    std::string opClass;
    std::vector<std::string> inputs;   // values made by other nodes or given by the caller (no constants)
    std::vector<std::string> outputs;
    std::vector<double> costUs;        // per unit; kCannotRun where the unit cannot run it
    std::vector<std::string> costNote; // per unit: where the cost came from ("measured Softmax [12,128,128]: 420 us")
    bool constantOnly = false;         // computes from initializers alone: folded by converters, costs nothing
    /// A Transpose of the last two axes read only as MatMul's B input: every unit's GEMM reads B transposed
    /// (BLAS transB, QNN transpose_in1, RKNN's TP_NORM layout), so modelled costs fold it into the MatMul.
    std::string foldedInto;
    int64_t macs = 0;
    int64_t bytesMoved = 0;            // inputs (weights included) + outputs
    int64_t firstInputElements = 0;    // scales a measured latency to this node's shape
};

struct WorkValue {
    int64_t bytes = 0;
    int producer = -1;  // index into WorkGraph::nodes; -1 for graph inputs
    bool graphOutput = false;
};

struct WorkGraph {
    std::shared_ptr<const Model> model;
    std::vector<std::string> units;  // unit names, the index space of WorkNode::costUs
    std::vector<WorkNode> nodes;     // execution order
    std::map<std::string, WorkValue> values;
    std::vector<double> stageOverheadUs;  // per unit: extra time of each stage after the first
    LearnedShapes shapes;                 // by value name, what the nodes' sizes were made from
};

/// Nodes, values and sizes of `model` (shapes from ONNX inference, or one reference run when it does not cover
/// the graph); costs are left empty for the cost functions below.
WorkGraph buildWorkGraph(std::shared_ptr<const Model> model, const DeviceProfile& device,
                         const std::vector<std::string>& units, int64_t symbolicDimValue);

/// Fills the costs of every unit whose costs are "roofline" or "chip"; "calibrated" units are filled by
/// calibration on this machine (PipelineExecutor).
void fillModelledCosts(WorkGraph& work, const DeviceProfile& device);

/// Values a node reads: its inputs, and the outer-scope names its subgraphs (If/Loop/Scan bodies) read.
std::vector<std::string> nodeReads(const Node& node);

/// Predicted time of moving `bytes` between units (without the per-hand-off sync).
double transferUs(int64_t bytes, const TransferCost& transfer);

}  // namespace npuwb::partition
