#include "SegmentBuilder.h"

#include "Lowering.h"

namespace npuwb::xnn {
namespace {

void collectSubgraphReads(const Graph& graph, std::set<std::string>& names) {
    for (const Node& node : graph.nodes) {
        for (const std::string& in : node.inputs) names.insert(in);
        for (const auto& [attrName, attr] : node.attributes) {
            if (attr.g) collectSubgraphReads(*attr.g, names);
            for (const auto& g : attr.graphs) collectSubgraphReads(*g, names);
        }
    }
}

bool clampable(const std::string& op) {
    static const std::set<std::string> ops = {"Conv", "BatchNormalization", "Gemm", "MatMul", "Add", "Sub",
                                              "Mul", "Div", "MaxPool", "AveragePool", "GlobalAveragePool"};
    return ops.count(op) != 0;
}

class GroupFinder {
public:
    GroupFinder(const GraphQuery& q, const std::vector<size_t>& run, const GraphUses& uses)
        : q_(q), runSet_(run.begin(), run.end()), uses_(uses) {}

    bool absorbed(size_t index) const { return absorbed_.count(index) != 0; }

    FusedGroup group(size_t index) {
        const Node& node = q_.graph.nodes[index];
        FusedGroup g;
        g.main = &node;
        g.nodeNames = {nodeLabel(node)};
        g.output = node.outputs.empty() ? std::string() : node.outputs[0];
        if (node.opType == "Conv") {
            if (const Node* bn = soleConsumer(g.output, "BatchNormalization")) {
                g.batchNorm = bn;
                absorb(g, *bn);
            }
        }
        if (clampable(node.opType)) {
            for (const char* act : {"Relu", "Clip"}) {
                const Node* a = soleConsumer(g.output, act);
                float lo = 0, hi = 0;
                auto constant = [&](const std::string& v) { return valueConstant(v); };
                if (a && activationBounds(*a, constant, q_.opset, lo, hi)) {
                    g.outputMin = lo;
                    g.outputMax = hi;
                    absorb(g, *a);
                    break;
                }
            }
        }
        if (quantizable(node.opType)) {  // Int8Ops.cpp decides at lowering whether the group runs in int8
            if (const Node* q = soleConsumer(g.output, "QuantizeLinear")) {
                g.floatOutput = g.output;
                g.quantize = q;
                absorb(g, *q);
            }
        }
        return g;
    }

private:
    static bool quantizable(const std::string& op) {
        static const std::set<std::string> ops = {"Conv", "Gemm", "MatMul", "Add", "MaxPool", "Concat",
                                                  "GlobalAveragePool"};
        return ops.count(op) != 0;
    }

    const Tensor* valueConstant(const std::string& name) const {
        const ValueDesc* d = name.empty() ? nullptr : q_.value(name);
        return d ? d->constant : nullptr;
    }

    /// The only reader of `value`, when it is an `op` node in this run reading it as its first input.
    const Node* soleConsumer(const std::string& value, const char* op) {
        if (value.empty() || uses_.external.count(value)) return nullptr;
        const auto it = uses_.consumers.find(value);
        if (it == uses_.consumers.end() || it->second.size() != 1) return nullptr;
        const size_t c = it->second[0];
        const Node& node = q_.graph.nodes[c];
        if (!runSet_.count(c) || node.opType != op || node.inputs.empty() || node.inputs[0] != value) return nullptr;
        pending_ = c;
        return &node;
    }

    void absorb(FusedGroup& g, const Node& node) {
        absorbed_.insert(pending_);
        g.nodeNames.push_back(nodeLabel(node));
        g.output = node.outputs[0];
    }

    const GraphQuery& q_;
    std::set<size_t> runSet_;
    const GraphUses& uses_;
    std::set<size_t> absorbed_;
    size_t pending_ = 0;
};

}  // namespace

GraphUses collectUses(const Graph& graph) {
    GraphUses uses;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& node = graph.nodes[i];
        for (const std::string& in : node.inputs)
            if (!in.empty()) uses.consumers[in].push_back(i);
        for (const auto& [attrName, attr] : node.attributes) {
            if (attr.g) collectSubgraphReads(*attr.g, uses.external);
            for (const auto& g : attr.graphs) collectSubgraphReads(*g, uses.external);
        }
    }
    for (const ValueInfo& out : graph.outputs) uses.external.insert(out.name);
    return uses;
}

std::string nodeLabel(const Node& node) {
    if (!node.name.empty()) return node.name;
    return node.outputs.empty() ? node.opType : node.outputs[0];
}

Capability supportsInGraph(const Backend& backend, const GraphQuery& query, const Node& node) {
    NodeQuery nq{node, query.opset, {}, {}, {}, {}, {}};
    for (const std::string& in : node.inputs) {
        const ValueDesc* d = in.empty() ? nullptr : query.value(in);
        if (!in.empty() && !d) return Capability::no("input '" + in + "' has no known tensor value");
        nq.inputTypes.push_back(d ? d->dtype : DType::Undefined);
        nq.inputShapes.push_back(d ? d->shape : Shape{});
        nq.constants.push_back(d ? d->constant : nullptr);
    }
    for (const std::string& out : node.outputs) {
        if (out.empty()) continue;
        const ValueDesc* d = query.value(out);
        if (!d) return Capability::no("output '" + out + "' has no known tensor value");
        const bool quantizedOutput = node.opType == "QuantizeLinear" || node.opType == "QLinearConv" ||
                                     node.opType == "QLinearMatMul";
        if (d->dtype != DType::F32 && !(quantizedOutput && (d->dtype == DType::U8 || d->dtype == DType::I8)))
            return Capability::no("output is not float32");
    }
    for (const std::string& out : node.outputs) {
        const ValueDesc* d = out.empty() ? nullptr : query.value(out);
        nq.outputTypes.push_back(d ? d->dtype : DType::Undefined);
        nq.outputShapes.push_back(d ? d->shape : Shape{});
    }
    return backend.supports(nq);
}

bool buildSegment(const GraphQuery& query, const std::vector<size_t>& run, const GraphUses& uses,
                  const std::shared_ptr<pthreadpool>& pool, SegmentPlan& plan, size_t& failedNode, std::string& why) {
    auto segment = std::make_unique<XnnSegment>(pool);
    LowerContext ctx(*segment, query);
    GroupFinder groups(query, run, uses);
    std::vector<int> inputIds;
    for (size_t index : run) {
        if (groups.absorbed(index)) continue;
        const Node& node = query.graph.nodes[index];
        try {
            const FusedGroup g = groups.group(index);
            for (const std::string& in : node.inputs) {
                if (in.empty() || ctx.has(in) || ctx.constant(in)) continue;
                inputIds.push_back(ctx.import(in));
                plan.inputs.push_back(in);
            }
            lowerGroup(ctx, g);
        } catch (const std::exception& e) {
            failedNode = index;
            why = e.what();
            return false;
        }
    }
    const std::set<size_t> runSet(run.begin(), run.end());
    std::vector<int> outputIds;
    for (size_t index : run) {
        for (const std::string& out : query.graph.nodes[index].outputs) {
            if (out.empty() || !ctx.has(out)) continue;
            bool needed = uses.external.count(out) != 0;
            const auto it = uses.consumers.find(out);
            if (it != uses.consumers.end())
                for (size_t c : it->second) needed = needed || !runSet.count(c);
            if (!needed) continue;
            outputIds.push_back(ctx.read(out));  // (gives a lazily dequantized output its float data)
            plan.outputs.push_back(out);
        }
    }
    segment->setBoundary(inputIds, outputIds);
    try {
        segment->finalize();
    } catch (const std::exception& e) {
        failedNode = run.front();
        why = e.what();
        return false;
    }
    plan.nodes = run;
    plan.prepared = std::move(segment);
    return true;
}

}  // namespace npuwb::xnn
