#pragma once
// Internals shared by calibration, the QDQ builder, auto-hybrid and accuracy analysis: which nodes quantize and
// how, models with extra outputs, and the parallel per-sample runner.
#include <atomic>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "npuwb/ir/Graph.h"
#include "npuwb/SampleSource.h"
#include "npuwb/Session.h"
#include "quant/KeptOps.h"

namespace npuwb::quant::detail {

enum class OpRole {
    None,        // left in float (shape ops, activations fused into the producer, ...)
    Activation,  // float activation inputs get QDQ (Add, Concat, pooling, ...)
    Weighted,    // Conv / ConvTranspose / Gemm / MatMul with a constant weight (and bias)
    Kept,        // layer norm, softmax, GELU (KeptOps.h): fp16 or float, never int8 (QuantRoles only)
};

struct WeightInfo {
    int weightInput = -1;  // input index of the constant weight
    int biasInput = -1;    // input index of a 1-D constant bias, -1 when none
    int channelAxis = 0;   // output-channel axis of the weight (per-channel quantization)
    bool transposedForGroups = false;  // weight is [K, N]: groups along K need a transpose
};

/// The node's role by itself: None, Activation or Weighted (QuantRoles adds Kept).
OpRole opRole(const Node& node, const Graph& graph);
WeightInfo weightInfo(const Node& node, const Graph& graph);
/// Float, non-constant inputs of the node that get QDQ (activations).
std::vector<std::string> activationInputs(const Node& node, const Graph& graph);

/// Roles of one graph's nodes, with the kept ops found once (they are recognised by their neighbours). Holds a
/// reference to the graph.
class QuantRoles {
public:
    explicit QuantRoles(const Graph& graph);
    OpRole role(const Node& node) const;
    /// Activation and Weighted: activationInputs(node, graph). Kept: its float inputs no kept node produces (the
    /// inputs of the op as a whole: what an fp16 op rounds).
    std::vector<std::string> activationInputs(const Node& node) const;
    const std::map<std::string, KeptKind>& kept() const { return kept_; }  // node display name -> kind

private:
    const Graph& graph_;
    std::map<std::string, KeptKind> kept_;
    std::set<std::string> keptOutputs_;
};
bool isFloatValue(const Graph& graph, const std::string& value);  // float32 by declared type, or unknown

/// A copy of the model that also outputs these values (so a backend segment cannot hide them).
Model withExtraOutputs(const Model& model, const std::vector<std::string>& values);

/// Runs the model on samples [0, count) with parallel workers, each with its own Session; calls `visit` from the
/// worker's thread with that worker's index; `outputs` also holds the sample's inputs. Memory: one sample per worker in flight. Cancel and the first error
/// stop every worker; the error is rethrown here.
struct SampleRunOptions {
    ExecutorOptions executor;  // threads: shared out between the workers
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(size_t done, size_t total)> progress{};
    /// Values each worker's observer (`observerOf(worker)`) sees during its runs (SessionOptions::watched).
    std::set<std::string> watched{};
    std::function<ValueObserver*(size_t worker)> observerOf{};
};
size_t workerCount(const SampleRunOptions& options, size_t samples);
void forEachSample(const Model& model, const SampleSource& source, size_t count, const SampleRunOptions& options,
                   const std::function<void(size_t worker, size_t index, std::map<std::string, Tensor>& outputs)>& visit);

}  // namespace npuwb::quant::detail
