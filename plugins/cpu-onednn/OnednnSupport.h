#pragma once
// Which nodes the oneDNN backend takes (fp32), and the attribute parsing shared by the capability query and the
// segment builder so both agree.
#include <optional>

#include "npuwb/sdk/Backend.h"

namespace npuwb::onednn {

/// 2-D convolution / pooling window geometry in ONNX terms, with pads resolved (auto_pad, ceil_mode).
struct Window {
    std::vector<int64_t> kernel, strides, dilations, padsBegin, padsEnd;
};

/// Resolves a Conv/MaxPool/AveragePool window (1 or 2 spatial dims, as many as `kernel` has) for an input and output
/// shape.
/// Returns nullopt with `why` set when it cannot be expressed.
std::optional<Window> resolveWindow(const Node& node, const Shape& inputShape, const Shape& outputShape,
                                    const std::vector<int64_t>& kernel, std::string& why);

/// ConvTranspose geometry in oneDNN deconvolution terms: output_padding is folded into padsEnd, which is derived from
/// the output size the learning run saw. nullopt with `why` for output_shape, auto_pad or a negative end padding.
std::optional<Window> resolveDeconvWindow(const Node& node, const Shape& inputShape, const Shape& weightShape,
                                          const Shape& outputShape, std::string& why);

/// Clip bounds from attributes (opset < 11) or constant inputs; nullopt when an input bound is not constant.
std::optional<std::pair<float, float>> clipBounds(const NodeQuery& q);
/// Nearest and Linear: oneDNN resampling; LinearAlignCorners: the plugin's own loop (OnednnResizeAlignCorners.cpp).
enum class ResizeKind { Nearest, Linear, LinearAlignCorners };
/// The kernel that computes this Resize exactly as ONNX defines it, if any.
std::optional<ResizeKind> resizeAlgorithm(const NodeQuery& q);
std::string resizeUnsupportedReason(const NodeQuery& q);  // empty when supported

/// The window of a Slice with constant starts/ends/axes/steps and positive steps (the output dims come from the
/// learning run): element `i` of output axis d is input element offsets[d] + i * steps[d]. Nullopt with `why`
/// set otherwise.
struct SliceWindow {
    std::vector<int64_t> offsets;
    std::vector<int64_t> steps;
    bool unitSteps() const;
};
std::optional<SliceWindow> sliceWindow(const NodeQuery& q, std::string& why);

/// A constant-mode Pad: the begin pads per axis (all >= 0) and the fill value; nullopt with `why` otherwise.
struct PadGeometry {
    std::vector<int64_t> begins;
    float fill = 0.0f;
};
std::optional<PadGeometry> padGeometry(const NodeQuery& q, std::string& why);

/// Axis of a Split whose output shapes the learning run gave (normalized); nullopt with `why` otherwise.
std::optional<int64_t> splitAxis(const NodeQuery& q, std::string& why);

/// Axes (non-negative, sorted) a ReduceMean/ReduceSum/ReduceMax/ReduceMin reduces (none given: all of them); nullopt
/// with `why` when they are not constant or noop_with_empty_axes is set.
std::optional<std::vector<int64_t>> reduceAxes(const NodeQuery& q, std::string& why);

/// Pow's exponent when it is a constant scalar (oneDNN eltwise_pow); nullopt otherwise.
std::optional<float> powExponent(const NodeQuery& q);

Capability supportsNode(const NodeQuery& q);

}  // namespace npuwb::onednn
