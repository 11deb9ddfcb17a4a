#pragma once
// A Session runs one model with the reference kernels: validates the model once (every op known, graph
// acyclic), then executes it as often as asked, freeing each value after its last use. With a backend
// (SessionOptions::executor), the first run of each input-shape set is a reference run that learns every value's
// type and shape; the backend then compiles segments that later runs execute, and the reference kernels run the
// nodes it does not claim (Session::fallbacks()).
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"
#include "npuwb/ir/Value.h"
#include "npuwb/ExecutionObserver.h"
#include "npuwb/RunOptions.h"

namespace npuwb {

struct RunControl {
    /// Called after every top-level node: (done, total).
    std::function<void(size_t, size_t)> progress;
    /// Checked between nodes; a set flag ends the run with Error(Cancelled).
    const std::atomic<bool>* cancel = nullptr;
    ExecutionObserver* observer = nullptr;
    /// Sees each of SessionOptions::watched as this run produces it (float tensors; not during a shape-only
    /// learning run, which makes no data). Backends pass values inside a fused segment in their own layout.
    ValueObserver* values = nullptr;
};

/// The engine's view of a session: where it runs (the one public ExecutorOptions) plus what only the engine's
/// own callers ask for.
struct SessionOptions {
    ExecutorOptions executor;
    /// Segments report per-kernel times to an observer that wants them (ExecutionObserver::wantsKernelTimes).
    bool profileKernels = false;
    /// Values RunControl::values will watch. Cheaper than making them graph outputs: a backend observes them in
    /// place (no copy to the caller, no layout change), though it still keeps each one (no fusion across it).
    std::set<std::string> watched{};
    /// Exact graph rewrites before execution (small constant subgraphs computed, Pad folded into the Conv/pool after
    /// it, Transpose pairs cancelled, Reshape chains merged, identities bypassed): same results bit for bit, less
    /// work. Off: the model as given.
    bool exactRewrites = true;
};

/// One exact rewrite a Session made before executing (SessionOptions::exactRewrites): the pass and its nodes.
struct ExecutionRewrite {
    std::string pass;               // "constant_folding", "fold_pad", "merge_chains", "remove_identity"
    std::vector<std::string> nodes; // the nodes it touched (their names, else their first output)
};

struct BackendState;

/// What a compiled session holds besides the model (Session::memory()).
struct SessionMemory {
    /// Weights in the executor's form: the backend's packed constants (every context of its instance shares them),
    /// or, on the reference kernels, the model's initializers read in place.
    int64_t weightBytes = 0;
    /// Whether other contexts (Session::newContext) read the same weights rather than packing their own.
    bool weightsShared = false;
    /// This context's own: the backend segments' activation arenas and scratch (0 before the first compile).
    int64_t scratchBytes = 0;
};

class Session {
public:
    /// On the reference kernels. Throws InvalidInput/Unsupported naming the node for unknown ops, cycles or
    /// missing values.
    explicit Session(std::shared_ptr<const Model> model);
    /// Throws Unsupported when the backend plugin cannot be loaded (missing, other interface version).
    Session(std::shared_ptr<const Model> model, const SessionOptions& options);
    ~Session();
    Session(const Session&) = default;
    Session& operator=(const Session&) = default;

    /// The backend actually used ("reference" when none).
    std::string backendName() const;
    int threads() const { return threads_; }
    /// Another execution context of the same model on the same backend instance (multi-context multi-batch on the CPU): it compiles
    /// its own plan, with its own activation arena and `threads` (0: this session's), reusing the weights the
    /// instance packed already (SessionMemory::weightsShared), and runs concurrently with this session and its
    /// other contexts. A plain copy, by contrast, shares this session's plan and waits for its runs. Compile, run and
    /// destroy a context on one thread (cpu-onednn's primitives use their creating thread's scratchpad), as
    /// profileContexts (npuwb/ContextProfile.h) does.
    Session newContext(int threads = 0) const;
    /// Weights and this context's scratch, as compiled now.
    SessionMemory memory() const;
    /// Nodes the backend left to the reference kernels (empty before the first run, or without a backend).
    std::vector<FallbackRow> fallbacks() const;

    /// The model this session executes: the one given, after the exact rewrites (executionRewrites()).
    const Model& model() const { return *model_; }
    const std::vector<ExecutionRewrite>& executionRewrites() const { return rewrites_; }
    /// Graph inputs the caller must provide (inputs with an initializer of the same name are optional).
    const std::vector<ValueInfo>& inputs() const { return requiredInputs_; }
    const std::vector<ValueInfo>& outputs() const { return model_->graph.outputs; }
    /// Top-level node indices in execution order.
    const std::vector<size_t>& executionOrder() const { return order_; }

    /// Runs the model. Inputs are checked against the declared types and shapes (errors name the input).
    std::map<std::string, Value> run(const std::map<std::string, Value>& inputs, const RunControl& control = {}) const;
    /// With a backend: makes sure the plan is compiled for these input shapes, so the next run() executes on the
    /// backend. When ONNX's inferred types cover the graph only constant nodes run; otherwise a reference learning
    /// run does. The model itself is not executed on the backend. Without a backend: does nothing.
    /// `control.observer` sees the learning run (shapes of every node, as on a first run()).
    void prepare(const std::map<std::string, Tensor>& inputs, const RunControl& control = {}) const;
    /// The learning run alone, on any session (reference kernels or a backend), compiling nothing: `control.observer`
    /// sees every top-level node with its inputs and outputs. An observer that accepts placeholder outputs lets the
    /// run skip the heavy nodes wherever ONNX's inference (for these input shapes) gives their output types; the
    /// nodes it cannot type run on the reference kernels. No results are returned.
    void learn(const std::map<std::string, Value>& inputs, const RunControl& control = {}) const;
    /// Convenience for the common all-tensor case.
    std::map<std::string, Tensor> runTensors(const std::map<std::string, Tensor>& inputs,
                                             const RunControl& control = {}) const;

private:
    /// Run: run(). CompileOnly: stop once the plan is compiled (results empty unless the reference ran).
    /// LearnOnly: learn(), no plan.
    enum class RunMode { Run, CompileOnly, LearnOnly };
    std::map<std::string, Value> runOrCompile(const std::map<std::string, Value>& inputs, const RunControl& control,
                                              RunMode mode) const;
    std::shared_ptr<const Model> model_;
    std::vector<size_t> order_;
    std::vector<ValueInfo> requiredInputs_;
    std::vector<ExecutionRewrite> rewrites_;
    int threads_ = 1;
    std::shared_ptr<BackendState> backend_;  // shared by copies; null for the reference executor
    std::shared_ptr<const std::set<std::string>> watched_;  // SessionOptions::watched
};

/// Physical cores of this machine (at least 1).
int physicalCoreCount();
/// Names of the backend plugins found: $NPUWB_PLUGIN_PATH (colon-separated), the folder `plugins` next to the
/// engine library's folder (`<prefix>/lib/npuwb/plugins` when installed) and the build tree.
std::vector<std::string> availableBackends();
/// `requested` resolved ("auto": the best plugin) and loaded once to check it runs here. When it cannot load,
/// "reference" and `warning` says why (otherwise `warning` is left empty).
std::string usableBackendName(const std::string& requested, std::string& warning);
/// "auto" resolved: the best plugin found for this machine, or "reference".
std::string resolveBackendName(const std::string& requested);

/// Throws naming the input when `value` does not fit the declared type (dtype, rank, known dims).
void checkInputAgainstDeclared(const ValueInfo& declared, const Value& value);

}  // namespace npuwb
