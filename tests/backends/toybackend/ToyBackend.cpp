// A toy execution backend that claims Relu and nothing else: the smallest complete backend plugin (this file, a
// CMake folder and its add_subdirectory line). The engine must load it by name, list it, run its segments and leave
// every other node to the reference kernels. It includes only the plugin SDK, as every plugin must.
#include <algorithm>
#include <chrono>

#include "npuwb/sdk/Backend.h"

namespace {

using namespace npuwb;

std::string displayName(const Node& n) { return n.name.empty() ? n.outputs.at(0) : n.name; }

/// One Relu node: y = max(x, 0) over a float tensor.
class ReluSegment : public PreparedSegment {
public:
    explicit ReluSegment(std::string node) : node_(std::move(node)) {}
    void run(const std::vector<const Tensor*>& inputs, std::vector<Tensor>& outputs, const RunHooks& hooks) override {
        const auto start = std::chrono::steady_clock::now();
        const Tensor& x = *inputs.at(0);
        outputs.resize(1);
        outputs[0] = Tensor::uninitialized(DType::F32, x.shape());
        const float* in = x.data<float>();
        float* out = outputs[0].data<float>();
        for (int64_t i = 0; i < x.numel(); ++i) out[i] = std::max(in[i], 0.0f);
        if (hooks.timing)
            hooks.timing->kernelTimed(
                {node_}, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }

private:
    std::string node_;
};

class ToyBackend : public Backend {
public:
    std::string name() const override { return "toy"; }
    void setThreads(int) override {}
    Capability supports(const NodeQuery& query) const override {
        if (query.node.opType != "Relu" || !query.node.domain.empty()) return Capability::no("the toy backend runs Relu only");
        if (query.inputTypes.empty() || query.inputTypes[0] != DType::F32) return Capability::no("float32 only");
        if (query.constants.at(0)) return Capability::no("constant input (folded by the engine)");
        return Capability::yes();
    }
    CompileResult compile(const GraphQuery& query) override {
        CompileResult result;
        for (size_t idx : query.order) {
            const Node& n = query.graph.nodes[idx];
            const Capability c = supports(makeNodeQuery(query, idx));
            if (!c.supported) {
                result.fallbacks.push_back({displayName(n), n.opType, c.reason});
                continue;
            }
            SegmentPlan plan;
            plan.nodes = {idx};
            plan.inputs = {n.inputs[0]};
            plan.outputs = {n.outputs[0]};
            plan.prepared = std::make_unique<ReluSegment>(displayName(n));
            result.segments.push_back(std::move(plan));
        }
        return result;
    }
};

}  // namespace

extern "C" int npuwb_backend_api_version() { return npuwb::kBackendApiVersion; }
extern "C" npuwb::Backend* npuwb_create_backend() { return new ToyBackend(); }
