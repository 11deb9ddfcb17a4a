#pragma once
// Element types of the IR and the compile-time mapping between them and C++ types.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "npuwb/ir/Half.h"
#include "npuwb/Error.h"

namespace npuwb {

enum class DType : uint8_t {
    Undefined,
    F32, F16, BF16, F64,
    I4,  // two signed 4-bit values per byte, low nibble first
    U4,
    I8, U8, I16, U16, I32, U32, I64, U64,
    Bool,
    String,
};

std::string_view dtypeName(DType dtype);
DType dtypeFromName(std::string_view name);  // throws on unknown names
/// Bytes per element; 4-bit types report 1 (use Tensor::byteSize() for storage), String reports sizeof(std::string).
size_t dtypeSize(DType dtype);
/// ONNX TensorProto.DataType numbers as they appear in attributes (Cast's `to`, EyeLike's `dtype`...);
/// Undefined for numbers without an engine type.
DType dtypeFromOnnxCode(int64_t code);
bool isFloat(DType dtype);
bool isInteger(DType dtype);
bool isSigned(DType dtype);

template <class T> struct DTypeOf;
#define NPUWB_DTYPE_OF(CPP, TAG) template <> struct DTypeOf<CPP> { static constexpr DType value = DType::TAG; };
NPUWB_DTYPE_OF(float, F32)
NPUWB_DTYPE_OF(Float16, F16)
NPUWB_DTYPE_OF(BFloat16, BF16)
NPUWB_DTYPE_OF(double, F64)
NPUWB_DTYPE_OF(int8_t, I8)
NPUWB_DTYPE_OF(uint8_t, U8)
NPUWB_DTYPE_OF(int16_t, I16)
NPUWB_DTYPE_OF(uint16_t, U16)
NPUWB_DTYPE_OF(int32_t, I32)
NPUWB_DTYPE_OF(uint32_t, U32)
NPUWB_DTYPE_OF(int64_t, I64)
NPUWB_DTYPE_OF(uint64_t, U64)
NPUWB_DTYPE_OF(bool, Bool)
NPUWB_DTYPE_OF(std::string, String)
#undef NPUWB_DTYPE_OF
template <class T> inline constexpr DType dtypeOf = DTypeOf<T>::value;

// Visitors call f.template operator()<T>() for the C++ type of `dtype`:
//   visitDType(t.dtype(), [&]<typename T>() { ... });
// Each family throws Unsupported for dtypes outside it, naming `what` (usually the op).
#define NPUWB_VISIT_CASE(TAG, CPP) \
    case DType::TAG: return f.template operator()<CPP>();

template <class F> decltype(auto) visitFloat(DType dtype, F&& f, std::string_view what = "operation") {
    switch (dtype) {
        NPUWB_VISIT_CASE(F32, float)
        NPUWB_VISIT_CASE(F64, double)
        NPUWB_VISIT_CASE(F16, Float16)
        NPUWB_VISIT_CASE(BF16, BFloat16)
        default: failUnsupported(std::string(what) + ": unsupported element type " + std::string(dtypeName(dtype)));
    }
}

template <class F> decltype(auto) visitInteger(DType dtype, F&& f, std::string_view what = "operation") {
    switch (dtype) {
        NPUWB_VISIT_CASE(I8, int8_t)
        NPUWB_VISIT_CASE(U8, uint8_t)
        NPUWB_VISIT_CASE(I16, int16_t)
        NPUWB_VISIT_CASE(U16, uint16_t)
        NPUWB_VISIT_CASE(I32, int32_t)
        NPUWB_VISIT_CASE(U32, uint32_t)
        NPUWB_VISIT_CASE(I64, int64_t)
        NPUWB_VISIT_CASE(U64, uint64_t)
        default: failUnsupported(std::string(what) + ": unsupported element type " + std::string(dtypeName(dtype)));
    }
}

/// Every arithmetic type (floats and integers), not Bool or String.
template <class F> decltype(auto) visitNumeric(DType dtype, F&& f, std::string_view what = "operation") {
    switch (dtype) {
        NPUWB_VISIT_CASE(F32, float)
        NPUWB_VISIT_CASE(F64, double)
        NPUWB_VISIT_CASE(F16, Float16)
        NPUWB_VISIT_CASE(BF16, BFloat16)
        NPUWB_VISIT_CASE(I8, int8_t)
        NPUWB_VISIT_CASE(U8, uint8_t)
        NPUWB_VISIT_CASE(I16, int16_t)
        NPUWB_VISIT_CASE(U16, uint16_t)
        NPUWB_VISIT_CASE(I32, int32_t)
        NPUWB_VISIT_CASE(U32, uint32_t)
        NPUWB_VISIT_CASE(I64, int64_t)
        NPUWB_VISIT_CASE(U64, uint64_t)
        default: failUnsupported(std::string(what) + ": unsupported element type " + std::string(dtypeName(dtype)));
    }
}

/// Every type with one element per storage slot: numeric, Bool and String (not the packed 4-bit types).
template <class F> decltype(auto) visitAny(DType dtype, F&& f, std::string_view what = "operation") {
    switch (dtype) {
        NPUWB_VISIT_CASE(Bool, bool)
        NPUWB_VISIT_CASE(String, std::string)
        default: return visitNumeric(dtype, std::forward<F>(f), what);
    }
}
#undef NPUWB_VISIT_CASE

}  // namespace npuwb
