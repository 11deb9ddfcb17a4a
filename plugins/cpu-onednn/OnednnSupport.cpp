#include "OnednnSupport.h"

#include <algorithm>
#include <limits>
#include <set>

#include "OnednnQuant.h"

namespace npuwb::onednn {

namespace {

const std::set<std::string> kUnary = {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Exp", "Abs", "Sqrt", "Elu",
                                      "Clip", "HardSwish", "HardSigmoid", "Neg", "Identity", "Erf"};
const std::set<std::string> kBinary = {"Add", "Sub", "Mul", "Div", "Max", "Min"};
const std::set<std::string> kReshapes = {"Flatten", "Reshape", "Squeeze", "Unsqueeze"};

bool allFloat(const NodeQuery& q, size_t count) {
    for (size_t i = 0; i < count && i < q.inputTypes.size(); ++i)
        if (!q.node.inputs[i].empty() && q.inputTypes[i] != DType::F32) return false;
    for (size_t i = 0; i < q.outputTypes.size(); ++i)
        if (!q.node.outputs[i].empty() && q.outputTypes[i] != DType::F32) return false;
    return true;
}

/// True when `small` broadcasts to `big` (numpy rules) without growing it.
bool broadcastsInto(const Shape& small, const Shape& big) {
    if (small.size() > big.size()) return false;
    for (size_t i = 0; i < small.size(); ++i) {
        int64_t s = small[small.size() - 1 - i], b = big[big.size() - 1 - i];
        if (s != b && s != 1) return false;
    }
    return true;
}

/// A Conv (1-D or 2-D: whisper's audio front end is Conv1d) or a 2-D pooling window.
Capability windowed(const NodeQuery& q) {
    const Shape& x = q.inputShapes[0];
    const bool conv = q.node.opType == "Conv";
    if (x.size() != 4 && !(conv && x.size() == 3))
        return Capability::no(conv ? "only 1-D and 2-D spatial (3-D and 4-D tensors) supported"
                                   : "only 2-D spatial (4-D tensors) supported");
    std::vector<int64_t> kernel = q.node.attrInts("kernel_shape");
    if (kernel.empty() && conv && q.inputShapes.size() > 1 && q.inputShapes[1].size() == x.size())
        kernel.assign(q.inputShapes[1].begin() + 2, q.inputShapes[1].end());
    std::string why;
    if (!resolveWindow(q.node, x, q.outputShapes.at(0), kernel, why)) return Capability::no(why);
    return Capability::yes();
}

}  // namespace

std::optional<Window> resolveWindow(const Node& node, const Shape& inputShape, const Shape& outputShape,
                                    const std::vector<int64_t>& kernel, std::string& why) {
    Window w;
    w.kernel = kernel;
    const size_t spatial = kernel.size();
    if ((spatial != 1 && spatial != 2) || inputShape.size() != spatial + 2) {
        why = "kernel_shape must have 1 or 2 dims, one per spatial dim of the input";
        return std::nullopt;
    }
    w.strides = node.attrInts("strides", std::vector<int64_t>(spatial, 1));
    w.dilations = node.attrInts("dilations", std::vector<int64_t>(spatial, 1));
    std::vector<int64_t> pads = node.attrInts("pads", std::vector<int64_t>(2 * spatial, 0));
    if (w.strides.size() != spatial || w.dilations.size() != spatial || pads.size() != 2 * spatial) {
        why = "bad strides/dilations/pads";
        return std::nullopt;
    }
    for (size_t d = 0; d < spatial; ++d)
        if (w.kernel[d] < 1 || w.strides[d] < 1 || w.dilations[d] < 1 || pads[d] < 0 || pads[d + spatial] < 0) {
            why = "kernel, strides and dilations must be positive and pads not negative";
            return std::nullopt;
        }
    const std::string autoPad = node.attrString("auto_pad", "NOTSET");
    const bool ceil = node.attrInt("ceil_mode", 0) != 0;
    w.padsBegin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(spatial));
    w.padsEnd.assign(pads.begin() + static_cast<std::ptrdiff_t>(spatial), pads.end());
    for (size_t d = 0; d < spatial; ++d) {
        int64_t in = inputShape[2 + d], out = outputShape.size() == spatial + 2 ? outputShape[2 + d] : -1;
        int64_t eff = (w.kernel[d] - 1) * w.dilations[d] + 1;
        if (autoPad == "VALID") {
            w.padsBegin[d] = w.padsEnd[d] = 0;
        } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            int64_t total = std::max<int64_t>(0, (out - 1) * w.strides[d] + eff - in);
            w.padsBegin[d] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            w.padsEnd[d] = total - w.padsBegin[d];
        } else if (autoPad != "NOTSET") {
            why = "auto_pad " + autoPad + " not supported";
            return std::nullopt;
        }
        // The output size the learning run saw is the truth; ceil_mode shows up as extra right padding.
        int64_t floorOut = (in + w.padsBegin[d] + w.padsEnd[d] - eff) / w.strides[d] + 1;
        if (out != floorOut) {
            if (!ceil || out != floorOut + 1) { why = "output size does not match the window"; return std::nullopt; }
            w.padsEnd[d] += w.strides[d];
        }
    }
    return w;
}

std::optional<Window> resolveDeconvWindow(const Node& node, const Shape& inputShape, const Shape& weightShape,
                                          const Shape& outputShape, std::string& why) {
    if (node.hasAttribute("output_shape")) { why = "output_shape not supported"; return std::nullopt; }
    if (node.attrString("auto_pad", "NOTSET") != "NOTSET") { why = "auto_pad not supported"; return std::nullopt; }
    if (inputShape.size() != 4 || weightShape.size() != 4 || outputShape.size() != 4) {
        why = "only 2-D spatial (4-D tensors) supported";
        return std::nullopt;
    }
    Window w;
    w.kernel = {weightShape[2], weightShape[3]};
    w.strides = node.attrInts("strides", {1, 1});
    w.dilations = node.attrInts("dilations", {1, 1});
    std::vector<int64_t> pads = node.attrInts("pads", {0, 0, 0, 0});
    if (w.strides.size() != 2 || w.dilations.size() != 2 || pads.size() != 4) { why = "bad strides/dilations/pads"; return std::nullopt; }
    w.padsBegin = {pads[0], pads[1]};
    w.padsEnd = {pads[2], pads[3]};
    for (int d = 0; d < 2; ++d) {
        // out = (in-1)*stride + (k-1)*dil + 1 - begin - end, where ONNX's output_padding shrinks the end padding.
        int64_t full = (inputShape[2 + d] - 1) * w.strides[d] + (w.kernel[d] - 1) * w.dilations[d] + 1;
        w.padsEnd[d] = full - w.padsBegin[d] - outputShape[2 + d];
        if (w.padsEnd[d] < 0) { why = "output_padding beyond the end padding not supported"; return std::nullopt; }
    }
    return w;
}

std::optional<std::pair<float, float>> clipBounds(const NodeQuery& q) {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    if (q.opset < 11) return std::make_pair(q.node.attrFloat("min", lo), q.node.attrFloat("max", hi));
    for (size_t i = 1; i < 3 && i < q.node.inputs.size(); ++i) {
        if (q.node.inputs[i].empty()) continue;
        if (!q.constants[i] || q.constants[i]->numel() != 1) return std::nullopt;
        (i == 1 ? lo : hi) = static_cast<float>(q.constants[i]->elementAsDouble(0));
    }
    return std::make_pair(lo, hi);
}

std::optional<float> powExponent(const NodeQuery& q) {
    if (q.node.inputs.size() < 2 || q.constants.size() < 2 || !q.constants[1] || q.constants[1]->numel() != 1)
        return std::nullopt;
    return static_cast<float>(q.constants[1]->elementAsDouble(0));
}

bool SliceWindow::unitSteps() const {
    return std::all_of(steps.begin(), steps.end(), [](int64_t s) { return s == 1; });
}

std::optional<SliceWindow> sliceWindow(const NodeQuery& q, std::string& why) {
    const Shape& x = q.inputShapes.at(0);
    const int64_t rank = static_cast<int64_t>(x.size());
    auto constantInts = [&](size_t i, const char* attr) -> std::optional<std::vector<int64_t>> {
        if (q.opset < 10) return q.node.attrInts(attr);
        if (i >= q.node.inputs.size() || q.node.inputs[i].empty()) return std::vector<int64_t>{};
        if (!q.constants[i]) return std::nullopt;
        return q.constants[i]->toInt64Vector();
    };
    auto starts = constantInts(1, "starts"), axes = constantInts(3, "axes"), steps = constantInts(4, "steps");
    if (!starts || !axes || !steps || (q.opset >= 10 && !q.constants.at(2))) {
        why = "starts/ends/axes/steps are not constants";
        return std::nullopt;
    }
    for (int64_t step : *steps)
        if (step < 1) { why = "negative steps (reversal) not supported"; return std::nullopt; }
    if (axes->empty())
        for (int64_t a = 0; a < static_cast<int64_t>(starts->size()); ++a) axes->push_back(a);
    if (axes->size() != starts->size() || (!steps->empty() && steps->size() != starts->size())) {
        why = "starts, axes and steps differ in length";
        return std::nullopt;
    }
    SliceWindow w{std::vector<int64_t>(x.size(), 0), std::vector<int64_t>(x.size(), 1)};
    for (size_t i = 0; i < axes->size(); ++i) {
        int64_t axis = (*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i];
        if (axis < 0 || axis >= rank) { why = "axis out of range"; return std::nullopt; }
        const int64_t dim = x[static_cast<size_t>(axis)];
        int64_t start = (*starts)[i] < 0 ? (*starts)[i] + dim : (*starts)[i];
        w.offsets[static_cast<size_t>(axis)] = std::clamp<int64_t>(start, 0, dim);
        if (!steps->empty()) w.steps[static_cast<size_t>(axis)] = (*steps)[i];
    }
    const Shape& y = q.outputShapes.at(0);
    if (y.size() != x.size()) { why = "slice does not fit the input"; return std::nullopt; }
    for (size_t d = 0; d < x.size(); ++d)
        if (y[d] > 0 && w.offsets[d] + (y[d] - 1) * w.steps[d] >= x[d]) {
            why = "slice does not fit the input";
            return std::nullopt;
        }
    return w;
}

std::optional<PadGeometry> padGeometry(const NodeQuery& q, std::string& why) {
    if (q.node.attrString("mode", "constant") != "constant") { why = "only constant padding supported"; return std::nullopt; }
    const Shape& x = q.inputShapes.at(0);
    std::vector<int64_t> pads;
    PadGeometry g;
    if (q.opset < 11) {
        pads = q.node.attrInts(q.node.hasAttribute("pads") ? "pads" : "paddings");
        g.fill = q.node.attrFloat("value", 0.0f);
    } else {
        if (q.node.inputs.size() < 2 || !q.constants[1]) { why = "pads are not a constant"; return std::nullopt; }
        pads = q.constants[1]->toInt64Vector();
        if (q.node.inputs.size() > 2 && !q.node.inputs[2].empty()) {
            if (!q.constants[2] || q.constants[2]->numel() != 1) { why = "the value is not a constant scalar"; return std::nullopt; }
            g.fill = static_cast<float>(q.constants[2]->elementAsDouble(0));
        }
        if (q.node.inputs.size() > 3 && !q.node.inputs[3].empty()) { why = "the axes input is not supported"; return std::nullopt; }
    }
    if (x.empty() || x.size() > 6 || pads.size() != 2 * x.size()) { why = "pads do not match ranks 1-6"; return std::nullopt; }
    for (int64_t p : pads)
        if (p < 0) { why = "negative pads (cropping) not supported"; return std::nullopt; }
    g.begins.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(x.size()));
    const Shape& y = q.outputShapes.at(0);
    for (size_t d = 0; d < x.size(); ++d)
        if (y.size() != x.size() || y[d] != x[d] + pads[d] + pads[d + x.size()]) { why = "output shape does not match the pads"; return std::nullopt; }
    return g;
}

std::optional<int64_t> splitAxis(const NodeQuery& q, std::string& why) {
    const Shape& x = q.inputShapes.at(0);
    int64_t axis = q.node.attrInt("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(x.size());
    if (x.empty() || x.size() > 6 || axis < 0 || axis >= static_cast<int64_t>(x.size())) { why = "bad axis or rank"; return std::nullopt; }
    int64_t total = 0;
    for (size_t i = 0; i < q.outputShapes.size(); ++i) {
        const Shape& y = q.outputShapes[i];
        if (q.node.outputs[i].empty() || y.size() != x.size()) { why = "unnamed or unknown outputs"; return std::nullopt; }
        for (size_t d = 0; d < x.size(); ++d)
            if (static_cast<int64_t>(d) != axis && y[d] != x[d]) { why = "outputs differ outside the axis"; return std::nullopt; }
        total += y[static_cast<size_t>(axis)];
    }
    if (total != x[static_cast<size_t>(axis)]) { why = "outputs do not cover the axis"; return std::nullopt; }
    return axis;
}

std::optional<std::vector<int64_t>> reduceAxes(const NodeQuery& q, std::string& why) {
    const int64_t rank = static_cast<int64_t>(q.inputShapes.at(0).size());
    std::vector<int64_t> axes = q.node.attrInts("axes");
    const bool axesInput = q.node.inputs.size() > 1 && !q.node.inputs[1].empty();
    if (axesInput) {
        if (!q.constants[1]) { why = "axes are not a constant"; return std::nullopt; }
        axes = q.constants[1]->toInt64Vector();
    }
    if (axes.empty()) {
        // No axes: every axis (LPRNet's global-context ReduceMean), unless the node asks to pass its input through.
        if (q.node.attrInt("noop_with_empty_axes", 0) != 0) {
            why = "noop_with_empty_axes not supported";
            return std::nullopt;
        }
        for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
        if (axes.empty()) { why = "a scalar input has no axis to reduce"; return std::nullopt; }
    }
    for (auto& a : axes) {
        if (a < 0) a += rank;
        if (a < 0 || a >= rank) { why = "axis out of range"; return std::nullopt; }
    }
    std::sort(axes.begin(), axes.end());
    return axes;
}

std::optional<ResizeKind> resizeAlgorithm(const NodeQuery& q) {
    if (!resizeUnsupportedReason(q).empty()) return std::nullopt;
    if (q.node.attrString("mode", "nearest") == "nearest") return ResizeKind::Nearest;
    if (q.node.attrString("coordinate_transformation_mode", "half_pixel") == "align_corners")
        return ResizeKind::LinearAlignCorners;
    return ResizeKind::Linear;
}

std::string resizeUnsupportedReason(const NodeQuery& q) {
    const Shape& x = q.inputShapes.at(0);
    const Shape& y = q.outputShapes.at(0);
    if (q.opset < 11) return "Resize before opset 11 not supported";
    if (x.size() != 4 || y.size() != 4 || x[0] != y[0] || x[1] != y[1]) return "only 4-D spatial resizing supported";
    if (shapeNumel(x) == 0) return "empty input";
    // The reference refuses scales that are not positive (an empty output); so does this claim, leaving the
    // verdict to it.
    if (shapeNumel(y) == 0) return "empty output";
    if (q.constants.size() > 2 && q.constants[2] && q.constants[2]->dtype() == DType::F32)
        for (float s : q.constants[2]->values<float>())
            if (!(s > 0)) return "scales must be positive";
    const std::string mode = q.node.attrString("mode", "nearest");
    const std::string ctm = q.node.attrString("coordinate_transformation_mode", "half_pixel");
    if (q.node.attrInt("exclude_outside", 0)) return "exclude_outside not supported";
    if (mode == "nearest") {
        // oneDNN's nearest picks round((o + 0.5) / f - 0.5): the same source as ONNX's asymmetric + floor for
        // whole-number upscaling factors.
        if (ctm != "asymmetric" || q.node.attrString("nearest_mode", "round_prefer_floor") != "floor")
            return "nearest only with asymmetric coordinates and floor rounding";
        for (size_t d = 2; d < 4; ++d)
            if (y[d] % x[d] != 0) return "nearest only for whole-number upscaling";
        return {};
    }
    if (mode == "linear") {  // oneDNN's linear is ONNX's half_pixel (and pytorch_half_pixel when outputs exceed 1)
        if (ctm == "half_pixel" || (ctm == "pytorch_half_pixel" && y[2] > 1 && y[3] > 1)) return {};
        // align_corners (DeepLabV3+'s image pooling branch): the plugin's own loop, the reference's arithmetic in
        // double, so bit for bit its result. Batch and channels must keep scale 1 (taps of weight 1 on themselves).
        if (ctm == "align_corners") {
            if (q.node.hasAttribute("axes") || q.node.attrInt("antialias", 0) != 0 ||
                q.node.attrString("keep_aspect_ratio_policy", "stretch") != "stretch")
                return "linear align_corners only without axes, antialias or keep_aspect_ratio_policy";
            if (q.constants.size() > 2 && q.constants[2] && q.constants[2]->numel() == 4 &&
                (q.constants[2]->elementAsDouble(0) != 1.0 || q.constants[2]->elementAsDouble(1) != 1.0))
                return "linear align_corners only with scale 1 on batch and channels";
            return {};
        }
        return "linear only with half_pixel or align_corners coordinates";
    }
    return "mode " + mode + " not supported";
}

Capability supportsNode(const NodeQuery& q) {
    const std::string& op = q.node.opType;
    if (!q.node.domain.empty()) return Capability::no("domain " + q.node.domain + " not supported");
    if (q.outputShapes.empty() || q.inputShapes.empty()) return Capability::no("no inputs or outputs");
    if (isQuantOp(op)) return supportsPerTensorQdq(q);
    if (isQLinearOp(op)) return supportsQLinearNode(q);
    if (op == "Conv") {
        if (!allFloat(q, 3)) return Capability::no("only float32 supported");
        if (q.inputShapes.size() < 2 || !q.constants[1]) return Capability::no("weights are not a constant initializer");
        if (q.inputShapes.size() > 2 && !q.node.inputs[2].empty() && !q.constants[2])
            return Capability::no("bias is not a constant initializer");
        // Parameters that do not have one value per channel go to the reference kernel, which refuses (or
        // broadcasts) them as the spec says; oneDNN would read past their end.
        if (q.inputShapes.size() > 2 && !q.node.inputs[2].empty() &&
            (q.inputShapes[1].empty() || shapeNumel(q.inputShapes[2]) != q.inputShapes[1][0]))
            return Capability::no("bias does not have one value per output channel");
        // Weights that do not fit the input's channels and the group: the reference kernel names the mismatch.
        const int64_t group = q.node.attrInt("group", 1);
        const Shape &x = q.inputShapes[0], &w = q.inputShapes[1], &y = q.outputShapes[0];
        if (group < 1 || w.size() != x.size() || y.size() != x.size() || x.size() < 3 || w[0] % group != 0 ||
            w[1] * group != x[1] || y[1] != w[0])
            return Capability::no("weights do not match the channels and group");
        return windowed(q);
    }
    if (op == "ConvTranspose") {
        if (!allFloat(q, 3)) return Capability::no("only float32 supported");
        if (q.inputShapes.size() < 2 || !q.constants[1]) return Capability::no("weights are not a constant initializer");
        if (q.inputShapes.size() > 2 && !q.node.inputs[2].empty() && !q.constants[2])
            return Capability::no("bias is not a constant initializer");
        const int64_t group = q.node.attrInt("group", 1);
        const Shape &x = q.inputShapes[0], &w = q.inputShapes[1], &y = q.outputShapes[0];
        if (group < 1 || x.size() != 4 || w.size() != 4 || y.size() != 4 || x[1] % group != 0 || w[0] != x[1] ||
            w[1] * group != y[1])
            return Capability::no("weights do not match the channels and group");
        if (q.inputShapes.size() > 2 && !q.node.inputs[2].empty() && shapeNumel(q.inputShapes[2]) != y[1])
            return Capability::no("bias does not have one value per output channel");
        std::string why;
        if (!resolveDeconvWindow(q.node, q.inputShapes[0], q.inputShapes[1], q.outputShapes[0], why))
            return Capability::no(why);
        return Capability::yes();
    }
    if (op == "MaxPool" || op == "AveragePool") {
        if (!allFloat(q, 1)) return Capability::no("only float32 supported");
        if (q.node.outputs.size() > 1 && !q.node.outputs[1].empty()) return Capability::no("Indices output not supported");
        if (op == "AveragePool" && q.node.attrInt("ceil_mode", 0) && q.node.attrInt("count_include_pad", 0))
            return Capability::no("ceil_mode with count_include_pad not supported");
        if (op == "MaxPool" && q.node.attrInt("storage_order", 0)) return Capability::no("storage_order not supported");
        return windowed(q);
    }
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
        if (!allFloat(q, 1)) return Capability::no("only float32 supported");
        if (q.inputShapes[0].size() != 4) return Capability::no("only 4-D input supported");
        return Capability::yes();
    }
    if (op == "Gemm") {
        if (!allFloat(q, 3)) return Capability::no("only float32 supported");
        if (q.node.attrInt("transA", 0)) return Capability::no("transA not supported");
        if (q.inputShapes.size() < 2 || !q.constants[1]) return Capability::no("B is not a constant initializer");
        if (q.inputShapes.size() > 2 && !q.node.inputs[2].empty()) {
            if (!q.constants[2]) return Capability::no("C is not a constant initializer");
            const Shape& c = q.inputShapes[2];
            int64_t n = q.outputShapes[0].at(1);
            if (shapeNumel(c) != n || (c.size() == 2 && c[0] != 1)) return Capability::no("C must be a bias of N values");
        }
        return Capability::yes();
    }
    if (op == "MatMul") {
        if (!allFloat(q, 2)) return Capability::no("only float32 supported");
        const Shape &a = q.inputShapes[0], &b = q.inputShapes[1];
        if (a.size() < 2 || b.size() < 2 || a.size() > 4 || b.size() > 4) return Capability::no("ranks 2-4 supported");
        return Capability::yes();
    }
    if (op == "Softmax") {
        if (!allFloat(q, 1)) return Capability::no("only float32 supported");
        int64_t rank = static_cast<int64_t>(q.inputShapes[0].size());
        int64_t axis = q.node.attrInt("axis", q.opset >= 13 ? -1 : 1);
        if (axis < 0) axis += rank;
        if (q.opset < 13 && axis != rank - 1) return Capability::no("opset < 13 Softmax only on the last axis");
        if (axis < 0 || axis >= rank) return Capability::no("bad axis");
        return Capability::yes();
    }
    if (op == "LayerNormalization") {  // oneDNN layer normalization over the flattened axes from `axis` on
        if (!allFloat(q, 3)) return Capability::no("only float32 supported");
        for (size_t i = 1; i < q.node.outputs.size(); ++i)
            if (!q.node.outputs[i].empty()) return Capability::no("the Mean/InvStdDev outputs are not supported");
        const Shape& x = q.inputShapes[0];
        int64_t axis = q.node.attrInt("axis", -1);
        if (axis < 0) axis += static_cast<int64_t>(x.size());
        if (axis < 0 || axis >= static_cast<int64_t>(x.size())) return Capability::no("bad axis");
        const Shape normalized(x.begin() + axis, x.end());
        const int64_t cols = shapeNumel(normalized);
        if (cols == 0) return Capability::no("nothing to normalize");
        for (size_t i = 1; i < 3 && i < q.node.inputs.size(); ++i) {  // broadcast ones are left to the reference
            if (q.node.inputs[i].empty()) continue;
            const Shape& p = q.inputShapes[i];
            const bool full = p.size() <= normalized.size() &&
                              Shape(normalized.end() - static_cast<std::ptrdiff_t>(p.size()), normalized.end()) == p &&
                              shapeNumel(p) == cols;
            if (!q.constants[i] || !full) return Capability::no("scale/bias are not constants of the normalized shape");
        }
        return Capability::yes();
    }
    if (op == "Concat") {
        if (!allFloat(q, q.inputShapes.size())) return Capability::no("only float32 supported");
        for (const auto& s : q.inputShapes)
            if (s.size() != q.outputShapes[0].size() || shapeNumel(s) == 0) return Capability::no("empty input");
        return Capability::yes();
    }
    if (kUnary.count(op)) {
        if (!allFloat(q, 1)) return Capability::no("only float32 supported");
        if (op == "Clip" && !clipBounds(q)) return Capability::no("min/max are not constants");
        return Capability::yes();
    }
    if (op == "Pow") {
        if (!allFloat(q, 1)) return Capability::no("only float32 supported");
        if (!powExponent(q)) return Capability::no("exponent is not a constant scalar");
        if (q.inputShapes[0] != q.outputShapes[0]) return Capability::no("exponent broadcasts the base");
        return Capability::yes();
    }
    if (kBinary.count(op)) {
        if (!allFloat(q, 2)) return Capability::no("only float32 supported");
        const Shape& out = q.outputShapes[0];
        if (out.size() > 5 || out.empty()) return Capability::no("ranks 1-5 supported");
        bool aFull = q.inputShapes[0] == out, bFull = q.inputShapes[1] == out;
        if (op == "Sub" && !aFull && bFull && q.constants[0] && q.constants[0]->numel() == 1)
            return Capability::yes();  // c - x (BERT's 1 - mask): a linear eltwise
        bool commutative = op == "Add" || op == "Mul" || op == "Max" || op == "Min";
        if (!aFull && !(bFull && commutative)) return Capability::no("first operand must have the output shape");
        if (!broadcastsInto(q.inputShapes[aFull ? 1 : 0], out)) return Capability::no("unsupported broadcast");
        return Capability::yes();
    }
    if (op == "Resize") {
        if (!allFloat(q, 1)) return Capability::no("only float32 supported");
        if (!resizeAlgorithm(q)) return Capability::no(resizeUnsupportedReason(q));
        for (size_t i = 1; i < q.node.inputs.size(); ++i)
            if (!q.node.inputs[i].empty() && !q.constants[i]) return Capability::no("roi/scales/sizes are not constants");
        return Capability::yes();
    }
    if (op == "BatchNormalization") {  // folded into a preceding Conv, else oneDNN batch normalization
        if (!allFloat(q, 5)) return Capability::no("only float32 supported");
        if (q.node.outputs.size() > 1 && !q.node.outputs[1].empty()) return Capability::no("training outputs not supported");
        for (size_t i = 1; i < 5; ++i)
            if (i >= q.constants.size() || !q.constants[i]) return Capability::no("scale/bias/mean/var are not constants");
        if (q.inputShapes[0].size() < 2 || q.inputShapes[0].size() > 5) return Capability::no("ranks 2-5 supported");
        for (size_t i = 1; i < 5; ++i)  // as for Conv's bias: the reference kernel judges other sizes
            if (shapeNumel(q.inputShapes[i]) != q.inputShapes[0][1])
                return Capability::no("scale/bias/mean/var do not have one value per channel");
        return Capability::yes();
    }
    if (kReshapes.count(op)) {
        if (!allFloat(q, 1)) return Capability::no("only float32 supported");
        // A computed target shape or axes would be a non-float segment input; shape folding makes most constant.
        for (size_t i = 1; i < q.node.inputs.size(); ++i)
            if (!q.node.inputs[i].empty() && !q.constants[i]) return Capability::no("shape/axes input is not a constant");
        return Capability::yes();  // the learning run gave the output shape; data is reinterpreted
    }
    if (op == "Slice") {
        if (!allFloat(q, 1)) return Capability::no("only float32 supported");
        std::string why;
        if (!sliceWindow(q, why)) return Capability::no(why);
        if (shapeNumel(q.outputShapes[0]) == 0) return Capability::no("empty output");
        return Capability::yes();
    }
    if (op == "ReduceMean" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin") {
        if (!allFloat(q, 1)) return Capability::no("only float32 supported");
        std::string why;
        if (!reduceAxes(q, why)) return Capability::no(why);
        if (q.inputShapes[0].size() > 5) return Capability::no("ranks up to 5 supported");
        if (shapeNumel(q.inputShapes[0]) == 0) return Capability::no("empty input");
        return Capability::yes();
    }
    if (op == "Pad" || op == "Split") {
        if (!allFloat(q, 1)) return Capability::no("only float32 supported");
        // Computed pads or split sizes would be non-float segment inputs; shape folding makes most constant.
        for (size_t i = 1; i < q.node.inputs.size(); ++i)
            if (!q.node.inputs[i].empty() && !q.constants[i]) return Capability::no("pads/split input is not a constant");
        std::string why;
        if (op == "Pad" ? !padGeometry(q, why).has_value() : !splitAxis(q, why).has_value()) return Capability::no(why);
        if (shapeNumel(q.inputShapes[0]) == 0) return Capability::no("empty input");
        return Capability::yes();
    }
    if (op == "Gather") {  // constant indices (a class token, a head) or a run's token ids: a copy per block
        if (q.inputTypes[0] != DType::F32 || q.outputTypes[0] != DType::F32) return Capability::no("only float32 data");
        if (q.inputShapes.size() < 2) return Capability::no("no indices");
        const Shape& x = q.inputShapes[0];
        int64_t axis = q.node.attrInt("axis", 0);
        if (axis < 0) axis += static_cast<int64_t>(x.size());
        if (axis < 0 || axis >= static_cast<int64_t>(x.size())) return Capability::no("bad axis");
        if (shapeNumel(q.outputShapes[0]) == 0) return Capability::no("empty output");
        if (!q.constants[1]) {  // checked when the run gives them
            if (q.inputTypes[1] != DType::I64 && q.inputTypes[1] != DType::I32)
                return Capability::no("indices are neither int64 nor int32");
            return Capability::yes();
        }
        for (int64_t i : q.constants[1]->toInt64Vector())  // the reference kernel reports a bad index
            if (i < -x[static_cast<size_t>(axis)] || i >= x[static_cast<size_t>(axis)])
                return Capability::no("index out of range");
        return Capability::yes();
    }
    if (op == "Cast") {  // integer inputs (attention masks, ids) to float; float to fp16 and back (held as float)
        const DType from = q.inputTypes[0], to = q.outputTypes[0];
        const bool fromInt = (from == DType::I64 || from == DType::I32) && to == DType::F32;
        const bool half = (from == DType::F32 && to == DType::F16) || (from == DType::F16 && to == DType::F32);
        if (!fromInt && !half) return Capability::no("only int64 or int32 to float32, and float32 <-> float16");
        if (q.constants[0]) return Capability::no("a constant input (folded before the run)");
        if (shapeNumel(q.outputShapes[0]) == 0) return Capability::no("empty output");
        return Capability::yes();
    }
    if (op == "Where") {  // a constant condition (attention masks) choosing between values or scalar constants
        if (q.inputShapes.size() != 3 || !q.constants[0]) return Capability::no("condition is not a constant");
        const Shape& y = q.outputShapes[0];
        if (q.outputTypes[0] != DType::F32 || y.size() > 6) return Capability::no("only float32 up to rank 6");
        if (!broadcastsInto(q.inputShapes[0], y)) return Capability::no("unsupported broadcast");
        for (size_t i = 1; i < 3; ++i) {
            const bool scalar = q.constants[i] && q.constants[i]->numel() == 1;
            if (q.inputTypes[i] != DType::F32 || (!scalar && q.inputShapes[i] != y))
                return Capability::no("values must be float32 of the output shape or constant scalars");
        }
        return Capability::yes();
    }
    if (op == "Transpose") {
        if (!allFloat(q, 1)) return Capability::no("only float32 supported");
        if (q.inputShapes[0].size() > 6) return Capability::no("ranks up to 6 supported");
        return Capability::yes();
    }
    return Capability::no("operator not implemented by cpu-onednn");
}

}  // namespace npuwb::onednn
