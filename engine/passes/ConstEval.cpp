#include "passes/ConstEval.h"

#include <memory>
#include <set>

#include "npuwb/Session.h"
#include "npuwb/Error.h"

namespace npuwb::passes {

std::vector<Tensor> evaluateNodes(const Graph& graph, const std::vector<Node>& nodes,
                                  const std::map<std::string, Tensor>& feeds, const std::vector<std::string>& outputs,
                                  int64_t opset) {
    auto m = std::make_shared<Model>();
    m->opsetImports[""] = opset;
    m->graph.initializers = feeds;
    for (const auto& n : nodes)
        for (const auto& in : n.inputs) {
            if (in.empty() || m->graph.initializers.count(in)) continue;
            auto it = graph.initializers.find(in);
            if (it != graph.initializers.end()) m->graph.initializers[in] = it->second;
        }
    m->graph.nodes = nodes;
    for (const auto& o : outputs) m->graph.outputs.push_back(ValueInfo{o, {}});
    SessionOptions asGiven;
    asGiven.executor.backend = kReferenceBackend;  // a few constant nodes: no plugin, and the oracle's bits
    asGiven.exactRewrites = false;  // a handful of nodes: nothing to gain, and passes call this from a rewrite
    Session session(m, asGiven);
    auto result = session.runTensors({});
    std::vector<Tensor> out;
    for (const auto& o : outputs) out.push_back(result.at(o));
    return out;
}

Tensor iotaTensor(const Shape& shape) {
    Tensor t(DType::F32, shape);
    if (t.numel() > (int64_t{1} << 24)) failUnsupported("iotaTensor: too many elements to index exactly");
    auto v = t.values<float>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
    return t;
}

}  // namespace npuwb::passes
