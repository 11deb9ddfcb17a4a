#include "npuwb/ir/DType.h"

#include <array>

namespace npuwb {

namespace {
struct DTypeInfo {
    DType dtype;
    std::string_view name;
    size_t size;
};
constexpr std::array kDTypes = {
    DTypeInfo{DType::Undefined, "undefined", 0}, DTypeInfo{DType::F32, "float32", 4},
    DTypeInfo{DType::F16, "float16", 2},         DTypeInfo{DType::BF16, "bfloat16", 2},
    DTypeInfo{DType::F64, "float64", 8},         DTypeInfo{DType::I4, "int4", 1},
    DTypeInfo{DType::U4, "uint4", 1},            DTypeInfo{DType::I8, "int8", 1},
    DTypeInfo{DType::U8, "uint8", 1},            DTypeInfo{DType::I16, "int16", 2},
    DTypeInfo{DType::U16, "uint16", 2},          DTypeInfo{DType::I32, "int32", 4},
    DTypeInfo{DType::U32, "uint32", 4},          DTypeInfo{DType::I64, "int64", 8},
    DTypeInfo{DType::U64, "uint64", 8},          DTypeInfo{DType::Bool, "bool", 1},
    DTypeInfo{DType::String, "string", sizeof(std::string)},
};
const DTypeInfo& info(DType dtype) {
    for (const auto& i : kDTypes)
        if (i.dtype == dtype) return i;
    return kDTypes[0];
}
}  // namespace

std::string_view dtypeName(DType dtype) { return info(dtype).name; }
size_t dtypeSize(DType dtype) { return info(dtype).size; }

DType dtypeFromName(std::string_view name) {
    for (const auto& i : kDTypes)
        if (i.name == name) return i.dtype;
    failInput("unknown element type '" + std::string(name) + "'");
}

DType dtypeFromOnnxCode(int64_t code) {
    switch (code) {
        case 1: return DType::F32;
        case 2: return DType::U8;
        case 3: return DType::I8;
        case 4: return DType::U16;
        case 5: return DType::I16;
        case 6: return DType::I32;
        case 7: return DType::I64;
        case 8: return DType::String;
        case 9: return DType::Bool;
        case 10: return DType::F16;
        case 11: return DType::F64;
        case 12: return DType::U32;
        case 13: return DType::U64;
        case 16: return DType::BF16;
        case 21: return DType::U4;
        case 22: return DType::I4;
        default: return DType::Undefined;
    }
}

bool isFloat(DType d) { return d == DType::F32 || d == DType::F16 || d == DType::BF16 || d == DType::F64; }
bool isInteger(DType d) {
    switch (d) {
        case DType::I4: case DType::U4: case DType::I8: case DType::U8: case DType::I16: case DType::U16:
        case DType::I32: case DType::U32: case DType::I64: case DType::U64: return true;
        default: return false;
    }
}
bool isSigned(DType d) {
    return isFloat(d) || d == DType::I4 || d == DType::I8 || d == DType::I16 || d == DType::I32 || d == DType::I64;
}

}  // namespace npuwb
