// Names of the matmul types and layouts: parsing for the CLI and profiles, the operand kind chip profiles use.
#include <algorithm>
#include <cctype>

#include "npuwb/Error.h"
#include "npuwb/Matmul.h"

namespace npuwb {

namespace {

std::string lowered(std::string_view text) {
    std::string s(text);
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

/// "int8xint8->int32" and "int8xint8-int32" compare equal.
std::string withoutArrow(std::string s) {
    for (size_t at = s.find("->"); at != std::string::npos; at = s.find("->", at)) s.erase(at + 1, 1);
    return s;
}

struct ShortName {
    std::string_view name;
    MatmulType type;
};
constexpr ShortName kShortNames[] = {
    {"fp16", MatmulType::Fp16xFp16ToFp32},  {"int8", MatmulType::Int8xInt8ToInt32},
    {"int4", MatmulType::Int4xInt4ToInt16}, {"w8a16", MatmulType::Fp16xInt8ToFp32},
    {"w4a16", MatmulType::Fp16xInt4ToFp32},
};

}  // namespace

MatmulType parseMatmulType(std::string_view text) {
    const std::string wanted = withoutArrow(lowered(text));
    for (const auto& s : kShortNames)
        if (wanted == s.name) return s.type;
    for (const auto& info : kMatmulTypes) {
        if (wanted == withoutArrow(std::string(info.name)) || wanted == lowered(info.vendorName) ||
            wanted == std::to_string(int(info.type)))
            return info.type;
    }
    std::string names, shortNames;
    for (const auto& info : kMatmulTypes) names += (names.empty() ? "" : ", ") + std::string(info.name);
    for (const auto& s : kShortNames) shortNames += (shortNames.empty() ? "" : ", ") + std::string(s.name);
    failInput("unknown matmul type '" + std::string(text) + "' (types: " + names + "; short names " + shortNames +
              "; vendor names and numbers work too)");
}

std::string matmulTypeShortName(MatmulType type) {
    for (const auto& s : kShortNames)
        if (s.type == type) return std::string(s.name);
    return {};
}

std::string matmulOperandKind(MatmulType type) {
    switch (matmulTypeInfo(type).a) {
        case DType::I4:
            return "int4";
        case DType::I8:
            return "int8";
        default:
            return "fp16";
    }
}

std::string_view matmulLayoutName(MatmulLayout layout) {
    switch (layout) {
        case MatmulLayout::Norm:
            return "norm";
        case MatmulLayout::Native:
            return "native";
        case MatmulLayout::TpNorm:
            return "tp_norm";
    }
    return "?";
}

MatmulLayout parseMatmulLayout(std::string_view text) {
    const std::string s = lowered(text);
    if (s == "norm" || s == "normal") return MatmulLayout::Norm;
    if (s == "native") return MatmulLayout::Native;
    if (s == "tp_norm" || s == "tpnorm") return MatmulLayout::TpNorm;
    failInput("unknown matmul layout '" + std::string(text) + "' (norm, native, tp_norm)");
}

int64_t MatmulSpec::maxM() const {
    int64_t m = 0;
    for (int64_t v : mValues) m = std::max(m, v);
    return m;
}

}  // namespace npuwb
