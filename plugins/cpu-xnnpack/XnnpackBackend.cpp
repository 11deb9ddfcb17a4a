#include "XnnpackBackend.h"

#include <thread>

#include "Lowering.h"
#include "SegmentBuilder.h"

namespace npuwb::xnn {

XnnpackBackend::XnnpackBackend() {
    initialized_ = xnn_initialize(nullptr) == xnn_status_success;  // reference-counted, safe to repeat
    setThreads(static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

void XnnpackBackend::setThreads(int threads) {
    // One pool per session; a single thread needs none (XNNPACK then runs on the caller's thread).
    pool_ = threads > 1 ? std::shared_ptr<pthreadpool>(pthreadpool_create(static_cast<size_t>(threads)),
                                                       pthreadpool_destroy)
                        : nullptr;
}

Capability XnnpackBackend::supports(const NodeQuery& query) const {
    if (!initialized_) return Capability::no("XNNPACK failed to initialise on this CPU");
    if (!query.node.domain.empty() && query.node.domain != "ai.onnx")
        return Capability::no("domain " + query.node.domain + " not supported");
    const auto& table = opTable();
    const auto it = table.find(query.node.opType);
    if (it == table.end()) return Capability::no("op not implemented in cpu-xnnpack");
    for (size_t i = 0; i < query.inputShapes.size() && i < query.node.inputs.size(); ++i)
        if (!query.node.inputs[i].empty() && query.inputTypes[i] == DType::Undefined)
            return Capability::no("input " + std::to_string(i) + " has no known tensor type");
    return it->second.supports(query);
}

CompileResult XnnpackBackend::compile(const GraphQuery& query) {
    std::map<size_t, std::string> refused;
    for (;;) {
        bool retry = false;
        CompileResult result = partition(query, refused, retry);
        if (!retry) return result;
    }
}

CompileResult XnnpackBackend::partition(const GraphQuery& query, std::map<size_t, std::string>& refused,
                                        bool& retry) {
    CompileResult result;
    GraphUses uses = collectUses(query.graph);
    // Watched values leave their segment as outputs (the engine observes them): simpler than observing inside,
    // and XNNPACK's NHWC values would need a layout note anyway.
    if (query.watched) uses.external.insert(query.watched->begin(), query.watched->end());
    std::vector<size_t> run;
    auto flush = [&]() -> bool {
        if (run.empty()) return true;
        const bool onlyLayout = std::all_of(run.begin(), run.end(), [&](size_t i) {
            const std::string& op = query.graph.nodes[i].opType;
            return op == "Reshape" || op == "Flatten";
        });
        if (onlyLayout) {  // a segment of pure reshapes would only add boundary copies
            for (size_t i : run)
                result.fallbacks.push_back({nodeLabel(query.graph.nodes[i]), query.graph.nodes[i].opType,
                                            "reshape alone is cheaper in the reference executor"});
            run.clear();
            return true;
        }
        size_t failedNode = 0;
        std::string why;
        SegmentPlan plan;
        if (!buildSegment(query, run, uses, pool_, plan, failedNode, why)) {
            refused[failedNode] = why;
            retry = true;
            return false;
        }
        result.segments.push_back(std::move(plan));
        run.clear();
        return true;
    };
    for (size_t index : query.order) {
        const Node& node = query.graph.nodes[index];
        Capability cap = refused.count(index) ? Capability::no(refused[index]) : Capability::yes();
        if (cap.supported) cap = supportsInGraph(*this, query, node);
        if (cap.supported) {
            run.push_back(index);
            continue;
        }
        if (!flush()) return {};
        result.fallbacks.push_back({nodeLabel(node), node.opType, cap.reason});
    }
    if (!flush()) return {};
    return result;
}

}  // namespace npuwb::xnn

extern "C" __attribute__((visibility("default"))) int npuwb_backend_api_version() {
    return npuwb::kBackendApiVersion;
}

extern "C" __attribute__((visibility("default"))) npuwb::Backend* npuwb_create_backend() {
    return new npuwb::xnn::XnnpackBackend();
}
