// upgrade_opset: moves the model's ai.onnx opset forward with ONNX's own version converter, so passes that emit
// newer ops can rewrite old exports (paddle2onnx writes opset 9; LayerNormalization needs 17).
//   before: opset 9:  Clip(min=0, max=6), Slice(starts, ends attributes), Softmax(axis=2, 2-D coercion), ...
//   after:  opset 17: Clip(x, 0, 6), Slice(x, starts, ends, axes), Softmax(axis=-1), ... (same results)
// When it runs (decided here, carried out by the Optimizer):
//   - on demand: a selected pass whose requiredOpset() is newer than the model's and that would rewrite sites of
//     this graph at that opset brings it in (e.g. --passes fuse_layernorm on PP-OCRv4 rec). No site, no upgrade:
//     an upgrade for its own sake only risks converter gaps and changes nothing on the NPU.
//   - when named in --passes: to the newest opset any registered pass needs (17).
// Like every pass it is proven: the model's outputs before and after are compared on the proof inputs; a
// converter failure rolls it back with an error naming the op the converter could not adapt.
#include <memory>

#include "npuwb/ModelIO.h"
#include "passes/GraphEdit.h"
#include "npuwb/Optimizer.h"
#include "passes/Pass.h"
#include "passes/Proof.h"
#include "npuwb/ExecutionObserver.h"
#include "npuwb/Session.h"

namespace npuwb::passes {
namespace {

/// The rank of every tensor the top-level nodes produce in one run (a backend's shape learning will do: placeholder
/// outputs have the dtype and shape).
class RankRecorder final : public ExecutionObserver {
public:
    bool acceptsPlaceholderOutputs() const override { return true; }
    std::map<std::string, std::pair<DType, size_t>> ranks;  // value -> element type, rank
    void nodeFinished(size_t /*step*/, const Node& node, const std::vector<const Value*>& /*inputs*/,
                      const std::vector<Value>& outputs) override {
        for (size_t i = 0; i < outputs.size() && i < node.outputs.size(); ++i)
            if (outputs[i].isTensor() && !node.outputs[i].empty()) 
                ranks[node.outputs[i]] = {outputs[i].tensor.dtype(), outputs[i].tensor.rank()};
    }
};

/// Some adapters need ranks (Softmax before 13 flattens at `axis`; only a last axis converts without a Reshape) and
/// the converter only knows what shape inference found, which stops at computed Reshapes (paddle2onnx's flatten).
/// One run on the proof's inputs gives each value without a known rank its real rank. Only the rank: the proof's
/// sizes must not be baked into the model.
void recordMissingRanks(Model& model, const PassConfig& config) {
    ProofOptions inputsLike;
    inputsLike.inputShapes = config.inputShapes;
    inputsLike.symbolicDimValue = config.symbolicDimValue;
    auto inputs = proofInputs(model, inputsLike).front();
    RankRecorder recorder;
    RunControl control;
    control.observer = &recorder;
    Session session(std::make_shared<const Model>(model), SessionOptions{.executor = config.executor});
    // A backend learns every node's shape without running the model (PP-OCRv4 det at 480x480: a reference run took
    // a second of its quantization); the reference kernels have to run it.
    if (session.backendName() == kReferenceBackend) session.runTensors(inputs, control);
    else session.prepare(inputs, control);
    for (const auto& [name, typeAndRank] : recorder.ranks) {
        if (const ValueInfo* known = model.graph.findValueInfo(name); known && known->type.shape) continue;
        ValueInfo& vi = model.graph.valueInfo[name];
        vi.name = name;
        vi.type.kind = ValueType::Kind::Tensor;
        vi.type.dtype = typeAndRank.first;
        vi.type.shape = SymShape(typeAndRank.second);  // dims of unknown size
    }
}

class UpgradeOpset final : public Pass {
public:
    std::string name() const override { return "upgrade_opset"; }
    std::string description() const override {
        return "Upgrades the ai.onnx opset with ONNX's version converter when a pass needs newer ops (e.g. "
               "LayerNormalization, opset 17)";
    }
    // Brought in by the Optimizer only when needed (see above).
    bool runsByDefault() const override { return false; }
    void configure(const PassConfig& config) override {
        opset_ = config.opset;
        target_ = config.targetOpset;
        config_ = config;
    }

    std::vector<Match> findMatches(const Graph& graph) const override {
        if (target_ <= opset_ || graph.nodes.empty()) return {};
        // The whole model changes; the first node stands as the anchor the reports name.
        return {Match{{graph.nodes.front().name},
                      "ai.onnx opset " + std::to_string(opset_) + " -> " + std::to_string(target_) +
                          " with ONNX's version converter",
                      ""}};
    }
    /// The opset lives in the model, not the graph.
    bool apply(Graph& /*graph*/, const Match& /*match*/) const override { return false; }
    bool applyToModel(Model& model, const Match& /*match*/) const override {
        if (target_ <= model.opset("")) return false;
        recordMissingRanks(model, config_);
        model = convertOpset(model, target_);
        nameAllNodes(model.graph);  // converter-made nodes may be unnamed; matches refer to nodes by name
        return true;
    }

private:
    int64_t opset_ = 13;
    int64_t target_ = 0;
    PassConfig config_;
};

NPUWB_PASS(UpgradeOpset);

}  // namespace
}  // namespace npuwb::passes
