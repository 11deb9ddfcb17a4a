// fold_pad: a constant-mode Pad of the spatial axes only, read by nothing but one Conv, MaxPool or AveragePool, becomes
// that node's own padding. TensorFlow exports pad explicitly before stride-2 convolutions ('SAME' padding is
// asymmetric); ONNX Runtime folds these too. Exact: the window sees the same values.
//   Conv / AveragePool(count_include_pad=1): the fill must be 0 (AveragePool without pads of its own takes
//     count_include_pad=1, since the explicit zeros were counted);
//   MaxPool: the fill must be -inf (padded positions never win), no Indices output.
// Pools need ceil_mode=0: a ceil-mode window that starts in the (then implicit) end padding is dropped.
// In a QDQ model the Pad may sit before a QuantizeLinear -> DequantizeLinear pair of one zero point: the padded zeros
// quantize to the zero point and come back as exactly 0, so the pair moves before the Pad (then folded) unchanged.
//   before: x -> Pad(pads=[0,0,0,0, 0,0,1,1]) -> Conv(pads=[0,0,0,0], strides=2) -> y
//   after:  x -> Conv(pads=[0,0,1,1], strides=2) -> y
#include <cmath>

#include "passes/PatternPass.h"

namespace npuwb::passes {
namespace {

class FoldPad final : public PatternPass {
public:
    std::string name() const override { return "fold_pad"; }
    std::string description() const override {
        return "Folds a constant Pad of the spatial axes into the padding of the Conv, MaxPool or AveragePool after it";
    }
    void configure(const PassConfig& config) override { opset_ = config.opset; }

protected:
    std::optional<Match> matchAt(const Graph& graph, const GraphIndex& index, const Node& pad) const override {
        if (pad.opType != "Pad" || !pad.domain.empty() || pad.inputs.empty() || pad.outputs.size() != 1)
            return std::nullopt;
        const Node* window = index.singleConsumer(pad.outputs[0]);
        std::vector<std::string> qdq;  // a QuantizeLinear -> DequantizeLinear pair between the Pad and the window
        if (window && window->opType == "QuantizeLinear" && window->domain.empty() && window->outputs.size() == 1) {
            const Node* dq = index.singleConsumer(window->outputs[0]);
            if (dq && dq->opType == "DequantizeLinear" && dq->domain.empty() && dq->outputs.size() == 1 &&
                zeroComesBack(graph, *window, *dq)) {
                qdq = {window->name, dq->name};
                window = index.singleConsumer(dq->outputs[0]);
            }
        }
        std::string what = pad.label() + " folded into the padding of the node after it";
        if (!window || !window->domain.empty() ||
            (window->opType != "Conv" && window->opType != "MaxPool" && window->opType != "AveragePool"))
            return nearMiss({pad.name}, what, "its only reader is not a Conv, MaxPool or AveragePool");
        what = pad.label() + " folded into the padding of " + window->label();
        std::vector<std::string> names{pad.name, window->name};
        names.insert(names.end(), qdq.begin(), qdq.end());
        const std::string& reaching = qdq.empty() ? pad.outputs[0] : findIn(index, qdq[1])->outputs[0];
        if (window->inputs.empty() || window->inputs[0] != reaching)
            return nearMiss(names, what, "the padded value is not the window's data input");
        std::string why;
        if (!newPads(graph, pad, *window, why)) return nearMiss(names, what, why);
        return hit(names, what);
    }

    bool rewrite(Graph& graph, const Match& match) const override {
        const Node pad = *findNode(graph, match.nodes[0]);
        Node* window = findNode(graph, match.nodes[1]);
        std::string why;
        auto pads = newPads(graph, pad, *window, why);
        if (!pads) return false;
        if (match.nodes.size() == 4) {
            findNode(graph, match.nodes[2])->inputs[0] = pad.inputs[0];  // Q(x) -> DQ -> window
            // Q's and DQ's outputs now have the unpadded shape: their recorded types follow.
            const ValueInfo* known = graph.findValueInfo(pad.inputs[0]);
            const std::optional<ValueType> unpadded = known ? std::optional(known->type) : std::nullopt;
            for (size_t k = 2; k < 4; ++k) {
                const std::string& out = findNode(graph, match.nodes[k])->outputs[0];
                auto info = graph.valueInfo.find(out);
                if (info == graph.valueInfo.end()) continue;
                if (!unpadded) {
                    graph.valueInfo.erase(info);
                } else {
                    const DType dtype = info->second.type.dtype;
                    info->second.type = *unpadded;
                    info->second.type.dtype = dtype;
                }
            }
        } else {
            window->inputs[0] = pad.inputs[0];
        }
        window->attributes["pads"] = Attribute::ofInts(*pads);
        window->attributes.erase("auto_pad");  // NOTSET or VALID (no padding), now explicit
        if (window->opType == "AveragePool") window->attributes["count_include_pad"] = Attribute::ofInt(1);
        removeNodes(graph, {pad.name});
        return true;
    }

private:
    static const Node* findIn(const GraphIndex& index, const std::string& name) { return index.node(name); }

    /// DQ(Q(0)) == 0: the pair has one zero point (absent = 0) and Q quantizes per tensor.
    static bool zeroComesBack(const Graph& graph, const Node& q, const Node& dq) {
        if (q.inputs.size() < 2 || dq.inputs.size() < 2 || dq.inputs[0] != q.outputs[0]) return false;
        const Tensor* scale = constantOf(graph, q.inputs[1]);
        if (!scale || scale->numel() != 1) return false;
        auto zeroPoint = [&](const Node& n) -> std::optional<double> {
            if (n.inputs.size() < 3 || n.inputs[2].empty()) return 0.0;
            const Tensor* z = constantOf(graph, n.inputs[2]);
            if (!z || z->numel() != 1) return std::nullopt;
            return z->elementAsDouble(0);
        };
        auto a = zeroPoint(q), b = zeroPoint(dq);
        return a && b && *a == *b;
    }

    /// The window's pads after folding (ONNX order: begins then ends of the spatial axes), or nullopt with `why`.
    std::optional<std::vector<int64_t>> newPads(const Graph& graph, const Node& pad, const Node& window,
                                                std::string& why) const {
        if (pad.attrString("mode", "constant") != "constant") { why = "the Pad mode is not constant"; return {}; }
        std::optional<std::vector<int64_t>> padsIn;
        std::optional<double> fill = 0.0;
        if (opset_ < 11) {
            padsIn = pad.attrInts(pad.hasAttribute("pads") ? "pads" : "paddings");
            fill = pad.attrFloat("value", 0.0f);
        } else {
            padsIn = pad.inputs.size() > 1 ? constantInts(graph, pad.inputs[1]) : std::nullopt;
            if (pad.inputs.size() > 2 && !pad.inputs[2].empty()) {
                const Tensor* v = constantOf(graph, pad.inputs[2]);
                fill = v && v->numel() == 1 && isFloat(v->dtype()) ? std::optional(v->elementAsDouble(0)) : std::nullopt;
            }
        }
        if (!padsIn) { why = "the pads are not a constant"; return {}; }
        if (!fill) { why = "the fill value is not a constant float scalar"; return {}; }
        const auto inputShape = staticShape(graph, pad.inputs[0]);
        const size_t r = padsIn->size() / 2;
        if (inputShape && inputShape->size() != r) { why = "the pads do not match the input rank"; return {}; }
        if (pad.inputs.size() > 3 && !pad.inputs[3].empty()) {
            auto axes = constantInts(graph, pad.inputs[3]);
            std::vector<int64_t> all(r);
            for (size_t i = 0; i < r; ++i) all[i] = static_cast<int64_t>(i);
            if (!axes || *axes != all) { why = "the Pad has an axes input"; return {}; }
        }
        if (r < 3 || padsIn->size() != 2 * r) { why = "the Pad does not pad a tensor with spatial axes"; return {}; }
        const std::vector<int64_t>& p = *padsIn;
        if (p[0] != 0 || p[1] != 0 || p[r] != 0 || p[r + 1] != 0) { why = "the Pad pads the batch or channel axis"; return {}; }
        for (int64_t v : p)
            if (v < 0) { why = "the Pad crops (negative pads)"; return {}; }

        const std::string& op = window.opType;
        if (op == "MaxPool") {
            if (!(std::isinf(*fill) && *fill < 0)) { why = "a MaxPool needs the fill -inf"; return {}; }
            if (window.outputs.size() > 1 && !window.outputs[1].empty()) { why = "the MaxPool's Indices are read"; return {}; }
        } else if (*fill != 0.0) {
            why = "the fill is not 0";
            return {};
        }
        if (op != "Conv" && window.attrInt("ceil_mode", 0) != 0) { why = "the pool uses ceil_mode"; return {}; }
        const std::string autoPad = window.attrString("auto_pad", "NOTSET");
        if (autoPad != "NOTSET" && autoPad != "VALID") { why = "the window uses auto_pad " + autoPad; return {}; }
        const size_t spatial = r - 2;
        std::vector<int64_t> own = autoPad == "VALID" ? std::vector<int64_t>{} : window.attrInts("pads");
        if (own.empty()) own.assign(2 * spatial, 0);
        if (own.size() != 2 * spatial) { why = "the window's pads do not match the rank"; return {}; }
        if (op == "AveragePool" && window.attrInt("count_include_pad", 0) == 0)
            for (int64_t v : own)
                if (v != 0) { why = "the AveragePool has pads of its own that it does not count"; return {}; }
        std::vector<int64_t> kernel = window.attrInts("kernel_shape");
        if (kernel.empty() && op == "Conv" && window.inputs.size() > 1)
            if (const Tensor* w = constantOf(graph, window.inputs[1]); w && w->rank() == r)
                kernel.assign(w->shape().begin() + 2, w->shape().end());
        std::vector<int64_t> dilations = window.attrInts("dilations");
        if (kernel.size() != spatial) { why = "the kernel size is not known"; return {}; }
        std::vector<int64_t> out(2 * spatial);
        for (size_t d = 0; d < spatial; ++d) {
            out[d] = own[d] + p[2 + d];
            out[spatial + d] = own[spatial + d] + p[r + 2 + d];
            const int64_t extent = (kernel[d] - 1) * (d < dilations.size() ? dilations[d] : 1) + 1;
            // ONNX asks pads to be smaller than the window; a window wholly in the padding would differ for pools.
            if (op != "Conv" && (out[d] >= extent || out[spatial + d] >= extent)) {
                why = "the padding would reach past the window";
                return {};
            }
        }
        return out;
    }

    int64_t opset_ = 13;
};

NPUWB_PASS(FoldPad);

}  // namespace
}  // namespace npuwb::passes
