// Binary elementwise ops with numpy broadcasting: arithmetic (Add Sub Mul Div Pow Mod BitShift), logic
// (And Or Xor) and comparisons (Equal Greater GreaterOrEqual Less LessOrEqual, bool output).
// Opset < 7 nodes use the legacy broadcast/axis attributes (see legacyBroadcastOperand).
#include <cmath>
#include <string>

#include "ops/math/MathUtil.h"

namespace npuwb::math {
namespace {

enum class Arith { Add, Sub, Mul, Div };

template <Arith Op> void arithmetic(KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    Tensor b = legacyBroadcastOperand(ctx, a, ctx.input(1));
    if (a.dtype() != b.dtype()) ctx.fail("both inputs must have the same element type");
    if (ctx.shapesOnly()) return ctx.setOutputShape(0, a.dtype(), broadcastShapes({a.shape(), b.shape()}));
    visitNumeric(a.dtype(), [&]<typename T>() {
        ctx.setOutput(0, mapBinary<T, T, T>(a, b, [&](T x, T y) -> T {
            if constexpr (std::is_same_v<T, float>) {
                // Directly in float: the same bits as through double (53 >= 2 * 24 + 2 bits), and vectorized.
                if constexpr (Op == Arith::Add) return x + y;
                else if constexpr (Op == Arith::Sub) return x - y;
                else if constexpr (Op == Arith::Mul) return x * y;
                else return x / y;
            } else if constexpr (isFloatLike<T>) {
                double l = static_cast<double>(x), r = static_cast<double>(y);
                if constexpr (Op == Arith::Add) return static_cast<T>(l + r);
                else if constexpr (Op == Arith::Sub) return static_cast<T>(l - r);
                else if constexpr (Op == Arith::Mul) return static_cast<T>(l * r);
                else return static_cast<T>(l / r);
            } else {
                if constexpr (Op == Arith::Add) return wrapAdd(x, y);
                else if constexpr (Op == Arith::Sub) return wrapSub(x, y);
                else if constexpr (Op == Arith::Mul) return wrapMul(x, y);
                else {
                    // Integer division truncates toward zero (C semantics, as ONNX runtimes do).
                    if (y == 0) ctx.fail("integer division by zero");
                    if constexpr (std::is_signed_v<T>)
                        if (y == T(-1)) return wrapSub(T(0), x);  // avoids the INT_MIN / -1 trap
                    return static_cast<T>(x / y);
                }
            }
        }));
    }, ctx.node().opType);
}

/// Integer power by squaring (exact for 64-bit values where going through double would not be).
template <class T> T integerPow(T base, int64_t exponent) {
    if (exponent < 0) {
        if (base == T(1)) return T(1);
        if constexpr (std::is_signed_v<T>)
            if (base == T(-1)) return (exponent % 2 == 0) ? T(1) : T(-1);
        return T(0);
    }
    T result = T(1);
    while (exponent > 0) {
        if (exponent & 1) result = wrapMul(result, base);
        base = wrapMul(base, base);
        exponent >>= 1;
    }
    return result;
}

/// Pow: the output has the base's type; the exponent may be any numeric type.
void pow(KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    Tensor b = legacyBroadcastOperand(ctx, a, ctx.input(1));
    visitNumeric(a.dtype(), [&]<typename T>() {
        visitNumeric(b.dtype(), [&]<typename E>() {
            ctx.setOutput(0, mapBinary<T, E, T>(a, b, [](T x, E y) -> T {
                if constexpr (!isFloatLike<T> && !isFloatLike<E>) {
                    return integerPow<T>(x, static_cast<int64_t>(y));
                }
                return static_cast<T>(std::pow(static_cast<double>(x), static_cast<double>(y)));
            }));
        }, "Pow");
    }, "Pow");
}

/// Mod: fmod=1 keeps the dividend's sign (C fmod); fmod=0 takes the divisor's sign (numpy/Python mod).
void mod(KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) ctx.fail("both inputs must have the same element type");
    bool cFmod = ctx.attrInt("fmod", 0) != 0;
    visitNumeric(a.dtype(), [&]<typename T>() {
        ctx.setOutput(0, mapBinary<T, T, T>(a, b, [&](T x, T y) -> T {
            if constexpr (isFloatLike<T>) {
                double l = static_cast<double>(x), r = static_cast<double>(y);
                double m = std::fmod(l, r);
                if (!cFmod && m != 0.0 && ((m < 0) != (r < 0))) m += r;
                return static_cast<T>(m);
            } else {
                if (y == 0) ctx.fail("integer modulo by zero");
                if constexpr (std::is_signed_v<T>) {
                    if (y == T(-1)) return T(0);
                    T m = static_cast<T>(x % y);
                    if (!cFmod && m != 0 && ((m < 0) != (y < 0))) m = static_cast<T>(m + y);
                    return m;
                } else {
                    return static_cast<T>(x % y);
                }
            }
        }));
    }, "Mod");
}

void bitShift(KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != b.dtype()) ctx.fail("both inputs must have the same element type");
    std::string direction = ctx.attrString("direction", "");
    if (direction != "LEFT" && direction != "RIGHT") ctx.fail("direction must be LEFT or RIGHT, got '" + direction + "'");
    bool left = direction == "LEFT";
    visitInteger(a.dtype(), [&]<typename T>() {
        if constexpr (!std::is_unsigned_v<T>) {
            ctx.failUnsupported("BitShift is defined for unsigned integers only");
        } else {
            constexpr uint64_t bits = sizeof(T) * 8;
            ctx.setOutput(0, mapBinary<T, T, T>(a, b, [&](T x, T s) -> T {
                if (static_cast<uint64_t>(s) >= bits) return T(0);
                return left ? static_cast<T>(x << s) : static_cast<T>(x >> s);
            }));
        }
    }, "BitShift");
}

enum class Logic { And, Or, Xor };

template <Logic Op> void logical(KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    Tensor b = legacyBroadcastOperand(ctx, a, ctx.input(1));
    if (a.dtype() != DType::Bool || b.dtype() != DType::Bool) ctx.fail("inputs must be bool tensors");
    ctx.setOutput(0, mapBinary<bool, bool, bool>(a, b, [](bool x, bool y) {
        if constexpr (Op == Logic::And) return x && y;
        else if constexpr (Op == Logic::Or) return x || y;
        else return x != y;
    }));
}

enum class Compare { Equal, Greater, GreaterOrEqual, Less, LessOrEqual };

template <Compare Op> void compare(KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    Tensor b = legacyBroadcastOperand(ctx, a, ctx.input(1));
    if (a.dtype() != b.dtype()) ctx.fail("both inputs must have the same element type");
    visitAny(a.dtype(), [&]<typename T>() {
        if constexpr (std::is_same_v<T, std::string>) {
            if constexpr (Op != Compare::Equal) ctx.failUnsupported("strings can only be compared for equality");
            else ctx.setOutput(0, mapBinary<T, T, bool>(a, b, [](const T& x, const T& y) { return x == y; }));
        } else {
            ctx.setOutput(0, mapBinary<T, T, bool>(a, b, [](T x, T y) {
                Acc<T> l = widen(x), r = widen(y);
                if constexpr (Op == Compare::Equal) return l == r;
                else if constexpr (Op == Compare::Greater) return l > r;
                else if constexpr (Op == Compare::GreaterOrEqual) return l >= r;
                else if constexpr (Op == Compare::Less) return l < r;
                else return l <= r;
            }));
        }
    }, ctx.node().opType);
}

}  // namespace

NPUWB_KERNEL_SHAPES("Add", arithmetic<Arith::Add>);
NPUWB_KERNEL_SHAPES("Sub", arithmetic<Arith::Sub>);
NPUWB_KERNEL_SHAPES("Mul", arithmetic<Arith::Mul>);
NPUWB_KERNEL_SHAPES("Div", arithmetic<Arith::Div>);
NPUWB_KERNEL("Pow", pow);
NPUWB_KERNEL("Mod", mod);
NPUWB_KERNEL("BitShift", bitShift);
NPUWB_KERNEL("And", logical<Logic::And>);
NPUWB_KERNEL("Or", logical<Logic::Or>);
NPUWB_KERNEL("Xor", logical<Logic::Xor>);
NPUWB_KERNEL("Equal", compare<Compare::Equal>);
NPUWB_KERNEL("Greater", compare<Compare::Greater>);
NPUWB_KERNEL("GreaterOrEqual", compare<Compare::GreaterOrEqual>);
NPUWB_KERNEL("Less", compare<Compare::Less>);
NPUWB_KERNEL("LessOrEqual", compare<Compare::LessOrEqual>);

}  // namespace npuwb::math
