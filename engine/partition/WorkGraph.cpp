#include "partition/WorkGraph.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "npuwb/ChipProfile.h"
#include "npuwb/CostModel.h"
#include "npuwb/Error.h"
#include "npuwb/ModelSummary.h"
#include "perfmodel/LayerShapes.h"

namespace npuwb::partition {

namespace {

DType valueDType(const Graph& g, const std::string& name) {
    if (auto it = g.initializers.find(name); it != g.initializers.end()) return it->second.dtype();
    if (const ValueInfo* vi = g.findValueInfo(name); vi && vi->type.dtype != DType::Undefined) return vi->type.dtype;
    return DType::F32;
}

int64_t shapeBytes(const Shape& s, DType dtype) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n * static_cast<int64_t>(dtype == DType::String ? 0 : dtypeSize(dtype));
}

std::string format(const char* fmt, double a, double b = 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, fmt, a, b);
    return buf;
}

void rooflineCosts(WorkGraph& work, const DeviceProfile& device, const DeviceUnit& unit, size_t u) {
    for (WorkNode& n : work.nodes) {
        if (n.constantOnly) {
            n.costUs[u] = 0;
            n.costNote[u] = "constant (folded)";
            continue;
        }
        if (!n.foldedInto.empty()) {
            n.costUs[u] = 0;
            n.costNote[u] = "folded into '" + n.foldedInto + "' (transposed B)";
            continue;
        }
        const std::string& level = unit.affinity.at(n.opClass);
        if (level == "none") {
            n.costUs[u] = kCannotRun;
            n.costNote[u] = unit.name + " cannot run " + n.opClass + " ops";
            continue;
        }
        const MeasuredOpLatency* measured = nullptr;
        for (const auto& m : unit.measured)
            if (m.opType == n.opType) measured = &m;
        if (measured) {
            int64_t refElements = 1;
            for (int64_t d : measured->inputShape) refElements *= d;
            double scale = refElements > 0 && n.firstInputElements > 0
                               ? double(n.firstInputElements) / double(refElements) : 1.0;
            n.costUs[u] = measured->us * scale;
            n.costNote[u] = "measured " + n.opType + " " + shapeToString(measured->inputShape) +
                            format(": %.0f us, x %.3g for this shape", measured->us, scale);
            continue;
        }
        double factor = device.affinityFactors.at(level);
        double computeUs = double(n.macs) / (unit.gmacsPerSecond * 1e3);
        double memoryUs = double(n.bytesMoved) / (unit.gbytesPerSecond * 1e3);
        n.costUs[u] = unit.opOverheadUs + factor * std::max(computeUs, memoryUs);
        n.costNote[u] = n.opClass + " " + level + format(" (x%.3g): ", factor) +
                        (computeUs >= memoryUs ? format("%.0f MMAC at %.0f GMAC/s", double(n.macs) / 1e6, unit.gmacsPerSecond)
                                               : format("%.2f MB at %.0f GB/s", double(n.bytesMoved) / 1e6,
                                                        unit.gbytesPerSecond));
    }
}

/// The chip profile's per-layer NPU estimate: a layer's time goes to its anchor node, nodes fused into it cost
/// nothing more, and nodes the estimate puts on the chip's CPU cannot run on the NPU unit.
void chipCosts(WorkGraph& work, const DeviceProfile& device, const DeviceUnit& unit, size_t u) {
    ChipProfile chip = findChipProfile(device.chip);
    EstimateOptions options;
    options.dtype = unit.chipDtype;
    Report estimate = estimateModel(*work.model, chip, options);
    std::map<std::string, const LayerRow*> anchors, fused;
    for (const LayerRow& row : estimate.layers) {
        anchors[row.fullName] = &row;
        for (const auto& f : row.fusedNodes) fused[f] = &row;
    }
    for (WorkNode& n : work.nodes) {
        if (auto it = anchors.find(n.name); it != anchors.end()) {
            const LayerRow& row = *it->second;
            if (row.target != "NPU") {
                n.costUs[u] = kCannotRun;
                n.costNote[u] = "not on " + chip.name + "'s NPU (its estimate runs it on the CPU)";
            } else {
                n.costUs[u] = row.timeUs;
                n.costNote[u] = chip.name + " cost model: " + row.opType + format(", %.0f us", row.timeUs);
            }
        } else if (auto f = fused.find(n.name); f != fused.end()) {
            n.costUs[u] = 0;
            n.costNote[u] = "fused into " + f->second->fullName + " on " + chip.name;
        } else {
            n.costUs[u] = 0;
            n.costNote[u] = "folded by the " + chip.name + " converter";
        }
    }
}

bool swapsLastTwoAxes(const Node& n, size_t rank) {
    std::vector<int64_t> perm = n.attrInts("perm");
    if (rank < 2 || perm.size() != rank) return false;
    for (size_t i = 0; i + 2 < rank; ++i)
        if (perm[i] != int64_t(i)) return false;
    return perm[rank - 2] == int64_t(rank - 1) && perm[rank - 1] == int64_t(rank - 2);
}

/// Marks Transposes folded into the MatMuls that read them as B (WorkNode::foldedInto).
void foldTransposedGemmInputs(WorkGraph& work, const std::vector<NodeShapes>& shapes) {
    std::map<std::string, std::vector<std::pair<const Node*, size_t>>> readers;
    for (const NodeShapes& ns : shapes)
        for (size_t i = 0; i < ns.node->inputs.size(); ++i) readers[ns.node->inputs[i]].push_back({ns.node, i});
    for (size_t k = 0; k < work.nodes.size(); ++k) {
        const Node& node = *shapes[k].node;
        if (node.opType != "Transpose" || node.outputs.empty() || shapes[k].outputs.empty()) continue;
        if (!swapsLastTwoAxes(node, shapes[k].outputs[0].size()) || work.values[node.outputs[0]].graphOutput) continue;
        const auto& users = readers[node.outputs[0]];
        bool onlyGemmB = !users.empty();
        for (const auto& [user, index] : users) onlyGemmB = onlyGemmB && user->opType == "MatMul" && index == 1;
        if (onlyGemmB) work.nodes[k].foldedInto = users.front().first->layerName();
    }
}

/// Names read inside `body` (recursively) that it does not define itself.
void outerNames(const Graph& body, std::set<std::string>& out) {
    std::set<std::string> defined;
    for (const auto& in : body.inputs) defined.insert(in.name);
    for (const auto& [name, t] : body.initializers) defined.insert(name);
    for (const auto& n : body.nodes)
        for (const auto& o : n.outputs) defined.insert(o);
    for (const auto& n : body.nodes) {
        std::set<std::string> reads(n.inputs.begin(), n.inputs.end());
        for (const auto& [attr, a] : n.attributes) {
            if (a.g) outerNames(*a.g, reads);
            for (const auto& g : a.graphs) outerNames(*g, reads);
        }
        for (const auto& r : reads)
            if (!r.empty() && !defined.count(r)) out.insert(r);
    }
}

}  // namespace

std::vector<std::string> nodeReads(const Node& node) {
    std::vector<std::string> reads;
    for (const auto& in : node.inputs)
        if (!in.empty()) reads.push_back(in);
    std::set<std::string> implicit;
    for (const auto& [attr, a] : node.attributes) {
        if (a.g) outerNames(*a.g, implicit);
        for (const auto& g : a.graphs) outerNames(*g, implicit);
    }
    for (const auto& name : implicit)
        if (std::find(reads.begin(), reads.end(), name) == reads.end()) reads.push_back(name);
    return reads;
}

WorkGraph buildWorkGraph(std::shared_ptr<const Model> model, const DeviceProfile& device,
                         const std::vector<std::string>& units, int64_t symbolicDimValue) {
    WorkGraph work;
    work.model = model;
    work.units = units;
    const Graph& g = model->graph;
    work.shapes = learnShapes(*model, ShapeLearningOptions{.symbolicDimValue = symbolicDimValue});
    std::vector<NodeShapes> shapes = resolveLayerShapes(*model, work.shapes);
    std::set<std::string> graphOutputs;
    for (const auto& o : g.outputs) graphOutputs.insert(o.name);
    for (const auto& in : g.inputs)
        if (!g.initializers.count(in.name)) work.values[in.name].producer = -1;
    for (const NodeShapes& ns : shapes) {
        const Node& node = *ns.node;
        WorkNode n;
        n.graphIndex = static_cast<size_t>(ns.node - g.nodes.data());
        n.name = node.layerName();
        n.opType = node.opType;
        n.opClass = opClassOf(node.opType, device);
        n.constantOnly = true;
        std::vector<Shape> inShapes, outShapes;
        for (size_t i = 0; i < node.inputs.size(); ++i) {
            const std::string& in = node.inputs[i];
            Shape s = i < ns.inputs.size() ? ns.inputs[i] : Shape{};
            inShapes.push_back(s);
            if (in.empty()) continue;
            n.bytesMoved += shapeBytes(s, valueDType(g, in));
            bool constant = i < ns.inputIsConstant.size() && ns.inputIsConstant[i];
            if (!constant) {
                n.constantOnly = false;
                n.inputs.push_back(in);
            }
            if (i == 0) n.firstInputElements = shapeBytes(s, DType::U8);
        }
        for (size_t i = 0; i < node.outputs.size(); ++i) {
            Shape s = i < ns.outputs.size() ? ns.outputs[i] : Shape{};
            outShapes.push_back(s);
            const std::string& out = node.outputs[i];
            if (out.empty()) continue;
            int64_t bytes = shapeBytes(s, valueDType(g, out));
            n.bytesMoved += bytes;
            WorkValue& v = work.values[out];
            v.bytes = bytes;
            v.producer = static_cast<int>(work.nodes.size());
            v.graphOutput = graphOutputs.count(out) > 0;
            n.outputs.push_back(out);
        }
        // Outer-scope values its subgraphs read are inputs too (they must reach the unit that runs it).
        for (const auto& name : nodeReads(node)) {
            bool explicitInput = std::find(node.inputs.begin(), node.inputs.end(), name) != node.inputs.end();
            if (explicitInput || g.initializers.count(name) || !work.values.count(name)) continue;
            if (std::find(n.inputs.begin(), n.inputs.end(), name) == n.inputs.end()) n.inputs.push_back(name);
        }
        // A node without inputs (Constant) makes a constant; nodes reading only constants fold away.
        if (node.inputs.empty() && !node.outputs.empty()) n.constantOnly = true;
        n.macs = nodeMacs(node, inShapes, outShapes);
        n.costUs.assign(units.size(), 0.0);
        n.costNote.assign(units.size(), "");
        work.nodes.push_back(std::move(n));
    }
    foldTransposedGemmInputs(work, shapes);
    for (WorkNode& n : work.nodes)  // values of constant nodes are not handed between units
        if (n.constantOnly)
            for (const auto& out : n.outputs) work.values[out].bytes = 0;
    for (const auto& in : g.inputs)
        if (auto it = work.values.find(in.name); it != work.values.end() && it->second.producer < 0) {
            if (const ValueInfo* vi = g.findValueInfo(in.name); vi && vi->type.shape) {
                Shape s;
                for (const Dim& d : *vi->type.shape) s.push_back(d.known() ? d.value : symbolicDimValue);
                it->second.bytes = shapeBytes(s, valueDType(g, in.name));
            }
        }
    return work;
}

void fillModelledCosts(WorkGraph& work, const DeviceProfile& device) {
    work.stageOverheadUs.assign(work.units.size(), 0.0);
    for (size_t u = 0; u < work.units.size(); ++u) {
        const DeviceUnit* unit = device.unit(work.units[u]);
        if (!unit) failInput("device profile '" + device.sourcePath + "' has no unit '" + work.units[u] + "'");
        work.stageOverheadUs[u] = unit->stageOverheadUs;
        if (unit->costs == "roofline") rooflineCosts(work, device, *unit, u);
        if (unit->costs == "chip") chipCosts(work, device, *unit, u);
    }
}

double transferUs(int64_t bytes, const TransferCost& transfer) {
    return transfer.gbytesPerSecond > 0 ? double(bytes) / (transfer.gbytesPerSecond * 1e3) : 0.0;
}

}  // namespace npuwb::partition
