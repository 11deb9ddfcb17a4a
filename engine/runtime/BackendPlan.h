#pragma once
// The compiled form of a graph for one backend and one set of input shapes: the backend's segments placed in the
// execution order, and what fell back to the reference kernels. Session owns one per backend session.
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "npuwb/sdk/Backend.h"
#include "npuwb/ir/Value.h"
#include "npuwb/ExecutionObserver.h"

namespace npuwb {

/// One unit of work in the execution order: a single reference node, or a whole backend segment.
struct PlanStep {
    size_t firstPos = 0;  // positions in the execution order covered by this step
    size_t lastPos = 0;
    int segment = -1;     // index into BackendPlan::segments, or -1 for a reference node (at firstPos)
};

struct BackendPlan {
    /// Constant folding: outputs of nodes whose inputs are all constants, computed by the learning run. Those
    /// nodes are not run again and backends see their outputs as constants (e.g. Identity of a shared bias).
    std::map<std::string, Tensor> folded;
    std::vector<SegmentPlan> segments;
    std::vector<FallbackRow> fallbacks;
    std::vector<PlanStep> steps;
    std::unordered_map<std::string, size_t> positionOfNode;  // node display name -> position in the order
};

struct BackendState {
    std::shared_ptr<Backend> backend;
    bool profileKernels = false;
    std::mutex mutex;  // segments keep scratch state: one run at a time
    /// Execution contexts (Session::newContext) share the backend instance: one compile at a time, each with its
    /// own thread count.
    std::shared_ptr<std::mutex> compileMutex = std::make_shared<std::mutex>();
    std::vector<std::pair<std::string, Shape>> compiledFor;  // input shapes of the current plan
    std::unique_ptr<BackendPlan> plan;
    // Keep the segments (plugin code) destroyed before the backend they came from.
    ~BackendState() { plan.reset(); }
};

/// Records the dtype and shape of every tensor value a reference run produces, and the values of nodes that
/// are constant for a plan compiled for fixed input shapes: nodes that depend on constants only (initializers the
/// caller did not feed, and such nodes' outputs), and Shape/Size of values whose shapes are fixed by the input
/// shapes (shape folding), with everything computed from them.
class ValueShapeRecorder : public ExecutionObserver {
public:
    ValueShapeRecorder(const Graph& graph, const std::vector<std::string>& fedInputs);
    void nodeFinished(size_t, const Node& node, const std::vector<const Value*>&,
                      const std::vector<Value>& outputs) override;
    std::map<std::string, ValueDesc> values;
    std::map<std::string, Tensor> folded;
    std::set<std::string> constants;     // initializers not fed + folded
    std::set<std::string> staticShapes;  // values whose shapes depend only on the input shapes and constants

    /// Whether the node's outputs are constants of the plan (given the nodes seen so far): such nodes must really
    /// run during learning; every other node only needs its outputs' types and shapes.
    bool willFold(const Node& node) const;
    /// Whether the node's output shapes follow from its inputs' static shapes and constant inputs (given the nodes
    /// seen so far): then running it on any values of those shapes gives the right output shapes.
    bool outputShapesStatic(const Node& node) const;
};

/// True when the plan for `fedShapes` (equal to the declared, fully known input shapes) can be learned without
/// running the heavy nodes, going through `order` as the learning run does: every node is folded (a plan
/// constant, run for real), or has inferred types for all outputs (placeholders, see `shapeOnlyOutputs`), or has
/// output shapes that follow from static input shapes and constant inputs (run for real, on zeros standing in for
/// placeholder inputs: where ONNX's inference stops, e.g. at PP-OCRv4 rec's Reshape to a Slice of a Shape, the
/// light SVTR head after it runs instead of the whole model). No subgraphs; a ceil-mode pool only when ONNX's
/// inferred size is right for it (no window starts in the end padding).
/// `types` (optional) are types inferred for these input shapes (inferValueTypes); without, the graph's own.
bool shapeOnlyLearningPossible(const Graph& graph, const std::vector<size_t>& order,
                               const std::vector<std::pair<std::string, Shape>>& fedShapes,
                               const std::map<std::string, ValueType>* types = nullptr);
/// Whether every output of `node` has an inferred dtype and fully known shape (shapeOnlyOutputs can make them).
bool hasStaticInferredTypes(const Graph& graph, const Node& node, const std::map<std::string, ValueType>* types = nullptr);
/// Placeholder outputs for a node that need not run while learning: tensors with the inferred dtype and shape and
/// no storage. Only the shape recorder and Shape/Size nodes look at them.
std::vector<Value> shapeOnlyOutputs(const Graph& graph, const Node& node,
                                    const std::map<std::string, ValueType>* types = nullptr);

/// Asks the backend to compile `order` of `graph` with the learned value descriptions; checks that each segment
/// covers consecutive positions of `order` (throws Internal naming the backend otherwise). `watched`: values a
/// ValueObserver will watch (GraphQuery::watched).
std::unique_ptr<BackendPlan> compileBackendPlan(Backend& backend, const Graph& graph, int64_t opset,
                                                const std::vector<size_t>& order, ValueShapeRecorder&& learned,
                                                const std::set<std::string>* watched = nullptr);

}  // namespace npuwb
