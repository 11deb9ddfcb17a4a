// Optimizer steps of the "ai.onnx.preview.training" domain: Adagrad, Adam and Momentum. Inputs are
// R (learning rate), T (update count), then groups of per-tensor inputs (X..., G..., [V...], [H...]); the outputs
// are the updated tensors group by group. Computed in double, stored in X's type.
#include <cmath>

#include "ops/Kernel.h"
#include "ops/flow/FlowUtil.h"

namespace npuwb {
namespace {

/// Splits inputs 2.. into `groups` groups of n tensors each and returns n.
size_t tensorsPerGroup(const KernelContext& ctx, size_t groups) {
    size_t rest = ctx.inputCount() >= 2 ? ctx.inputCount() - 2 : 0;
    if (rest == 0 || rest % groups != 0) ctx.fail("expected R, T and " + std::to_string(groups) + " groups of tensors");
    return rest / groups;
}

std::vector<double> groupInput(const KernelContext& ctx, size_t group, size_t n, size_t i) {
    return flow::toDoubles(ctx.input(2 + group * n + i));
}

void setGroupOutput(KernelContext& ctx, size_t group, size_t n, size_t i, const Tensor& like, const std::vector<double>& v) {
    ctx.setOutput(group * n + i, flow::fromDoubles(like.dtype(), like.shape(), v));
}

void adagrad(KernelContext& ctx) {
    size_t n = tensorsPerGroup(ctx, 3);
    double r = ctx.input(0).elementAsDouble(0), t = ctx.input(1).elementAsDouble(0);
    double norm = ctx.attrFloat("norm_coefficient", 0.0f), eps = ctx.attrFloat("epsilon", 1e-6f);
    double decay = ctx.attrFloat("decay_factor", 0.0f);
    double rate = r / (1.0 + t * decay);
    for (size_t i = 0; i < n; ++i) {
        std::vector<double> x = groupInput(ctx, 0, n, i), g = groupInput(ctx, 1, n, i), h = groupInput(ctx, 2, n, i);
        if (g.size() != x.size() || h.size() != x.size()) ctx.fail("X, G and H must have the same shape");
        for (size_t k = 0; k < x.size(); ++k) {
            double grad = norm * x[k] + g[k];
            h[k] += grad * grad;
            x[k] -= rate * grad / (std::sqrt(h[k]) + eps);
        }
        setGroupOutput(ctx, 0, n, i, ctx.input(2 + i), x);
        setGroupOutput(ctx, 1, n, i, ctx.input(2 + i), h);
    }
}

void adam(KernelContext& ctx) {
    size_t n = tensorsPerGroup(ctx, 4);
    double r = ctx.input(0).elementAsDouble(0), t = ctx.input(1).elementAsDouble(0);
    double alpha = ctx.attrFloat("alpha", 0.9f), beta = ctx.attrFloat("beta", 0.999f);
    double eps = ctx.attrFloat("epsilon", 1e-6f), norm = ctx.attrFloat("norm_coefficient", 0.0f);
    double normPost = ctx.attrFloat("norm_coefficient_post", 0.0f);
    // Bias correction of the moments only after the first update.
    double rate = t > 0 ? r * std::sqrt(1.0 - std::pow(beta, t)) / (1.0 - std::pow(alpha, t)) : r;
    for (size_t i = 0; i < n; ++i) {
        std::vector<double> x = groupInput(ctx, 0, n, i), g = groupInput(ctx, 1, n, i);
        std::vector<double> v = groupInput(ctx, 2, n, i), h = groupInput(ctx, 3, n, i);
        if (g.size() != x.size() || v.size() != x.size() || h.size() != x.size()) ctx.fail("X, G, V and H must have the same shape");
        for (size_t k = 0; k < x.size(); ++k) {
            double grad = norm * x[k] + g[k];
            v[k] = alpha * v[k] + (1.0 - alpha) * grad;
            h[k] = beta * h[k] + (1.0 - beta) * grad * grad;
            x[k] = (1.0 - normPost) * (x[k] - rate * v[k] / (std::sqrt(h[k]) + eps));
        }
        const Tensor& like = ctx.input(2 + i);
        setGroupOutput(ctx, 0, n, i, like, x);
        setGroupOutput(ctx, 1, n, i, like, v);
        setGroupOutput(ctx, 2, n, i, like, h);
    }
}

void momentum(KernelContext& ctx) {
    size_t n = tensorsPerGroup(ctx, 3);
    double r = ctx.input(0).elementAsDouble(0), t = ctx.input(1).elementAsDouble(0);
    if (!ctx.hasAttr("alpha") || !ctx.hasAttr("beta") || !ctx.hasAttr("mode") || !ctx.hasAttr("norm_coefficient"))
        ctx.fail("alpha, beta, mode and norm_coefficient are required");
    double alpha = ctx.attrFloat("alpha", 0.0f), beta = ctx.attrFloat("beta", 0.0f);
    double norm = ctx.attrFloat("norm_coefficient", 0.0f);
    std::string mode = ctx.attrString("mode", "standard");
    if (mode != "standard" && mode != "nesterov") ctx.fail("unknown mode '" + mode + "'");
    double gradScale = t > 0 ? beta : 1.0;  // the first update takes the whole gradient
    for (size_t i = 0; i < n; ++i) {
        std::vector<double> x = groupInput(ctx, 0, n, i), g = groupInput(ctx, 1, n, i), v = groupInput(ctx, 2, n, i);
        if (g.size() != x.size() || v.size() != x.size()) ctx.fail("X, G and V must have the same shape");
        for (size_t k = 0; k < x.size(); ++k) {
            double grad = norm * x[k] + g[k];
            v[k] = alpha * v[k] + gradScale * grad;
            x[k] -= mode == "standard" ? r * v[k] : r * (grad + alpha * v[k]);
        }
        const Tensor& like = ctx.input(2 + i);
        setGroupOutput(ctx, 0, n, i, like, x);
        setGroupOutput(ctx, 1, n, i, like, v);
    }
}

}  // namespace

NPUWB_KERNEL_DOMAIN("ai.onnx.preview.training", "Adagrad", adagrad);
NPUWB_KERNEL_DOMAIN("ai.onnx.preview.training", "Adam", adam);
NPUWB_KERNEL_DOMAIN("ai.onnx.preview.training", "Momentum", momentum);

}  // namespace npuwb
