#include "passes/GraphEdit.h"

#include <algorithm>
#include <climits>
#include <unordered_map>
#include <unordered_set>

namespace npuwb::passes {

namespace {
void collectSubgraphReads(const Graph& g, std::set<std::string>& reads) {
    for (const auto& n : g.nodes) {
        for (const auto& in : n.inputs) reads.insert(in);
        for (const auto& [an, a] : n.attributes) {
            if (a.g) collectSubgraphReads(*a.g, reads);
            for (const auto& sg : a.graphs) collectSubgraphReads(*sg, reads);
        }
    }
}

void renameInGraph(Graph& g, const std::string& from, const std::string& to) {
    for (auto& n : g.nodes) {
        for (auto& in : n.inputs)
            if (in == from) in = to;
        for (auto& [an, a] : n.attributes) {
            if (a.g) renameInGraph(*a.g, from, to);
            for (auto& sg : a.graphs) renameInGraph(*sg, from, to);
        }
    }
}
}  // namespace

GraphIndex::GraphIndex(const Graph& graph) {
    for (const auto& o : graph.outputs) graphOutputs_.insert(o.name);
    byName_.reserve(graph.nodes.size());
    producer_.reserve(graph.nodes.size());
    consumers_.reserve(graph.nodes.size());
    auto addConsumer = [&](const std::string& value, const Node* n) {
        if (value.empty()) return;
        auto& list = consumers_[value];
        if (list.empty() || list.back() != n) list.push_back(n);  // a node reading a value twice appears once
    };
    for (const auto& n : graph.nodes) {
        if (!n.name.empty()) byName_[n.name] = &n;
        for (const auto& o : n.outputs)
            if (!o.empty()) producer_[o] = &n;
        for (const auto& in : n.inputs) addConsumer(in, &n);
        bool hasBodies = false;
        for (const auto& [an, a] : n.attributes) hasBodies = hasBodies || a.g || !a.graphs.empty();
        if (!hasBodies) continue;
        std::set<std::string> reads;  // values the bodies read from this scope
        for (const auto& [an, a] : n.attributes) {
            if (a.g) collectSubgraphReads(*a.g, reads);
            for (const auto& sg : a.graphs) collectSubgraphReads(*sg, reads);
        }
        for (const auto& r : reads) addConsumer(r, &n);
    }
}

const Node* GraphIndex::producer(const std::string& value) const {
    auto it = producer_.find(value);
    return it == producer_.end() ? nullptr : it->second;
}
const Node* GraphIndex::node(const std::string& nodeName) const {
    auto it = byName_.find(nodeName);
    return it == byName_.end() ? nullptr : it->second;
}
const std::vector<const Node*>& GraphIndex::consumers(const std::string& value) const {
    static const std::vector<const Node*> none;
    auto it = consumers_.find(value);
    return it == consumers_.end() ? none : it->second;
}
bool GraphIndex::hasSingleUse(const std::string& value) const {
    return !isGraphOutput(value) && consumers(value).size() == 1;
}
const Node* GraphIndex::singleConsumer(const std::string& value) const {
    return hasSingleUse(value) ? consumers(value)[0] : nullptr;
}

const Tensor* constantOf(const Graph& graph, const std::string& value) {
    auto it = graph.initializers.find(value);
    if (it == graph.initializers.end()) return nullptr;
    for (const auto& in : graph.inputs)
        if (in.name == value) return nullptr;  // a default the caller may override
    return &it->second;
}

std::optional<Shape> staticShape(const Graph& graph, const std::string& value) {
    if (const Tensor* t = constantOf(graph, value)) return t->shape();
    const ValueInfo* vi = graph.findValueInfo(value);
    if (!vi || vi->type.kind != ValueType::Kind::Tensor || !vi->type.shape) return std::nullopt;
    Shape s;
    for (const Dim& d : *vi->type.shape) {
        if (!d.known()) return std::nullopt;
        s.push_back(d.value);
    }
    return s;
}

std::optional<DType> knownDType(const Graph& graph, const std::string& value) {
    if (const Tensor* t = constantOf(graph, value)) return t->dtype();
    const ValueInfo* vi = graph.findValueInfo(value);
    if (!vi || vi->type.dtype == DType::Undefined) return std::nullopt;
    return vi->type.dtype;
}

std::optional<std::vector<int64_t>> constantInts(const Graph& graph, const std::string& value) {
    const Tensor* t = constantOf(graph, value);
    if (!t || isFloat(t->dtype())) return std::nullopt;
    return t->toInt64Vector();
}

bool constantAllEqual(const Graph& graph, const std::string& value, double v) {
    const Tensor* t = constantOf(graph, value);
    if (!t || t->numel() == 0) return false;
    for (int64_t i = 0; i < t->numel(); ++i)
        if (t->elementAsDouble(i) != v) return false;
    return true;
}

std::optional<SliceParams> sliceParameters(const Graph& graph, const Node& n, int64_t opset) {
    SliceParams p;
    if (opset < 10) {
        p.starts = n.attrInts("starts");
        p.ends = n.attrInts("ends");
        p.axes = n.attrInts("axes");
    } else {
        auto get = [&](size_t i, std::vector<int64_t>& out) {
            if (n.inputs.size() <= i || n.inputs[i].empty()) return true;
            auto v = constantInts(graph, n.inputs[i]);
            if (v) out = *v;
            return v.has_value();
        };
        if (n.inputs.size() < 3 || !get(1, p.starts) || !get(2, p.ends) || !get(3, p.axes) || !get(4, p.steps))
            return std::nullopt;
    }
    if (p.axes.empty())
        for (size_t i = 0; i < p.starts.size(); ++i) p.axes.push_back(static_cast<int64_t>(i));
    if (p.steps.empty()) p.steps.assign(p.starts.size(), 1);
    if (p.starts.size() != p.ends.size() || p.axes.size() != p.starts.size() || p.steps.size() != p.starts.size())
        return std::nullopt;
    return p;
}

Node* findNode(Graph& graph, const std::string& nodeName) {
    for (auto& n : graph.nodes)
        if (n.name == nodeName) return &n;
    return nullptr;
}


namespace {
/// Calls `f` with every name in use in `graph` (nodes, values, initializers, declared values).
template <class F> void forEachUsedName(const Graph& graph, F&& f) {
    for (const auto& n : graph.nodes) {
        f(n.name);
        for (const auto& o : n.outputs) f(o);
        for (const auto& i : n.inputs) f(i);
    }
    for (const auto& v : graph.inputs) f(v.name);
    for (const auto& v : graph.outputs) f(v.name);
    for (const auto& [k, t] : graph.initializers) f(k);
    for (const auto& [k, t] : graph.valueInfo) f(k);
}

/// `base`, or `base_N` with the smallest N >= 1 not in `taken` (the suffixes in use).
std::string firstFree(const std::string& base, bool baseTaken, const std::set<int64_t>& taken) {
    if (!baseTaken) return base;
    int64_t i = 1;
    for (int64_t t : taken) {
        if (t > i) break;
        if (t == i) ++i;
    }
    return base + "_" + std::to_string(i);
}

/// The suffix N of `name` when it is `base_N`, else -1.
int64_t suffixOf(const std::string& name, const std::string& base) {
    if (name.size() <= base.size() + 1 || name.compare(0, base.size(), base) != 0 || name[base.size()] != '_') return -1;
    int64_t n = 0;
    for (size_t i = base.size() + 1; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9' || n > (INT64_MAX - 9) / 10) return -1;
        n = n * 10 + (name[i] - '0');
    }
    return n;
}
}  // namespace

void moveInFrontOfLayout(Graph& graph, Node& unary, Node& layout) {
    const std::string layoutIn = layout.inputs[0], finalOut = unary.outputs[0];
    const std::string moved = freshName(graph, layoutIn + "_" + unary.opType);
    unary.inputs[0] = layoutIn;
    unary.outputs[0] = moved;
    layout.inputs[0] = moved;
    graph.valueInfo.erase(layout.outputs[0]);
    layout.outputs[0] = finalOut;
}

std::string freshName(const Graph& graph, const std::string& base) {
    // One walk comparing names, without building a set of all of them: passes call this once per rewrite.
    bool baseTaken = false;
    std::set<int64_t> taken;
    forEachUsedName(graph, [&](const std::string& name) {
        if (name == base) baseTaken = true;
        else if (int64_t n = suffixOf(name, base); n > 0) taken.insert(n);
    });
    return firstFree(base, baseTaken, taken);
}

void nameAllNodes(Graph& graph) {
    // One walk for all names (freshName per node was quadratic: 100,000 unnamed nodes took minutes).
    std::unordered_set<std::string> used;
    forEachUsedName(graph, [&](const std::string& name) { used.insert(name); });
    std::unordered_map<std::string, int64_t> nextSuffix;
    for (auto& n : graph.nodes) {
        if (!n.name.empty()) continue;
        std::string name = n.opType;
        if (used.count(name)) {
            int64_t& i = nextSuffix[n.opType];
            do name = n.opType + "_" + std::to_string(++i);
            while (used.count(name));
        }
        used.insert(name);
        n.name = std::move(name);
    }
}

std::string addConstant(Graph& graph, const std::string& base, const Tensor& tensor) {
    std::string name = freshName(graph, base);
    graph.initializers[name] = tensor;
    return name;
}

void replaceUses(Graph& graph, const std::string& from, const std::string& to) { renameInGraph(graph, from, to); }

void replaceUses(Graph& graph, const std::unordered_map<std::string, std::string>& renames) {
    if (renames.empty()) return;
    for (auto& n : graph.nodes) {
        for (auto& in : n.inputs)
            if (auto it = renames.find(in); it != renames.end()) in = it->second;
        for (auto& [an, a] : n.attributes) {
            if (a.g) replaceUses(*a.g, renames);
            for (auto& sg : a.graphs) replaceUses(*sg, renames);
        }
    }
}

bool canBypass(const Graph& graph, const GraphIndex& index, const std::string& in, const std::string& out) {
    if (!index.isGraphOutput(out)) return true;
    const Node* p = index.producer(in);
    (void)graph;
    return p && !index.isGraphOutput(in) && index.consumers(in).size() == 1;
}

bool bypassValue(Graph& graph, const std::string& nodeName, const std::string& in, const std::string& out) {
    GraphIndex index(graph);
    if (!canBypass(graph, index, in, out)) return false;
    removeNodes(graph, {nodeName});
    if (!index.isGraphOutput(out)) {
        replaceUses(graph, out, in);
        return true;
    }
    // Keep the graph output's name: the producer of `in` writes `out` directly.
    for (auto& n : graph.nodes)
        for (auto& o : n.outputs)
            if (o == in) o = out;
    graph.valueInfo.erase(in);
    return true;
}

void removeNodes(Graph& graph, const std::set<std::string>& nodeNames) {
    std::erase_if(graph.nodes, [&](const Node& n) { return nodeNames.count(n.name) > 0; });
}

void pruneUnused(Graph& graph) {
    std::set<std::string> reads;
    collectSubgraphReads(graph, reads);
    for (const auto& o : graph.outputs) reads.insert(o.name);
    std::set<std::string> inputs;
    for (const auto& in : graph.inputs) inputs.insert(in.name);
    std::erase_if(graph.initializers, [&](const auto& kv) { return !reads.count(kv.first) && !inputs.count(kv.first); });
    std::set<std::string> produced;
    for (const auto& n : graph.nodes) produced.insert(n.outputs.begin(), n.outputs.end());
    std::erase_if(graph.valueInfo, [&](const auto& kv) { return !produced.count(kv.first); });
}

void sortTopologically(Graph& graph) {
    std::vector<size_t> order = graph.topologicalOrder();
    std::vector<Node> sorted;
    sorted.reserve(order.size());
    for (size_t i : order) sorted.push_back(std::move(graph.nodes[i]));
    graph.nodes = std::move(sorted);
}

Node makeNode(const Graph& graph, const std::string& op, std::vector<std::string> inputs,
              std::vector<std::string> outputs, const std::string& nameBase) {
    Node n;
    n.name = freshName(graph, nameBase);
    n.opType = op;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    return n;
}

}  // namespace npuwb::passes
