#include "perfmodel/ConverterRewrites.h"

#include <algorithm>
#include <optional>
#include <set>

#include "perfmodel/OpConditions.h"

namespace npuwb {

namespace {

/// The axes a Reduce* node reduces (attribute before opset 18 for ReduceMean, input 1 for ReduceSum from 13),
/// normalized to non-negative; empty = all axes.
std::vector<int64_t> reducedAxes(const NodeShapes& ns, const Graph& graph) {
    const Node& n = *ns.node;
    std::vector<int64_t> axes = n.attrInts("axes");
    if (axes.empty() && n.inputs.size() > 1 && !n.inputs[1].empty())
        if (auto v = constantValues(graph, n.inputs[1]))
            for (double a : *v) axes.push_back(static_cast<int64_t>(a));
    const int64_t rank = ns.inputs.empty() ? 0 : static_cast<int64_t>(ns.inputs[0].size());
    for (auto& a : axes)
        if (a < 0) a += rank;
    std::sort(axes.begin(), axes.end());
    return axes;
}

/// The node reading `value` when exactly one does and it is not a graph output (the converter may then rewrite the
/// pair as one).
class SoleConsumers {
public:
    SoleConsumers(const std::vector<NodeShapes>& nodes, const Graph& graph) {
        for (size_t i = 0; i < nodes.size(); ++i)
            for (const auto& in : nodes[i].node->inputs)
                if (!in.empty()) consumers_.emplace(in, i);
        for (const auto& o : graph.outputs) outputs_.insert(o.name);
    }
    std::optional<size_t> of(const std::string& value) const {
        if (outputs_.count(value) || consumers_.count(value) != 1) return std::nullopt;
        return consumers_.find(value)->second;
    }

private:
    std::multimap<std::string, size_t> consumers_;
    std::set<std::string> outputs_;
};

}  // namespace

ConvertedNode convertNode(const NodeShapes& ns, const Graph& graph) {
    const Node& n = *ns.node;
    ConvertedNode c{n.opType, {}, false, false};
    if (n.opType == "BatchNormalization" && !ns.inputs.empty() && ns.inputs[0].size() == 4) {
        c.opType = "Conv";
        c.channelScale = true;
        c.rewrite = "BatchNormalization -> 1x1 depthwise Convolution";
    } else if (n.opType == "Div" && ns.inputIsConstant.size() > 1 && ns.inputIsConstant[1] && !ns.inputIsConstant[0]) {
        c.opType = "Mul";
        c.rewrite = "Div by a constant -> Mul by its reciprocal";
    } else if ((n.opType == "ReduceMean" || n.opType == "ReduceSum") && !ns.inputs.empty() &&
               ns.inputs[0].size() == 4 && n.attrInt("keepdims", 1) == 1) {
        const std::vector<int64_t> axes = reducedAxes(ns, graph);
        if (axes == std::vector<int64_t>{2, 3}) {
            c.opType = "GlobalAveragePool";
            c.rewrite = n.opType + " over H, W -> GlobalAveragePool";
        } else if (axes == std::vector<int64_t>{1}) {
            c.opType = "Conv";
            c.channelReduction = true;
            c.rewrite = n.opType + " over channels -> 1x1 Convolution";
        }
    }
    return c;
}

std::map<size_t, size_t> swishPairs(const std::vector<NodeShapes>& nodes, const Graph& graph) {
    const SoleConsumers sole(nodes, graph);
    std::map<size_t, size_t> pairs;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const Node& s = *nodes[i].node;
        if (s.opType != "Sigmoid" || s.inputs.empty() || s.outputs.empty()) continue;
        const std::optional<size_t> m = sole.of(s.outputs[0]);
        if (!m) continue;
        const Node& mul = *nodes[*m].node;
        if (mul.opType != "Mul" || mul.inputs.size() != 2) continue;
        const std::string& other = mul.inputs[0] == s.outputs[0] ? mul.inputs[1] : mul.inputs[0];
        if (other == s.inputs[0]) pairs[i] = *m;
    }
    return pairs;
}

bool absorbedByIoLayout(const NodeShapes& ns, const Graph& graph) {
    const Node& n = *ns.node;
    if (n.opType != "Transpose" || n.inputs.empty() || n.outputs.empty()) return false;
    for (const auto& in : graph.inputs)
        if (in.name == n.inputs[0] && !graph.initializers.count(in.name)) return true;
    for (const auto& out : graph.outputs)
        if (out.name == n.outputs[0]) return true;
    return false;
}

bool isNoOp(const NodeShapes& ns, const Graph& graph) {
    const Node& n = *ns.node;
    auto allEqual = [](const std::vector<int64_t>& v, int64_t value) {
        return std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == value; });
    };
    if (n.opType == "Identity" || n.opType == "Dropout") return true;
    if (n.opType == "MaxPool" || n.opType == "AveragePool")
        return n.outputs.size() == 1 && n.attrString("auto_pad", "NOTSET") == "NOTSET" &&
               allEqual(n.attrInts("kernel_shape"), 1) && allEqual(n.attrInts("strides"), 1) &&
               allEqual(n.attrInts("pads"), 0);
    if (n.opType == "Pad") {
        if (n.hasAttribute("pads")) return allEqual(n.attrInts("pads"), 0);  // before opset 11
        if (n.inputs.size() < 2 || n.inputs[1].empty()) return false;
        auto pads = constantValues(graph, n.inputs[1]);
        return pads && std::all_of(pads->begin(), pads->end(), [](double p) { return p == 0; });
    }
    return false;
}

std::set<size_t> cancellingTransposes(const std::vector<NodeShapes>& nodes, const Graph& graph) {
    const SoleConsumers sole(nodes, graph);
    std::set<size_t> cancelled;
    for (size_t i = 0; i < nodes.size(); ++i) {
        const Node& first = *nodes[i].node;
        if (first.opType != "Transpose" || first.outputs.size() != 1 || cancelled.count(i)) continue;
        std::optional<size_t> next = sole.of(first.outputs[0]);
        while (next && nodes[*next].node->opType != "Transpose" && isNoOp(nodes[*next], graph) &&
               nodes[*next].node->outputs.size() == 1)
            next = sole.of(nodes[*next].node->outputs[0]);
        if (!next || nodes[*next].node->opType != "Transpose" || cancelled.count(*next)) continue;
        const std::vector<int64_t> p = first.attrInts("perm"), q = nodes[*next].node->attrInts("perm");
        bool inverse = !p.empty() && p.size() == q.size();
        for (size_t k = 0; inverse && k < q.size(); ++k)
            inverse = q[k] >= 0 && size_t(q[k]) < p.size() && p[size_t(q[k])] == int64_t(k);
        if (inverse) cancelled.insert({i, *next});
    }
    return cancelled;
}

bool isLookupTableActivation(const std::string& opType) {
    static const std::set<std::string> lut = {"Sigmoid", "Tanh",     "Swish",       "Mish",      "Elu",
                                              "Softplus", "HardSigmoid", "HardSwish", "Gelu"};
    return lut.count(opType) > 0;
}

}  // namespace npuwb
