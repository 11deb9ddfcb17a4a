// Cast and CastLike between every pair of element types, including float16/bfloat16 and strings.
// Strings follow numpy, which generated the ONNX expected outputs: floats print as the shortest text that
// reads back to the same value ("0.47892547", "1e-05", "nan", "inf"), and parsing accepts "NaN", "INF", "+INF".
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "ops/math/MathUtil.h"

namespace npuwb::math {
namespace {

/// Numpy's str() of a float: shortest round-trip digits, positional for 1e-4 <= |x| < 1e16, else scientific.
template <class T> std::string floatToString(T value) {
    double v = static_cast<double>(value);
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
    if (v == 0.0) return std::signbit(v) ? "-0.0" : "0.0";
    char buf[64];
    for (int precision = 0; precision < 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*e", precision, v);
        if (static_cast<T>(std::strtod(buf, nullptr)) == value) break;
    }
    // buf is "-d.ddde±XX": split into sign, digits and exponent.
    std::string s(buf);
    bool negative = s[0] == '-';
    if (negative) s.erase(0, 1);
    size_t ePos = s.find('e');
    int exponent = std::atoi(s.c_str() + ePos + 1);
    std::string digits = s.substr(0, ePos);
    if (digits.size() > 1) digits.erase(1, 1);  // drop the '.'
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    // Built by appending: GCC 12 reports a false -Wrestrict on "literal" + std::string.
    std::string out = negative ? "-" : "";
    if (exponent >= -4 && exponent < 16) {
        if (exponent < 0) {
            out.append("0.").append(static_cast<size_t>(-exponent - 1), '0').append(digits);
        } else {
            size_t intDigits = static_cast<size_t>(exponent) + 1;
            if (digits.size() <= intDigits) {
                out.append(digits).append(intDigits - digits.size(), '0').append(".0");
            } else {
                out.append(digits, 0, intDigits).append(".").append(digits, intDigits, std::string::npos);
            }
        }
    } else {
        out.append(digits, 0, 1);
        if (digits.size() > 1) out.append(".").append(digits, 1, std::string::npos);
        char exp[16];
        std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
        out.append(exp);
    }
    return out;
}

template <class T> std::string toString(T v) {
    if constexpr (std::is_same_v<T, bool>) return v ? "True" : "False";
    else if constexpr (isFloatLike<T>) return floatToString(v);
    else return std::to_string(v);
}

/// Float to integer the C way (truncation), with NaN and out-of-range values saturated instead of UB.
template <class To> To floatToInteger(double v) {
    if (std::isnan(v)) return To(0);
    if (v <= static_cast<double>(std::numeric_limits<To>::lowest())) return std::numeric_limits<To>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
    return static_cast<To>(v);
}

template <class To> To fromString(const KernelContext& ctx, const std::string& s) {
    if constexpr (std::is_same_v<To, std::string>) {
        return s;
    } else {
        const char* begin = s.c_str();
        char* end = nullptr;
        if constexpr (std::is_integral_v<To> && !std::is_same_v<To, bool>) {
            // Integers parse exactly when the text is an integer; otherwise through double like numpy would.
            errno = 0;
            if constexpr (std::is_signed_v<To>) {
                long long i = std::strtoll(begin, &end, 10);
                if (end != begin && *end == '\0' && errno == 0) return static_cast<To>(i);
            } else {
                unsigned long long u = std::strtoull(begin, &end, 10);
                if (end != begin && *end == '\0' && errno == 0) return static_cast<To>(u);
            }
        }
        double d = std::strtod(begin, &end);
        if (end == begin) ctx.fail("cannot convert the string '" + s + "' to a number");
        if constexpr (std::is_same_v<To, bool>) return d != 0.0;
        else if constexpr (isFloatLike<To>) return static_cast<To>(d);
        else return floatToInteger<To>(d);
    }
}

template <class From, class To> To convert(const KernelContext& ctx, const From& v) {
    if constexpr (std::is_same_v<From, std::string>) {
        return fromString<To>(ctx, v);
    } else if constexpr (std::is_same_v<To, std::string>) {
        return toString(v);
    } else if constexpr (std::is_same_v<To, BFloat16> && std::is_same_v<From, float>) {
        // The ONNX 1.12 reference (test_cast_FLOAT_to_BFLOAT16) truncates to the upper 16 bits, NaN included.
        return BFloat16::fromBits(static_cast<uint16_t>(std::bit_cast<uint32_t>(v) >> 16));
    } else if constexpr (std::is_same_v<To, bool>) {
        return static_cast<double>(v) != 0.0;
    } else if constexpr (isFloatLike<From> && std::is_integral_v<To>) {
        return floatToInteger<To>(static_cast<double>(v));
    } else if constexpr (isFloatLike<To> && !std::is_same_v<To, double> && std::is_same_v<From, double>) {
        return static_cast<To>(v);
    } else if constexpr (std::is_same_v<From, bool>) {
        return static_cast<To>(v ? 1 : 0);
    } else if constexpr (isFloatLike<From> || isFloatLike<To>) {
        return static_cast<To>(static_cast<Acc<From>>(v));
    } else {
        return static_cast<To>(v);  // integer to integer: modular, like numpy's astype
    }
}

Tensor castTensor(const KernelContext& ctx, const Tensor& x, DType to) {
    if (x.dtype() == to) return x.clone();
    return visitAny(x.dtype(), [&]<typename From>() {
        return visitAny(to, [&]<typename To>() {
            Tensor y = Tensor::uninitialized(to, x.shape());
            const From* in = x.data<From>();
            To* out = y.data<To>();
            auto range = [&](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) out[i] = convert<From, To>(ctx, in[i]);
            };
            // Numeric conversions are pure per element: several threads; string ones allocate (and may fail).
            if constexpr (std::is_same_v<From, std::string> || std::is_same_v<To, std::string>) range(0, x.numel());
            else parallelFor(x.numel(), 1, range);
            return y;
        }, "Cast");
    }, "Cast");
}

/// ONNX TensorProto.DataType codes to our element types.
DType dtypeFromOnnx(const KernelContext& ctx, int64_t code) {
    DType d = dtypeFromOnnxCode(code);
    if (d == DType::Undefined) ctx.failUnsupported("Cast to ONNX data type " + std::to_string(code) + " is not supported");
    return d;
}

void cast(KernelContext& ctx) {
    if (!ctx.hasAttr("to")) ctx.fail("the 'to' attribute is required");
    const Attribute* to = ctx.node().attribute("to");
    // Opset 1-5 stored 'to' as a type-name string ("FLOAT"); later versions use the TensorProto code.
    DType target;
    if (to->kind == Attribute::Kind::String) {
        static const std::pair<const char*, int64_t> names[] = {
            {"FLOAT", 1}, {"UINT8", 2}, {"INT8", 3}, {"UINT16", 4}, {"INT16", 5}, {"INT32", 6}, {"INT64", 7},
            {"STRING", 8}, {"BOOL", 9}, {"FLOAT16", 10}, {"DOUBLE", 11}, {"UINT32", 12}, {"UINT64", 13},
            {"BFLOAT16", 16}};
        int64_t code = 0;
        for (const auto& [name, c] : names)
            if (to->s == name) code = c;
        target = dtypeFromOnnx(ctx, code);
    } else {
        target = dtypeFromOnnx(ctx, to->i);
    }
    ctx.setOutput(0, castTensor(ctx, ctx.input(0), target));
}

void castLike(KernelContext& ctx) { ctx.setOutput(0, castTensor(ctx, ctx.input(0), ctx.input(1).dtype())); }

}  // namespace

NPUWB_KERNEL("Cast", cast);
NPUWB_KERNEL("CastLike", castLike);

}  // namespace npuwb::math
