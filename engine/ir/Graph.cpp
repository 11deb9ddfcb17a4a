#include "npuwb/ir/Graph.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace npuwb {

std::string symShapeToString(const SymShape& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ",";
        if (shape[i].known()) s += std::to_string(shape[i].value);
        else s += shape[i].symbol.empty() ? "?" : shape[i].symbol;
    }
    return s + "]";
}

const Attribute* Node::attribute(const std::string& attrName) const {
    auto it = attributes.find(attrName);
    return it == attributes.end() ? nullptr : &it->second;
}

namespace {
[[noreturn]] void wrongKind(const Node& node, const std::string& attrName, const char* expected) {
    failInput("node " + node.label() + ": attribute '" + attrName + "' is not " + expected);
}
}  // namespace

int64_t Node::attrInt(const std::string& attrName, int64_t fallback) const {
    const Attribute* a = attribute(attrName);
    if (!a) return fallback;
    if (a->kind != Attribute::Kind::Int) wrongKind(*this, attrName, "an int");
    return a->i;
}
float Node::attrFloat(const std::string& attrName, float fallback) const {
    const Attribute* a = attribute(attrName);
    if (!a) return fallback;
    if (a->kind == Attribute::Kind::Int) return static_cast<float>(a->i);
    if (a->kind != Attribute::Kind::Float) wrongKind(*this, attrName, "a float");
    return a->f;
}
std::string Node::attrString(const std::string& attrName, const std::string& fallback) const {
    const Attribute* a = attribute(attrName);
    if (!a) return fallback;
    if (a->kind != Attribute::Kind::String) wrongKind(*this, attrName, "a string");
    return a->s;
}
std::vector<int64_t> Node::attrInts(const std::string& attrName, std::vector<int64_t> fallback) const {
    const Attribute* a = attribute(attrName);
    if (!a) return fallback;
    if (a->kind != Attribute::Kind::Ints) wrongKind(*this, attrName, "a list of ints");
    return a->ints;
}
std::vector<float> Node::attrFloats(const std::string& attrName, std::vector<float> fallback) const {
    const Attribute* a = attribute(attrName);
    if (!a) return fallback;
    if (a->kind != Attribute::Kind::Floats) wrongKind(*this, attrName, "a list of floats");
    return a->floats;
}
std::vector<std::string> Node::attrStrings(const std::string& attrName, std::vector<std::string> fallback) const {
    const Attribute* a = attribute(attrName);
    if (!a) return fallback;
    if (a->kind != Attribute::Kind::Strings) wrongKind(*this, attrName, "a list of strings");
    return a->strings;
}
const Graph* Node::attrGraph(const std::string& attrName) const {
    const Attribute* a = attribute(attrName);
    if (!a) return nullptr;
    if (a->kind != Attribute::Kind::Graph) wrongKind(*this, attrName, "a graph");
    return a->g.get();
}
std::string Node::label() const {
    std::string who = name.empty() ? ("producing '" + (outputs.empty() ? std::string("?") : outputs[0]) + "'")
                                   : ("'" + name + "'");
    return who + " (" + (domain.empty() ? "" : domain + ".") + opType + ")";
}

std::string Node::layerName() const {
    if (!name.empty()) return name;
    return outputs.empty() || outputs[0].empty() ? opType : outputs[0];
}

const ValueInfo* Graph::findValueInfo(const std::string& valueName) const {
    for (const auto& v : inputs)
        if (v.name == valueName) return &v;
    for (const auto& v : outputs)
        if (v.name == valueName) return &v;
    auto it = valueInfo.find(valueName);
    return it == valueInfo.end() ? nullptr : &it->second;
}

std::vector<size_t> Graph::topologicalOrder(const std::vector<std::string>& outerScope) const {
    std::unordered_map<std::string, size_t> producer;
    for (size_t i = 0; i < nodes.size(); ++i)
        for (const auto& out : nodes[i].outputs)
            if (!out.empty()) {
                if (producer.count(out)) failInput("value '" + out + "' is produced by two nodes: " +
                                                   nodes[producer[out]].label() + " and " + nodes[i].label());
                producer[out] = i;
            }
    std::set<std::string> available(outerScope.begin(), outerScope.end());
    for (const auto& in : inputs) available.insert(in.name);
    for (const auto& [n, t] : initializers) available.insert(n);

    // Kahn's algorithm, keeping file order among ready nodes so the order is stable.
    std::vector<int> pending(nodes.size(), 0);
    std::vector<std::vector<size_t>> consumers(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
        std::set<std::string> needed(nodes[i].inputs.begin(), nodes[i].inputs.end());
        // Subgraph bodies may read values of this graph implicitly.
        for (const auto& [an, attr] : nodes[i].attributes) {
            std::vector<const Graph*> bodies;
            if (attr.g) bodies.push_back(attr.g.get());
            for (const auto& g : attr.graphs) bodies.push_back(g.get());
            for (const Graph* body : bodies)
                for (const auto& bn : body->nodes)
                    for (const auto& bi : bn.inputs) needed.insert(bi);
        }
        for (const auto& in : needed) {
            if (in.empty() || available.count(in)) continue;
            auto it = producer.find(in);
            if (it == producer.end()) {
                if (std::find(nodes[i].inputs.begin(), nodes[i].inputs.end(), in) != nodes[i].inputs.end())
                    failInput("node " + nodes[i].label() + " reads value '" + in +
                              "' that no node, input or initializer provides");
                continue;  // a subgraph-local name
            }
            if (it->second == i) failInput("node " + nodes[i].label() + " consumes its own output '" + in + "' (cycle)");
            ++pending[i];
            consumers[it->second].push_back(i);
        }
    }
    std::vector<size_t> order;
    std::set<size_t> ready;
    for (size_t i = 0; i < nodes.size(); ++i)
        if (pending[i] == 0) ready.insert(i);
    while (!ready.empty()) {
        size_t n = *ready.begin();
        ready.erase(ready.begin());
        order.push_back(n);
        for (size_t c : consumers[n])
            if (--pending[c] == 0) ready.insert(c);
    }
    if (order.size() != nodes.size()) {
        for (size_t i = 0; i < nodes.size(); ++i)
            if (pending[i] > 0) failInput("the graph has a cycle through node " + nodes[i].label());
    }
    return order;
}

int64_t Model::opset(const std::string& domain) const {
    auto it = opsetImports.find(domain);
    if (it != opsetImports.end()) return it->second;
    if (domain.empty()) {
        auto ai = opsetImports.find("ai.onnx");
        if (ai != opsetImports.end()) return ai->second;
    }
    return 0;
}

}  // namespace npuwb
