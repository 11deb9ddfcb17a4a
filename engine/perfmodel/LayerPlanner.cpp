#include "perfmodel/LayerPlanner.h"

#include <algorithm>
#include <map>
#include <set>

#include "npuwb/ModelSummary.h"
#include "perfmodel/ConverterRewrites.h"
#include "perfmodel/OpConditions.h"

namespace npuwb {

namespace {

int64_t elements(const Shape& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
}

std::string dtypeOpListName(const std::string& dtype) { return dtype == "fp16" ? "float16" : dtype; }

bool isConvLike(const std::string& npuOp) {
    return npuOp == "Convolution" || npuOp == "Depthwise Convolution" || npuOp == "exMatMul";
}

/// The attribute or dimension a limit key refers to, when this model knows how to read it.
std::optional<int64_t> limitValue(const std::string& key, const NodeShapes& ns) {
    const Node& n = *ns.node;
    std::string field = key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
    const Shape in0 = ns.inputs.empty() ? Shape{} : ns.inputs[0];
    auto pick = [](const std::vector<int64_t>& v, size_t i, int64_t fallback) { return i < v.size() ? v[i] : fallback; };
    bool global = n.opType.rfind("Global", 0) == 0;
    if (field == "kernel_h" || field == "kernel_w") {
        size_t axis = field == "kernel_h" ? 0 : 1;
        if (global) return in0.size() == 4 ? std::optional<int64_t>(in0[2 + axis]) : std::nullopt;
        if (n.hasAttribute("kernel_shape")) return pick(n.attrInts("kernel_shape"), axis, 1);
        if (ns.inputs.size() > 1 && ns.inputs[1].size() >= 3) return pick(ns.inputs[1], 2 + axis, 1);
        return std::nullopt;
    }
    if (field == "stride_h" || field == "stride_w") return pick(n.attrInts("strides"), field == "stride_h" ? 0 : 1, 1);
    if (field == "dilation_h" || field == "dilation_w")
        return pick(n.attrInts("dilations"), field == "dilation_h" ? 0 : 1, 1);
    static const std::map<std::string, size_t> padIndex = {{"pad_top", 0}, {"pad_left", 1}, {"pad_bottom", 2},
                                                           {"pad_right", 3}};
    if (auto it = padIndex.find(field); it != padIndex.end() && n.opType != "Pad") {
        std::vector<int64_t> pads = n.attrInts("pads");
        if (pads.size() == 2) return pick(pads, it->second % 2 == 0 ? 0 : 1, 0);  // 1-D: begin, end
        return pick(pads, it->second, 0);
    }
    if (key == "input.channel" || key == "input.height" || key == "input.width") {
        if (in0.size() != 4) return std::nullopt;
        return in0[field == "channel" ? 1 : field == "height" ? 2 : 3];
    }
    if (key == "A.k" && !in0.empty()) return in0.back();
    return std::nullopt;
}

/// Index of the only node consuming `value`, if exactly one does and it is not a graph output.
std::optional<size_t> soleConsumer(const std::string& value, const std::multimap<std::string, size_t>& consumers,
                                   const std::set<std::string>& graphOutputs) {
    if (graphOutputs.count(value) || consumers.count(value) != 1) return std::nullopt;
    return consumers.find(value)->second;
}

bool matchesStep(const std::string& step, const std::string& onnxOp) {
    size_t start = 0;
    while (start <= step.size()) {  // "PRelu|LeakyRelu": alternatives
        size_t bar = step.find('|', start);
        if (step.substr(start, bar - start) == onnxOp) return true;
        if (bar == std::string::npos) break;
        start = bar + 1;
    }
    return false;
}

class Planner {
public:
    Planner(const std::vector<NodeShapes>& nodes, const Graph& graph, const ChipProfile& chip, const std::string& dtype)
        : nodes_(nodes), graph_(graph), chip_(chip), rates_(chip.rates(dtype)), dtype_(dtype),
          swish_(swishPairs(nodes, graph)), cancelledTransposes_(cancellingTransposes(nodes, graph)) {
        for (size_t i = 0; i < nodes.size(); ++i) {
            for (const auto& in : nodes[i].node->inputs)
                if (!in.empty()) consumers_.emplace(in, i);
            for (const auto& out : nodes[i].node->outputs) producer_[out] = i;
        }
        for (const auto& o : graph.outputs) graphOutputs_.insert(o.name);
    }

    std::vector<PlannedLayer> run() {
        std::vector<PlannedLayer> layers;
        std::vector<bool> done(nodes_.size(), false);
        for (size_t i = 0; i < nodes_.size(); ++i) {
            if (done[i] || folded(nodes_[i])) continue;
            PlannedLayer layer = planAnchor(i);
            for (size_t k = 1; k < layer.nodes.size(); ++k) done[size_t(layer.nodes[k] - nodes_.data())] = true;
            layers.push_back(std::move(layer));
        }
        markCpuBoundaries(layers);
        return layers;
    }

private:
    /// A CPU fallback converts what crosses the NPU/CPU boundary (inputs an NPU layer produced, outputs an NPU
    /// layer reads) and, when it follows an NPU layer, hands over from the NPU and back: consecutive CPU layers
    /// share one hand-over and exchange fp32 tensors directly.
    void markCpuBoundaries(std::vector<PlannedLayer>& layers) const {
        std::map<std::string, size_t> producerLayer;
        std::multimap<std::string, size_t> consumerLayers;
        for (size_t l = 0; l < layers.size(); ++l)
            for (const NodeShapes* ns : layers[l].nodes) {
                for (const auto& o : ns->node->outputs) producerLayer[o] = l;
                for (const auto& in : ns->node->inputs) consumerLayers.emplace(in, l);
            }
        bool previousOnNpu = true;  // the input conversion of the runtime precedes the first layer
        for (size_t l = 0; l < layers.size(); ++l) {
            PlannedLayer& layer = layers[l];
            if (!layer.npuOp.empty()) {
                previousOnNpu = true;
                continue;
            }
            layer.cpuSwitch = previousOnNpu;
            previousOnNpu = false;
            const NodeShapes& a = *layer.nodes.front();
            std::set<std::string> converted;  // a tensor read twice is converted once
            for (size_t i = 0; i < a.inputs.size() && i < a.node->inputs.size(); ++i) {
                auto p = producerLayer.find(a.node->inputs[i]);
                if (!a.inputIsConstant[i] && p != producerLayer.end() && !layers[p->second].npuOp.empty() &&
                    converted.insert(a.node->inputs[i]).second)
                    layer.cpuConvertElements += elements(a.inputs[i]);
            }
            for (size_t o = 0; o < a.outputs.size() && o < a.node->outputs.size(); ++o) {
                auto range = consumerLayers.equal_range(a.node->outputs[o]);
                if (std::any_of(range.first, range.second,
                                [&](const auto& c) { return !layers[c.second].npuOp.empty(); }))
                    layer.cpuConvertElements += elements(a.outputs[o]);
            }
        }
    }

    /// Nodes the converter removes: constant subgraphs, no-ops, transposes into the I/O layout or cancelling out.
    bool folded(const NodeShapes& ns) const {
        const size_t index = size_t(&ns - nodes_.data());
        if (isNoOp(ns, graph_) || absorbedByIoLayout(ns, graph_) || cancelledTransposes_.count(index)) return true;
        return std::all_of(ns.inputIsConstant.begin(), ns.inputIsConstant.end(), [](bool c) { return c; });
    }

    std::string npuOpFor(const NodeShapes& ns) const {
        const Node& n = *ns.node;
        if (!n.domain.empty() && n.domain != "ai.onnx") return {};
        const ConvertedNode converted = convertNode(ns, graph_);
        if (converted.channelReduction) return "Convolution";
        if (converted.channelScale) return "Depthwise Convolution";
        if (swish_.count(size_t(&ns - nodes_.data())) && chip_.npuOp("exSwish")) return "exSwish";
        if (n.opType == "Conv") {
            int64_t group = n.attrInt("group", 1);
            bool depthwise = group > 1 && !ns.inputs.empty() && ns.inputs[0].size() >= 2 && group == ns.inputs[0][1];
            return depthwise ? "Depthwise Convolution" : "Convolution";
        }
        if (auto it = chip_.onnxToNpu.find(converted.opType); it != chip_.onnxToNpu.end() && !it->second.empty())
            return it->second.front();
        if (auto it = chip_.lowering.find(converted.opType); it != chip_.lowering.end()) return it->second;
        return {};
    }

    PlannedLayer planAnchor(size_t index) {
        PlannedLayer layer;
        const NodeShapes& ns = nodes_[index];
        layer.nodes.push_back(&ns);
        std::string op = npuOpFor(ns);
        const NpuOp* npu = op.empty() ? nullptr : chip_.npuOp(op);
        if (!npu) {
            layer.cpuReason = ns.node->opType + " is not on " + chip_.name + "'s NPU op list";
        } else if (!npu->dtypes.empty() && std::find(npu->dtypes.begin(), npu->dtypes.end(), dtypeOpListName(dtype_)) ==
                                               npu->dtypes.end()) {
            layer.cpuReason = op + " does not support " + dtype_ + " on " + chip_.name;
        } else if (auto violated = violatedLimit(*npu, ns); violated && !poolingPasses(*npu, ns)) {
            layer.cpuReason = op + " limit exceeded: " + *violated;
        } else if (auto unmet = unmetCondition(*npu, ns, graph_, dtypeOpListName(dtype_))) {
            layer.cpuReason = op + " on " + chip_.name + ": " + *unmet;
        } else {
            layer.npuOp = op;
            layer.rewrite = convertNode(ns, graph_).rewrite;
            if (op == "exSwish") {
                layer.nodes.push_back(&nodes_[swish_.at(index)]);  // x * Sigmoid(x): the Mul joins its Sigmoid
                layer.rewrite = "x * Sigmoid(x) -> exSwish";
            }
            fuse(layer, index);
            buildWork(layer);
            if (auto passes = poolingPasses(*npu, ns); passes && *passes > 1) cascade(layer, *npu, *passes);
            if (leavesNativeLayout(ns)) {
                // Converted out of NC1HWC2 before and back after: two layers moving every element one at a time.
                layer.work.passes += 2;
                for (const Shape& s : {ns.inputs[0], ns.outputs[0]}) layer.work.layoutConvertElements += elements(s);
            }
        }
        if (layer.npuOp.empty())
            for (size_t i = 0; i < ns.inputs.size(); ++i)
                layer.cpuBytes += 4 * (elements(ns.inputs[i]) + (i < ns.outputs.size() ? elements(ns.outputs[i]) : 0));
        return layer;
    }

    /// The next fusion step after `node`: its sole consumer, or the x * Sigmoid(x) pair reading its output (step
    /// "Swish", both nodes). Empty when the output has other readers or is a graph output.
    std::optional<std::pair<std::string, std::vector<size_t>>> nextStep(size_t node) const {
        const auto& outs = nodes_[node].node->outputs;
        if (outs.empty() || graphOutputs_.count(outs[0])) return std::nullopt;
        if (auto next = soleConsumer(outs[0], consumers_, graphOutputs_))
            return std::make_pair(nodes_[*next].node->opType, std::vector<size_t>{*next});
        auto range = consumers_.equal_range(outs[0]);
        if (std::distance(range.first, range.second) != 2) return std::nullopt;
        for (auto it = range.first; it != range.second; ++it)
            if (auto pair = swish_.find(it->second); pair != swish_.end())
                for (auto other = range.first; other != range.second; ++other)
                    if (other->second == pair->second) return std::make_pair(std::string("Swish"), std::vector<size_t>{pair->first, pair->second});
        return std::nullopt;
    }

    /// Greedily extends the layer with consumers as long as some fused op of the chip continues the chain.
    void fuse(PlannedLayer& layer, size_t anchor) {
        std::string base = layer.npuOp == "Depthwise Convolution" ? "Convolution" : layer.npuOp;
        std::vector<size_t> chain;  // fused nodes after the anchor, BatchNormalization included
        std::vector<std::string> steps;  // op types that count as fusion steps
        size_t best = 0;
        std::string bestName;
        size_t current = size_t(layer.nodes.back() - nodes_.data());
        while (true) {
            auto step = nextStep(current);
            if (!step || !operandsReady(step->second.back(), anchor, chain)) break;
            const std::string& op = step->first;
            if (op == "BatchNormalization" && base == "Convolution" && steps.empty()) {
                chain.push_back(step->second[0]);  // folded into the convolution's weights by the converter
                best = chain.size();
                current = step->second[0];
                continue;
            }
            bool continues = false;
            for (const auto& f : chip_.fusedOps) {
                if (f.base != base || f.then.size() <= steps.size() || !chip_.npuOp(f.name)) continue;
                bool prefix = true;
                for (size_t s = 0; s < steps.size(); ++s) prefix = prefix && matchesStep(f.then[s], steps[s]);
                if (prefix && matchesStep(f.then[steps.size()], op)) continues = true;
            }
            if (!continues) break;
            chain.insert(chain.end(), step->second.begin(), step->second.end());
            steps.push_back(op);
            current = step->second.back();
            for (const auto& f : chip_.fusedOps) {
                if (f.base != base || f.then.size() != steps.size() || !chip_.npuOp(f.name)) continue;
                bool all = true;
                for (size_t s = 0; s < steps.size(); ++s) all = all && matchesStep(f.then[s], steps[s]);
                if (all) { best = chain.size(); bestName = f.name; }
            }
        }
        chain.resize(best);
        for (size_t c : chain) layer.nodes.push_back(&nodes_[c]);
        if (!bestName.empty()) layer.npuOp = bestName;
    }

    void buildWork(PlannedLayer& layer) {
        const NodeShapes& a = *layer.nodes.front();
        const Node& n = *a.node;
        NpuWork& w = layer.work;
        std::string anchorOp = npuOpFor(a);
        w.splitsAcrossCores = chip_.npuOp(layer.npuOp)->multiCore;
        w.macs = nodeMacs(n, a.inputs, a.outputs);
        for (const NodeShapes* ns : layer.nodes)
            for (size_t i = 0; i < ns->inputs.size(); ++i) {
                bool producedInLayer = ns != &a && i < ns->node->inputs.size() && producedBy(layer, ns->node->inputs[i]);
                if (producedInLayer || ns->inputs[i].empty() || (ns != &a && ns->node->opType == "BatchNormalization")) continue;
                if (!ns->inputIsConstant[i]) w.activationReadBytes += npuActivationBytes(ns->inputs[i], rates_);
                else if (ns == &a) w.weightBytes += elements(ns->inputs[i]) * (isBias(n, i) ? 4 : rates_.bytes);
            }
        const NodeShapes& last = *layer.nodes.back();
        for (const Shape& s : last.outputs) w.writeBytes += npuActivationBytes(s, rates_);
        for (const NodeShapes* ns : layer.nodes)
            if (isLookupTableActivation(ns->node->opType) && !ns->outputs.empty()) w.lutElements += elements(ns->outputs[0]);
        if (convertNode(a, graph_).channelScale) {
            w.kind = NpuWorkKind::DepthwiseConv;
            w.conv.batch = a.inputs[0][0];
            w.conv.inChannelsPerGroup = 1;
            w.conv.outChannels = w.conv.groups = a.inputs[0][1];
            w.conv.outH = a.inputs[0][2];
            w.conv.outW = a.inputs[0][3];
            w.macs = elements(a.inputs[0]);
        } else if (convertNode(a, graph_).channelReduction) {
            w.kind = NpuWorkKind::Conv;
            w.conv.inChannelsPerGroup = a.inputs[0][1];
            w.conv.outChannels = 1;
            w.conv.outH = a.inputs[0][2];
            w.conv.outW = a.inputs[0][3];
            w.conv.batch = a.inputs[0][0];
            w.macs = elements(a.inputs[0]);
        } else if (isConvLike(anchorOp)) {
            w.kind = anchorOp == "Depthwise Convolution" ? NpuWorkKind::DepthwiseConv : NpuWorkKind::Conv;
            w.conv = geometry(a);
        } else if (n.opType == "Gemm") {
            w.kind = NpuWorkKind::Conv;
            w.conv = geometry(a);
        } else {
            w.kind = NpuWorkKind::Vector;
            int64_t inElems = 0;
            for (size_t i = 0; i < a.inputs.size(); ++i)
                if (!a.inputIsConstant[i]) inElems += elements(a.inputs[i]);
            w.vectorElements = std::max(inElems, a.outputs.empty() ? 0 : elements(a.outputs[0]));
        }
    }

    /// A pooling window beyond the kernel limit runs as `passes` pooling layers: stride-1 max pools of the limit
    /// each re-read the whole input; a global pool's passes shrink it by up to limit x limit each (first pass
    /// dominates).
    static void cascade(PlannedLayer& layer, const NpuOp& op, int64_t passes) {
        NpuWork& w = layer.work;
        w.passes = passes;
        if (op.name.rfind("Global", 0) != 0) {
            w.vectorElements *= passes;
            w.activationReadBytes *= passes;
            w.writeBytes *= passes;
        }
        layer.rewrite = op.name + " window beyond the limit -> " + std::to_string(passes) + " cascaded " + op.name +
                        " layers";
    }

    /// Ops NC1HWC2 cannot express: a Transpose moving the channel axis, a Reshape changing the channel dimension
    /// or the rank (detection heads' NCHW -> NHWC -> [N, anchors, values]). The converter runs them on a plain
    /// copy, converted out of and back into the NPU layout.
    static bool leavesNativeLayout(const NodeShapes& ns) {
        const Node& n = *ns.node;
        if (ns.inputs.empty() || ns.outputs.empty()) return false;
        const Shape& in = ns.inputs[0];
        const Shape& out = ns.outputs[0];
        if (n.opType == "Transpose") {
            auto perm = n.attrInts("perm");
            return perm.size() >= 2 && perm[1] != 1;
        }
        if (n.opType == "Reshape" || n.opType == "Flatten" || n.opType == "Squeeze" || n.opType == "Unsqueeze")
            return in.size() != out.size() || (in.size() >= 2 && out.size() >= 2 && in[1] != out[1]);
        return false;
    }

    /// A node can join the anchor's layer only if its other operands exist when the anchor runs (for a residual
    /// Add fed by two convs, the conv that runs second takes the Add): every producer after the anchor must be
    /// the node itself or already in the chain (a Swish step's Sigmoid, say).
    bool operandsReady(size_t consumer, size_t anchor, const std::vector<size_t>& chain) const {
        for (const auto& in : nodes_[consumer].node->inputs) {
            auto it = producer_.find(in);
            if (it == producer_.end() || it->second <= anchor || it->second == consumer) continue;
            if (std::find(chain.begin(), chain.end(), it->second) != chain.end()) continue;
            const size_t producer = it->second;
            // Nodes of the same step (the Sigmoid of a Swish) are added with it.
            if (auto pair = swish_.find(producer); pair != swish_.end() && pair->second == consumer) continue;
            return false;
        }
        return true;
    }

    bool producedBy(const PlannedLayer& layer, const std::string& value) const {
        for (const NodeShapes* ns : layer.nodes)
            for (const auto& o : ns->node->outputs)
                if (o == value) return true;
        return false;
    }

    static bool isBias(const Node& n, size_t input) {
        return input == 2 && (n.opType == "Conv" || n.opType == "Gemm" || n.opType == "ConvTranspose");
    }

    ConvGeometry geometry(const NodeShapes& a) const {
        ConvGeometry g;
        const Node& n = *a.node;
        const Shape& in = a.inputs[0];
        const Shape& out = a.outputs[0];
        if (n.opType == "Conv" && a.inputs.size() > 1 && a.inputs[1].size() >= 3 && out.size() >= 3) {
            const Shape& wt = a.inputs[1];
            g.batch = out[0];
            g.groups = n.attrInt("group", 1);
            g.inChannelsPerGroup = wt[1];
            g.outChannels = wt[0];
            g.kernelH = wt[2];
            g.kernelW = wt.size() > 3 ? wt[3] : 1;
            g.outH = out[2];
            g.outW = out.size() > 3 ? out[3] : 1;
        } else if (!in.empty() && !out.empty()) {  // Gemm / MatMul: rows are the pixels, K the input channels
            bool transA = n.opType == "Gemm" && n.attrInt("transA", 0);
            g.inChannelsPerGroup = transA ? in[0] : in.back();
            g.outChannels = out.back();
            g.outH = out.size() >= 2 ? out[out.size() - 2] : 1;
            for (size_t i = 0; i + 2 < out.size(); ++i) g.batch *= out[i];
        }
        return g;
    }

    const std::vector<NodeShapes>& nodes_;
    const Graph& graph_;
    const ChipProfile& chip_;
    const NpuDTypeRates& rates_;
    std::string dtype_;
    std::map<size_t, size_t> swish_;  // Sigmoid -> Mul of x * Sigmoid(x)
    std::set<size_t> cancelledTransposes_;
    std::multimap<std::string, size_t> consumers_;
    std::set<std::string> graphOutputs_;
    std::map<std::string, size_t> producer_;
};

}  // namespace

std::optional<std::string> violatedLimit(const NpuOp& op, const NodeShapes& node) {
    for (const auto& limit : op.limits) {
        auto v = limitValue(limit.key, node);
        if (v && (*v < limit.min || *v > limit.max))
            return limit.key + " = " + std::to_string(*v) + " not in [" + std::to_string(limit.min) + ", " +
                   std::to_string(limit.max) + "]";
    }
    return std::nullopt;
}

std::optional<int64_t> poolingPasses(const NpuOp& op, const NodeShapes& node) {
    const bool global = op.name == "GlobalAveragePool" || op.name == "GlobalMaxPool";
    if (!global && op.name != "MaxPool") return std::nullopt;
    int64_t passes = 1;
    for (const auto& limit : op.limits) {
        auto v = limitValue(limit.key, node);
        if (!v || (*v >= limit.min && *v <= limit.max)) continue;
        const bool window = limit.key == "kernel_h" || limit.key == "kernel_w" ||
                            (global && (limit.key == "input.height" || limit.key == "input.width"));
        if (!window || *v < limit.min || limit.max < 2) return std::nullopt;
        int64_t p = 1;
        if (global)  // each pass pools a window of up to limit.max: covers limit.max^p positions
            for (int64_t covered = limit.max; covered < *v; covered *= limit.max) ++p;
        else  // each stride-1 pass widens the window by limit.max - 1
            p = (*v - 1 + limit.max - 2) / (limit.max - 1);
        passes = std::max(passes, p);
    }
    return passes;
}

std::vector<PlannedLayer> planLayers(const std::vector<NodeShapes>& nodes, const Graph& graph, const ChipProfile& chip,
                                     const std::string& dtype) {
    return Planner(nodes, graph, chip, dtype).run();
}

}  // namespace npuwb
