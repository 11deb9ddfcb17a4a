// Activation functions: Relu Clip Sigmoid HardSigmoid HardSwish LeakyRelu PRelu Tanh Softplus Softsign Elu Selu
// Celu ThresholdedRelu Shrink Mish. Float math happens in double and rounds once into the element type.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ops/math/MathUtil.h"

namespace npuwb::math {
namespace {

/// Applies f(double x) -> double to every element of a float tensor.
template <class F> void floatActivation(KernelContext& ctx, F&& f) {
    const Tensor& x = ctx.input(0);
    visitFloat(x.dtype(), [&]<typename T>() {
        ctx.setOutput(0, mapUnary<T, T>(x, [&](T v) { return static_cast<T>(f(static_cast<double>(v))); }));
    }, ctx.node().opType);
}

void relu(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (ctx.shapesOnly()) return ctx.setOutputShape(0, x.dtype(), x.shape());
    visitNumeric(x.dtype(), [&]<typename T>() {
        ctx.setOutput(0, mapUnary<T, T>(x, [](T v) {
            Acc<T> a = widen(v);
            return a > Acc<T>(0) ? v : (std::isnan(static_cast<double>(a)) ? v : T(0));
        }));
    }, "Relu");
}

/// Clip bounds come from attributes before opset 11 and from optional scalar inputs 1 and 2 afterwards.
void clip(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    visitNumeric(x.dtype(), [&]<typename T>() {
        using A = Acc<T>;
        A lo = std::numeric_limits<A>::lowest();
        A hi = std::numeric_limits<A>::max();
        if constexpr (isFloatLike<T>) { lo = -std::numeric_limits<A>::infinity(); hi = std::numeric_limits<A>::infinity(); }
        if (ctx.opset() < 11) {
            if (ctx.hasAttr("min")) lo = static_cast<A>(ctx.attrFloat("min", 0.0f));
            if (ctx.hasAttr("max")) hi = static_cast<A>(ctx.attrFloat("max", 0.0f));
        } else {
            auto bound = [&](size_t i, A& out) {
                if (!ctx.hasInput(i)) return;
                const Tensor& t = ctx.input(i);
                if (t.numel() != 1) ctx.fail("min and max must be scalars");
                if (t.dtype() != x.dtype()) ctx.fail("min and max must have the input's element type");
                out = widen(t.data<T>()[0]);
            };
            bound(1, lo);
            bound(2, hi);
        }
        ctx.setOutput(0, mapUnary<T, T>(x, [&](T v) {
            A a = widen(v);
            if constexpr (isFloatLike<T>)
                if (std::isnan(a)) return v;
            return static_cast<T>(std::min(std::max(a, lo), hi));  // numpy.clip: max then min
        }));
    }, "Clip");
}

/// PRelu: y = x < 0 ? slope * x : x with slope broadcast to x. Before opset 7 a 1-D slope of length C meant
/// one slope per channel (axis 1).
void prelu(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    Tensor slope = ctx.input(1);
    if (slope.dtype() != x.dtype()) ctx.fail("slope must have the input's element type");
    if (ctx.opset() < 7 && slope.rank() == 1 && x.rank() >= 2 && slope.numel() > 1 && slope.numel() == x.dim(1)) {
        Shape perChannel(x.rank() - 1, 1);
        perChannel[0] = slope.numel();
        slope = slope.reshaped(perChannel);
    }
    if (broadcastShapes({x.shape(), slope.shape()}) != x.shape())
        ctx.fail("slope " + shapeToString(slope.shape()) + " does not broadcast to " + shapeToString(x.shape()));
    visitNumeric(x.dtype(), [&]<typename T>() {
        ctx.setOutput(0, mapBinary<T, T, T>(x, slope, [](T v, T s) {
            Acc<T> a = widen(v);
            return a < Acc<T>(0) ? static_cast<T>(widen(s) * a) : v;
        }));
    }, "PRelu");
}

double sigmoid(double x) {
    // Two branches keep exp() from overflowing for large |x|.
    if (x >= 0) return 1.0 / (1.0 + std::exp(-x));
    double e = std::exp(x);
    return e / (1.0 + e);
}

double softplus(double x) {
    // log(1 + e^x) without overflow: x + log(1 + e^-x) for positive x.
    return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}

void sigmoidOp(KernelContext& ctx) { floatActivation(ctx, sigmoid); }
void tanhOp(KernelContext& ctx) { floatActivation(ctx, [](double x) { return std::tanh(x); }); }
void softplusOp(KernelContext& ctx) { floatActivation(ctx, softplus); }
void softsign(KernelContext& ctx) { floatActivation(ctx, [](double x) { return x / (1.0 + std::fabs(x)); }); }
void mish(KernelContext& ctx) { floatActivation(ctx, [](double x) { return x * std::tanh(softplus(x)); }); }

void hardSigmoid(KernelContext& ctx) {
    double alpha = ctx.attrFloat("alpha", 0.2f), beta = ctx.attrFloat("beta", 0.5f);
    floatActivation(ctx, [&](double x) { return std::clamp(alpha * x + beta, 0.0, 1.0); });
}

void hardSwish(KernelContext& ctx) {
    floatActivation(ctx, [](double x) { return x * std::clamp(x / 6.0 + 0.5, 0.0, 1.0); });
}

void leakyRelu(KernelContext& ctx) {
    double alpha = ctx.attrFloat("alpha", 0.01f);
    floatActivation(ctx, [&](double x) { return x < 0 ? alpha * x : x; });
}

void elu(KernelContext& ctx) {
    double alpha = ctx.attrFloat("alpha", 1.0f);
    floatActivation(ctx, [&](double x) { return x < 0 ? alpha * std::expm1(x) : x; });
}

void selu(KernelContext& ctx) {
    double alpha = ctx.attrFloat("alpha", 1.67326319217681884765625f);
    double gamma = ctx.attrFloat("gamma", 1.05070102214813232421875f);
    floatActivation(ctx, [&](double x) { return gamma * (x <= 0 ? alpha * std::expm1(x) : x); });
}

void celu(KernelContext& ctx) {
    double alpha = ctx.attrFloat("alpha", 1.0f);
    if (alpha == 0.0) ctx.fail("alpha must not be 0");
    floatActivation(ctx, [&](double x) { return std::max(0.0, x) + std::min(0.0, alpha * std::expm1(x / alpha)); });
}

void thresholdedRelu(KernelContext& ctx) {
    double alpha = ctx.attrFloat("alpha", 1.0f);
    floatActivation(ctx, [&](double x) { return x > alpha ? x : 0.0; });
}

/// Shrink accepts every numeric type (the conformance data has int8 cases).
void shrink(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    double lambd = ctx.attrFloat("lambd", 0.5f), bias = ctx.attrFloat("bias", 0.0f);
    visitNumeric(x.dtype(), [&]<typename T>() {
        ctx.setOutput(0, mapUnary<T, T>(x, [&](T v) {
            double d = static_cast<double>(v);
            double r = d < -lambd ? d + bias : (d > lambd ? d - bias : 0.0);
            return static_cast<T>(r);
        }));
    }, "Shrink");
}

}  // namespace

NPUWB_KERNEL_SHAPES("Relu", relu);
NPUWB_KERNEL("Clip", clip);
NPUWB_KERNEL("PRelu", prelu);
NPUWB_KERNEL("Sigmoid", sigmoidOp);
NPUWB_KERNEL("Tanh", tanhOp);
NPUWB_KERNEL("Softplus", softplusOp);
NPUWB_KERNEL("Softsign", softsign);
NPUWB_KERNEL("Mish", mish);
NPUWB_KERNEL("HardSigmoid", hardSigmoid);
NPUWB_KERNEL("HardSwish", hardSwish);
NPUWB_KERNEL("LeakyRelu", leakyRelu);
NPUWB_KERNEL("Elu", elu);
NPUWB_KERNEL("Selu", selu);
NPUWB_KERNEL("Celu", celu);
NPUWB_KERNEL("ThresholdedRelu", thresholdedRelu);
NPUWB_KERNEL("Shrink", shrink);

}  // namespace npuwb::math
