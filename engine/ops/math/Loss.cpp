// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss over [N, C, d1..dk] scores and [N, d1..dk] targets,
// with optional per-class weights, ignore_index and reduction none / sum / mean (mean divides by the total
// weight of the targets that were not ignored, as the ONNX reference does).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "ops/math/MathUtil.h"

namespace npuwb::math {
namespace {

/// loss[n, d] = -weight[t] * logProb[n, t, d] with t = target[n, d], then the reduction.
template <class T>
Tensor nllLoss(const KernelContext& ctx, const std::vector<double>& logProb, const Shape& inShape, const Tensor& target) {
    if (inShape.size() < 2) ctx.fail("input must have shape [N, C, d1, ...]");
    int64_t n = inShape[0], classes = inShape[1];
    int64_t inner = 1;
    for (size_t d = 2; d < inShape.size(); ++d) inner *= inShape[d];
    Shape expectedTarget = {n};
    expectedTarget.insert(expectedTarget.end(), inShape.begin() + 2, inShape.end());
    if (target.shape() != expectedTarget)
        ctx.fail("target shape " + shapeToString(target.shape()) + " does not match " + shapeToString(expectedTarget));
    std::vector<int64_t> labels = target.toInt64Vector();

    std::vector<double> weights;
    if (ctx.hasInput(2)) {
        const Tensor& w = ctx.input(2);
        if (w.numel() != classes) ctx.fail("weight must have C elements");
        for (int64_t c = 0; c < classes; ++c) weights.push_back(w.elementAsDouble(c));
    }
    bool hasIgnore = ctx.hasAttr("ignore_index");
    int64_t ignoreIndex = ctx.attrInt("ignore_index", 0);
    std::string reduction = ctx.attrString("reduction", "mean");
    if (reduction != "none" && reduction != "sum" && reduction != "mean")
        ctx.fail("reduction must be none, sum or mean, got '" + reduction + "'");

    std::vector<double> loss(labels.size(), 0.0);
    double weightSum = 0.0, lossSum = 0.0;
    for (int64_t b = 0; b < n; ++b) {
        for (int64_t i = 0; i < inner; ++i) {
            size_t at = static_cast<size_t>(b * inner + i);
            int64_t label = labels[at];
            if (hasIgnore && label == ignoreIndex) continue;
            if (label < 0 || label >= classes)
                ctx.fail("target " + std::to_string(label) + " is outside [0, " + std::to_string(classes) + ")");
            double w = weights.empty() ? 1.0 : weights[static_cast<size_t>(label)];
            loss[at] = -w * logProb[static_cast<size_t>((b * classes + label) * inner + i)];
            weightSum += w;
            lossSum += loss[at];
        }
    }
    if (reduction == "none") {
        Tensor out(dtypeOf<T>, expectedTarget);
        for (size_t i = 0; i < loss.size(); ++i) out.data<T>()[i] = static_cast<T>(loss[i]);
        return out;
    }
    double r = reduction == "sum" ? lossSum : lossSum / weightSum;  // 0/0 gives NaN like the reference
    return Tensor::scalar<T>(static_cast<T>(r));
}

void negativeLogLikelihoodLoss(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    visitFloat(x.dtype(), [&]<typename T>() {
        std::vector<double> logProb(static_cast<size_t>(x.numel()));
        for (int64_t i = 0; i < x.numel(); ++i) logProb[static_cast<size_t>(i)] = static_cast<double>(x.data<T>()[i]);
        ctx.setOutput(0, nllLoss<T>(ctx, logProb, x.shape(), ctx.input(1)));
    }, "NegativeLogLikelihoodLoss");
}

/// Log-softmax over the class axis (1), then NLL; output 1 (optional) is the log-probabilities.
void softmaxCrossEntropyLoss(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.rank() < 2) ctx.fail("scores must have shape [N, C, d1, ...]");
    int64_t n = x.dim(0), classes = x.dim(1), inner = x.numel() / std::max<int64_t>(1, n * classes);
    visitFloat(x.dtype(), [&]<typename T>() {
        const T* in = x.data<T>();
        std::vector<double> logProb(static_cast<size_t>(x.numel()));
        for (int64_t b = 0; b < n; ++b) {
            for (int64_t i = 0; i < inner; ++i) {
                auto at = [&](int64_t c) { return static_cast<size_t>((b * classes + c) * inner + i); };
                double maxValue = -std::numeric_limits<double>::infinity();
                for (int64_t c = 0; c < classes; ++c) maxValue = std::max(maxValue, static_cast<double>(in[at(c)]));
                double sum = 0.0;
                for (int64_t c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(in[at(c)]) - maxValue);
                double logSum = std::log(sum);
                for (int64_t c = 0; c < classes; ++c) logProb[at(c)] = static_cast<double>(in[at(c)]) - maxValue - logSum;
            }
        }
        ctx.setOutput(0, nllLoss<T>(ctx, logProb, x.shape(), ctx.input(1)));
        if (ctx.wantsOutput(1)) {
            Tensor lp(x.dtype(), x.shape());
            for (size_t i = 0; i < logProb.size(); ++i) lp.data<T>()[i] = static_cast<T>(logProb[i]);
            ctx.setOutput(1, std::move(lp));
        }
    }, "SoftmaxCrossEntropyLoss");
}

}  // namespace

NPUWB_KERNEL("NegativeLogLikelihoodLoss", negativeLogLikelihoodLoss);
NPUWB_KERNEL("SoftmaxCrossEntropyLoss", softmaxCrossEntropyLoss);

}  // namespace npuwb::math
