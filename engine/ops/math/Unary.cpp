// Elementwise unary math: Abs Neg Reciprocal Sqrt Exp Log Ceil Floor Round Sign, trigonometric and hyperbolic
// functions, Erf, IsNaN, IsInf and Not. Float math happens in double and rounds once into the element type.
#include <cmath>

#include "ops/math/MathUtil.h"

namespace npuwb::math {
namespace {

/// Registers a float-only op computing y = f(double x).
template <double (*F)(double)> void floatUnary(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    visitFloat(x.dtype(), [&]<typename T>() {
        ctx.setOutput(0, mapUnary<T, T>(x, [](T v) { return static_cast<T>(F(static_cast<double>(v))); }));
    }, ctx.node().opType);
}

double reciprocal(double v) { return 1.0 / v; }
double sqrtOf(double v) { return std::sqrt(v); }
double expOf(double v) { return std::exp(v); }
double logOf(double v) { return std::log(v); }
double ceilOf(double v) { return std::ceil(v); }
double floorOf(double v) { return std::floor(v); }
double roundHalfEven(double v) { return std::nearbyint(v); }  // default rounding mode: ties to even, like numpy
double sinOf(double v) { return std::sin(v); }
double cosOf(double v) { return std::cos(v); }
double tanOf(double v) { return std::tan(v); }
double asinOf(double v) { return std::asin(v); }
double acosOf(double v) { return std::acos(v); }
double atanOf(double v) { return std::atan(v); }
double sinhOf(double v) { return std::sinh(v); }
double coshOf(double v) { return std::cosh(v); }
double asinhOf(double v) { return std::asinh(v); }
double acoshOf(double v) { return std::acosh(v); }
double atanhOf(double v) { return std::atanh(v); }
double erfOf(double v) { return std::erf(v); }

void absOp(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    visitNumeric(x.dtype(), [&]<typename T>() {
        ctx.setOutput(0, mapUnary<T, T>(x, [](T v) {
            if constexpr (std::is_unsigned_v<T>) return v;
            else if constexpr (std::is_integral_v<T>) return v < 0 ? wrapSub<T>(T(0), v) : v;
            else return static_cast<T>(std::fabs(static_cast<double>(v)));
        }));
    }, "Abs");
}

void neg(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    visitNumeric(x.dtype(), [&]<typename T>() {
        ctx.setOutput(0, mapUnary<T, T>(x, [](T v) {
            if constexpr (std::is_integral_v<T>) return wrapSub<T>(T(0), v);
            else return static_cast<T>(-static_cast<double>(v));
        }));
    }, "Neg");
}

void sign(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    visitNumeric(x.dtype(), [&]<typename T>() {
        ctx.setOutput(0, mapUnary<T, T>(x, [](T v) {
            if constexpr (std::is_unsigned_v<T>) {
                return static_cast<T>(v != 0);
            } else {
                Acc<T> a = widen(v);
                if constexpr (isFloatLike<T>)
                    if (std::isnan(a)) return v;
                return static_cast<T>(a > Acc<T>(0) ? 1 : (a < Acc<T>(0) ? -1 : 0));
            }
        }));
    }, "Sign");
}

void isNaN(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    visitFloat(x.dtype(), [&]<typename T>() {
        ctx.setOutput(0, mapUnary<T, bool>(x, [](T v) { return std::isnan(static_cast<double>(v)); }));
    }, "IsNaN");
}

void isInf(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    bool positive = ctx.attrInt("detect_positive", 1) != 0;
    bool negative = ctx.attrInt("detect_negative", 1) != 0;
    visitFloat(x.dtype(), [&]<typename T>() {
        ctx.setOutput(0, mapUnary<T, bool>(x, [&](T v) {
            double d = static_cast<double>(v);
            return std::isinf(d) && ((d > 0 && positive) || (d < 0 && negative));
        }));
    }, "IsInf");
}

void notOp(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.dtype() != DType::Bool) ctx.failUnsupported("Not expects a bool tensor");
    ctx.setOutput(0, mapUnary<bool, bool>(x, [](bool v) { return !v; }));
}

}  // namespace

NPUWB_KERNEL("Abs", absOp);
NPUWB_KERNEL("Neg", neg);
NPUWB_KERNEL("Sign", sign);
NPUWB_KERNEL("Reciprocal", floatUnary<reciprocal>);
NPUWB_KERNEL("Sqrt", floatUnary<sqrtOf>);
NPUWB_KERNEL("Exp", floatUnary<expOf>);
NPUWB_KERNEL("Log", floatUnary<logOf>);
NPUWB_KERNEL("Ceil", floatUnary<ceilOf>);
NPUWB_KERNEL("Floor", floatUnary<floorOf>);
NPUWB_KERNEL("Round", floatUnary<roundHalfEven>);
NPUWB_KERNEL("Sin", floatUnary<sinOf>);
NPUWB_KERNEL("Cos", floatUnary<cosOf>);
NPUWB_KERNEL("Tan", floatUnary<tanOf>);
NPUWB_KERNEL("Asin", floatUnary<asinOf>);
NPUWB_KERNEL("Acos", floatUnary<acosOf>);
NPUWB_KERNEL("Atan", floatUnary<atanOf>);
NPUWB_KERNEL("Sinh", floatUnary<sinhOf>);
NPUWB_KERNEL("Cosh", floatUnary<coshOf>);
NPUWB_KERNEL("Asinh", floatUnary<asinhOf>);
NPUWB_KERNEL("Acosh", floatUnary<acoshOf>);
NPUWB_KERNEL("Atanh", floatUnary<atanhOf>);
NPUWB_KERNEL("Erf", floatUnary<erfOf>);
NPUWB_KERNEL("IsNaN", isNaN);
NPUWB_KERNEL("IsInf", isInf);
NPUWB_KERNEL("Not", notOp);

}  // namespace npuwb::math
