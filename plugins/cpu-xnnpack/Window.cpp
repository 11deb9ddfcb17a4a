#include "Window.h"

namespace npuwb::xnn {
namespace {

struct Axis {
    int64_t in, out, kernel, stride, dilation, padBegin, padEnd;
};

bool resolveAxis(Axis& a, const std::string& autoPad, bool allowCeil, std::string& why) {
    const int64_t extent = (a.kernel - 1) * a.dilation + 1;
    if (autoPad == "VALID") {
        a.padBegin = a.padEnd = 0;
    } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        const int64_t outSame = (a.in + a.stride - 1) / a.stride;
        const int64_t total = std::max<int64_t>(0, (outSame - 1) * a.stride + extent - a.in);
        a.padBegin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
        a.padEnd = total - a.padBegin;
    } else if (autoPad != "NOTSET" && !autoPad.empty()) {
        why = "auto_pad " + autoPad + " not supported";
        return false;
    }
    const int64_t padded = a.in + a.padBegin + a.padEnd;
    if (padded < extent) {
        why = "window larger than the padded input";
        return false;
    }
    const int64_t produced = (padded - extent) / a.stride + 1;
    if (a.out < 0 || produced == a.out) return true;  // out < 0: capability query, size not known yet
    if (allowCeil && a.out == produced + 1) {
        a.padEnd += (a.out - 1) * a.stride + extent - padded;
        return true;
    }
    why = "output size " + std::to_string(a.out) + " does not follow from the window (ceil_mode?)";
    return false;
}

}  // namespace

std::optional<Window> resolveWindow(const Node& node, const Shape& inNchw, const Shape& outNchw, int64_t kernelH,
                                    int64_t kernelW, bool allowCeilPadding, std::string& why) {
    if (inNchw.size() != 4 || outNchw.size() != 4) {
        why = "only 2-D windows (rank-4 tensors) are supported";
        return std::nullopt;
    }
    const std::vector<int64_t> kernel = node.attrInts("kernel_shape", {kernelH, kernelW});
    const std::vector<int64_t> strides = node.attrInts("strides", {1, 1});
    const std::vector<int64_t> dilations = node.attrInts("dilations", {1, 1});
    const std::vector<int64_t> pads = node.attrInts("pads", {0, 0, 0, 0});
    if (kernel.size() != 2 || strides.size() != 2 || dilations.size() != 2 || pads.size() != 4) {
        why = "window attributes are not 2-D";
        return std::nullopt;
    }
    const std::string autoPad = node.attrString("auto_pad", "NOTSET");
    Axis h{inNchw[2], outNchw[2], kernel[0], strides[0], dilations[0], pads[0], pads[2]};
    Axis w{inNchw[3], outNchw[3], kernel[1], strides[1], dilations[1], pads[1], pads[3]};
    for (const Axis* a : {&h, &w})
        if (a->kernel < 1 || a->stride < 1 || a->dilation < 1 || a->padBegin < 0 || a->padEnd < 0) {
            why = "invalid window attributes";
            return std::nullopt;
        }
    if (!resolveAxis(h, autoPad, allowCeilPadding, why) || !resolveAxis(w, autoPad, allowCeilPadding, why))
        return std::nullopt;
    auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
    return Window{u(h.kernel),   u(w.kernel),   u(h.stride),   u(w.stride), u(h.dilation),
                  u(w.dilation), u(h.padBegin), u(w.padBegin), u(h.padEnd), u(w.padEnd)};
}

}  // namespace npuwb::xnn
