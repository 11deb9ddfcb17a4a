#include "npuwb/ModelSummary.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <set>

namespace npuwb {

namespace {

/// Product of the dimensions from index `from` on.
int64_t product(const Shape& s, size_t from = 0) {
    int64_t p = 1;
    for (auto it = s.begin() + static_cast<std::ptrdiff_t>(std::min(from, s.size())); it != s.end(); ++it) p *= *it;
    return p;
}

int64_t matmulMacs(const Shape& a, const Shape& b, const Shape& out) {
    if (a.empty() || b.empty()) return 0;
    int64_t k = a.back();
    return product(out) * k;  // every output element is a K-long dot product
}

TensorDesc describe(const ValueInfo& vi) {
    TensorDesc d;
    d.name = vi.name;
    d.dataType = std::string(dtypeName(vi.type.dtype));
    if (vi.type.shape)
        for (const Dim& dim : *vi.type.shape)
            d.shape.push_back(dim.known() ? std::to_string(dim.value) : (dim.symbol.empty() ? "?" : dim.symbol));
    return d;
}

/// A fully known shape of a value, from initializers or recorded/inferred types; nullopt otherwise.
std::optional<Shape> knownShape(const Graph& g, const std::string& name) {
    auto init = g.initializers.find(name);
    if (init != g.initializers.end()) return init->second.shape();
    const ValueInfo* vi = g.findValueInfo(name);
    if (!vi || !vi->type.shape) return std::nullopt;
    Shape s;
    for (const Dim& d : *vi->type.shape) {
        if (!d.known()) return std::nullopt;
        s.push_back(d.value);
    }
    return s;
}

}  // namespace

int64_t nodeMacs(const Node& node, const std::vector<Shape>& in, const std::vector<Shape>& out) {
    const std::string& op = node.opType;
    if (out.empty() || in.empty()) return 0;
    if (op == "Conv" || op == "ConvInteger" || op == "QLinearConv") {
        size_t w = op == "QLinearConv" ? 3 : 1;
        if (in.size() <= w || in[w].size() < 2) return 0;
        // out elements x (Cin/group x kernel area): the weight's dims after the first.
        return product(out[0]) * product(in[w], 1);
    }
    if (op == "ConvTranspose") {
        if (in.size() < 2 || in[1].size() < 2) return 0;
        // every input element is scattered through Cout/group x kernel area weights
        return product(in[0]) * product(in[1], 1);
    }
    if (op == "Gemm") {
        if (in.size() < 2 || in[0].size() != 2) return 0;
        int64_t k = node.attrInt("transA", 0) ? in[0][0] : in[0][1];
        return product(out[0]) * k;
    }
    if (op == "MatMul" || op == "MatMulInteger") return in.size() >= 2 ? matmulMacs(in[0], in[1], out[0]) : 0;
    if (op == "QLinearMatMul") return in.size() >= 4 ? matmulMacs(in[0], in[3], out[0]) : 0;
    if (op == "LSTM" || op == "GRU" || op == "RNN") {
        if (in.size() < 3 || in[0].size() != 3 || in[1].size() != 3) return 0;
        int64_t gates = in[1][1];  // directions x (gates*hidden) rows
        int64_t inputSize = in[1][2];
        int64_t hidden = in[2].size() == 3 ? in[2][2] : 0;
        int64_t steps = in[0][0] * in[0][1];  // seq x batch (layout 0)
        return steps * gates * (inputSize + hidden);
    }
    return 0;
}

namespace {

/// Whether the op does multiply-accumulates (nodeMacs counts it when its shapes are known).
bool hasMacs(const Node& node) {
    static const std::set<std::string> ops = {"Conv",   "ConvInteger",   "QLinearConv", "ConvTranspose", "Gemm",
                                              "MatMul", "MatMulInteger", "QLinearMatMul", "LSTM", "GRU", "RNN"};
    return node.domain.empty() && ops.count(node.opType);
}

/// A control-flow node (If, Loop, Scan) whose bodies hold MAC ops: those run a data-dependent number of times (or
/// one branch of several), so they are not counted, and the summary says so.
bool bodiesHaveMacs(const Node& node) {
    for (const auto& [name, a] : node.attributes) {
        std::vector<std::shared_ptr<Graph>> bodies = a.graphs;
        if (a.g) bodies.push_back(a.g);
        for (const auto& body : bodies)
            if (body)
                for (const auto& inner : body->nodes)
                    if (hasMacs(inner) || bodiesHaveMacs(inner)) return true;
    }
    return false;
}

using ShapeLookup = std::function<std::optional<Shape>(const std::string&)>;

ModelSummary summarize(const Model& model, const ShapeLookup& shapeOf) {
    ModelSummary s;
    const Graph& g = model.graph;
    s.path = model.sourcePath;
    s.name = g.name.empty() ? std::filesystem::path(model.sourcePath).stem().string() : g.name;
    if (!model.sourcePath.empty()) s.name = std::filesystem::path(model.sourcePath).stem().string();
    s.producer = model.producerName + (model.producerVersion.empty() ? "" : " " + model.producerVersion);
    s.irVersion = model.irVersion;
    s.opset = model.opset("");
    for (const auto& in : g.inputs)
        if (!g.initializers.count(in.name)) s.inputs.push_back(describe(in));
    for (const auto& out : g.outputs) s.outputs.push_back(describe(out));
    s.nodeCount = static_cast<int64_t>(g.nodes.size());
    for (const auto& [name, t] : g.initializers) {
        s.parameterCount += t.numel();
        s.weightBytes += static_cast<int64_t>(t.byteSize());
    }
    for (const auto& n : g.nodes) {
        ++s.opHistogram[(n.domain.empty() ? "" : n.domain + ".") + n.opType];
        if (!hasMacs(n)) {
            if (bodiesHaveMacs(n))
                s.uncountedNodes.push_back(n.layerName());
            continue;
        }
        std::vector<Shape> ins, outs;
        bool complete = true;
        for (const auto& i : n.inputs) {
            if (i.empty()) { ins.emplace_back(); continue; }
            auto sh = shapeOf(i);
            if (!sh) { complete = false; break; }
            ins.push_back(*sh);
        }
        for (const auto& o : n.outputs) {
            if (!complete || o.empty()) break;
            auto sh = shapeOf(o);
            if (!sh) { complete = false; break; }
            outs.push_back(*sh);
        }
        if (complete)
            s.macs += nodeMacs(n, ins, outs);
        else
            s.uncountedNodes.push_back(n.layerName());
    }
    return s;
}

}  // namespace

ModelSummary summarizeModel(const Model& model) {
    const Graph& g = model.graph;
    return summarize(model, [&g](const std::string& name) { return knownShape(g, name); });
}

ModelSummary summarizeModel(const Model& model, const LearnedShapes& shapes) {
    ModelSummary s = summarize(model, [&shapes](const std::string& name) -> std::optional<Shape> {
        const Shape* found = shapes.find(name);
        return found ? std::optional<Shape>(*found) : std::nullopt;
    });
    s.shapesSource = shapes.source;
    return s;
}

}  // namespace npuwb
