#pragma once
// The execution-backend contract (engine/README.md, "Runtimes and backends"): a backend answers a capability query per
// node, prepares (packs weights, creates primitives) once per node and input shape, and executes. The reference kernels
// run every node no backend claims, and are the oracle backends are tested against.
//
// Backends live in shared libraries (plugins/) that export two C symbols:
//   extern "C" int npuwb_backend_api_version();           // must equal kBackendApiVersion
//   extern "C" npuwb::Backend* npuwb_create_backend();    // ownership passes to the engine
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "npuwb/ExecutionObserver.h"
#include "npuwb/Report.h"
#include "npuwb/ir/Graph.h"

namespace npuwb {

inline constexpr int kBackendApiVersion = 3;  // 3: memory figures (scratchBytes, packedWeightBytes); 2: watched values

/// What a backend is told about one node before it runs: concrete input types/shapes and the inputs that are
/// constant (initializers), so weights can be packed at prepare time.
struct NodeQuery {
    const Node& node;
    int64_t opset = 0;
    std::vector<DType> inputTypes;          // Undefined for absent optional inputs
    std::vector<Shape> inputShapes;
    std::vector<const Tensor*> constants;   // per input: the initializer, or nullptr when computed at run time
    std::vector<DType> outputTypes;         // from the learning run (Undefined for unused optional outputs)
    std::vector<Shape> outputShapes;
};

struct Capability {
    bool supported = false;
    std::string reason;  // why not, shown in the report's fallback list (e.g. "dilations > 1 not supported")
    static Capability yes() { return {true, {}}; }
    static Capability no(std::string why) { return {false, std::move(why)}; }
};

/// Receives per-kernel timings from a prepared segment when profiling is on. A fused kernel names every ONNX node
/// it covers, so the report can map time back to the user's graph.
class KernelTimingSink {
public:
    virtual ~KernelTimingSink() = default;
    virtual void kernelTimed(const std::vector<std::string>& nodeNames, double microseconds) = 0;
};

/// What a segment run reports to, besides its outputs.
struct RunHooks {
    KernelTimingSink* timing = nullptr;  // per-kernel times (profiling)
    ValueObserver* values = nullptr;     // the watched values inside the segment that are not its outputs
};

/// A run of consecutive graph nodes (consecutive positions of GraphQuery::order; the Session checks) compiled by a
/// backend for fixed input shapes. Inside it the backend is free to fuse ops and keep its own (blocked) layouts; only
/// the boundary values are plain row-major Tensors.
class PreparedSegment {
public:
    virtual ~PreparedSegment() = default;
    /// `inputs` follow SegmentPlan::inputs, `outputs` (resized by the caller) follow SegmentPlan::outputs.
    virtual void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs, const RunHooks& hooks) = 0;
    /// Bytes this segment holds for its own runs (activation arena, scratch), weights excluded.
    virtual int64_t scratchBytes() const { return 0; }
};

struct SegmentPlan {
    std::vector<size_t> nodes;         // indices into Graph::nodes, in execution order
    std::vector<std::string> inputs;   // values read from outside the segment (not its constants)
    std::vector<std::string> outputs;  // values the rest of the graph (or the graph outputs) needs
    std::unique_ptr<PreparedSegment> prepared;
};

/// Concrete type, shape and (for initializers) value of every tensor in the graph, from a first reference run.
struct ValueDesc {
    DType dtype = DType::Undefined;
    Shape shape;
    const Tensor* constant = nullptr;
};

struct GraphQuery {
    const Graph& graph;
    int64_t opset = 0;
    const std::vector<size_t>& order;  // execution order of Graph::nodes
    /// nullptr for names without a known tensor value (e.g. sequences). Pointers are valid during compile() only.
    std::function<const ValueDesc*(const std::string&)> value;
    /// Values a ValueObserver watches (null: none). A backend keeps each one as it keeps a segment output (never
    /// fused away) and passes it to RunHooks::values right after it exists, unless it makes it a segment output:
    /// the engine observes those. Only float values are observed.
    const std::set<std::string>* watched = nullptr;
};

/// The NodeQuery for node `nodeIndex` built from the graph query's value descriptions (helper for compile()).
NodeQuery makeNodeQuery(const GraphQuery& query, size_t nodeIndex);


struct CompileResult {
    std::vector<SegmentPlan> segments;
    std::vector<FallbackRow> fallbacks;  // nodes left to the reference kernels, with the reason
};

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;  // "cpu-onednn"
    /// Threads for the session's pool; called before compile.
    virtual void setThreads(int threads) = 0;
    /// Per-node capability query (op, dtypes, shapes, attributes).
    virtual Capability supports(const NodeQuery& query) const = 0;
    /// Partitions the graph into segments this backend runs (weights packed here, once) and fallbacks.
    /// A backend instance may compile the same graph again for another execution context (Session::newContext);
    /// segments of both then run concurrently, each on its own thread, so a backend that can shares the packed
    /// weights of the earlier compile (read-only) and gives each segment its own scratch.
    virtual CompileResult compile(const GraphQuery& query) = 0;
    /// Bytes of packed constants (weights, biases) this instance allocated, counted once however many compiles
    /// share them. 0 when the backend keeps no copies of its own (it reads the model's tensors in place).
    virtual int64_t packedWeightBytes() const { return 0; }
    /// Whether compiling the same graph again reuses the packed weights (packedWeightBytes() does not grow).
    virtual bool sharesPackedWeights() const { return false; }
};


}  // namespace npuwb
