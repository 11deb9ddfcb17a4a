#pragma once
// The element types, layouts and quantization of the NPU's matrix multiply C = A x B (A is M x K, B is K x N,
// C is M x N), as Rockchip's matmul API defines them (RKNN SDK user guide V2.5.0, 4.1.1 "Matmul API";
// rknn_matmul_api.h). Part of the plugin SDK: kernels in plugins and the engine's reference share these rules.
//
// What every type computes (the rules the reference implements and kernels must reproduce):
//   real(A) = sA * (A - zA)            A: per layer only (the guide: "A and C only support per layer")
//   real(B) = sB[g,n] * (B - zB[g,n])  B: per layer (g = 0, one n), per channel (one g) or per group
//                                          (g = k / groupSize); unset parameters mean scale 1, zero point 0
//   real(C) = sC * (C - zC)            C: per layer only
// * fp16 A (fp16xfp16, fp16xint8, fp16xint4): quantization of A and C does not apply. Each B element is taken
//   as real(B) rounded to fp32 (an fp16 B as it is); C = sum over k of A * real(B), accumulated in fp32, then
//   rounded to C's type (fp16 and bf16 to nearest even). Float results are compared with a tolerance.
// * int8 / int4 A: per group g of K, acc_g = sum over k in g of (A - zA) * (B - zB), exact in int32 (K is at most
//   kMatmulMaxIntegerK, so it cannot overflow). Then, in double precision, groups in ascending order:
//     v = sA * sum_g sB[g,n] * acc_g
//   float C (int8xint8->fp32, int8xint4->fp16): C = v rounded to fp32, then to C's type;
//   integer C (int32, int16, int8): C = saturate(round_half_even(v / sC) + zC) to C's range.
//   With unset parameters v is the exact integer sum: int32 C is exact, int16 C (int4xint4) saturates at
//   -32768 / 32767. One engine function (finishIntegerMatmul, npuwb/sdk/MatmulKernel.h) applies this step for
//   the reference and for every kernel, so integer results are bit-exact across them.
//
// Storage: row-major; int4 packs two values per byte over the flat element index, the even index in the low
// nibble (as the vendor's matmul demo packs them), two's complement -8..7.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "npuwb/ir/DType.h"

namespace npuwb {

/// The vendor's rknn_matmul_type values: A x B -> C.
enum class MatmulType : int32_t {
    Fp16xFp16ToFp32 = 1,
    Int8xInt8ToInt32 = 2,
    Int8xInt8ToInt8 = 3,
    Fp16xFp16ToFp16 = 4,
    Fp16xInt8ToFp32 = 5,
    Fp16xInt8ToFp16 = 6,
    Fp16xInt4ToFp32 = 7,
    Fp16xInt4ToFp16 = 8,
    Int8xInt8ToFp32 = 9,
    Int4xInt4ToInt16 = 10,
    Int8xInt4ToInt32 = 11,
    Fp16xInt4ToBf16 = 12,
    Int8xInt4ToFp16 = 15,
};

struct MatmulTypeInfo {
    MatmulType type;
    std::string_view name;        // "int8xint8->int32": the name in chip profiles, reports and the CLI
    std::string_view vendorName;  // "RKNN_INT8_MM_INT8_TO_INT32"
    DType a, b, c;
};

/// Every type of the matmul API, in the vendor's numbering order. The one list of them.
inline constexpr std::array<MatmulTypeInfo, 13> kMatmulTypes{{
    {MatmulType::Fp16xFp16ToFp32, "fp16xfp16->fp32", "RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32", DType::F16, DType::F16, DType::F32},
    {MatmulType::Int8xInt8ToInt32, "int8xint8->int32", "RKNN_INT8_MM_INT8_TO_INT32", DType::I8, DType::I8, DType::I32},
    {MatmulType::Int8xInt8ToInt8, "int8xint8->int8", "RKNN_INT8_MM_INT8_TO_INT8", DType::I8, DType::I8, DType::I8},
    {MatmulType::Fp16xFp16ToFp16, "fp16xfp16->fp16", "RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16", DType::F16, DType::F16, DType::F16},
    {MatmulType::Fp16xInt8ToFp32, "fp16xint8->fp32", "RKNN_FLOAT16_MM_INT8_TO_FLOAT32", DType::F16, DType::I8, DType::F32},
    {MatmulType::Fp16xInt8ToFp16, "fp16xint8->fp16", "RKNN_FLOAT16_MM_INT8_TO_FLOAT16", DType::F16, DType::I8, DType::F16},
    {MatmulType::Fp16xInt4ToFp32, "fp16xint4->fp32", "RKNN_FLOAT16_MM_INT4_TO_FLOAT32", DType::F16, DType::I4, DType::F32},
    {MatmulType::Fp16xInt4ToFp16, "fp16xint4->fp16", "RKNN_FLOAT16_MM_INT4_TO_FLOAT16", DType::F16, DType::I4, DType::F16},
    {MatmulType::Int8xInt8ToFp32, "int8xint8->fp32", "RKNN_INT8_MM_INT8_TO_FLOAT32", DType::I8, DType::I8, DType::F32},
    {MatmulType::Int4xInt4ToInt16, "int4xint4->int16", "RKNN_INT4_MM_INT4_TO_INT16", DType::I4, DType::I4, DType::I16},
    {MatmulType::Int8xInt4ToInt32, "int8xint4->int32", "RKNN_INT8_MM_INT4_TO_INT32", DType::I8, DType::I4, DType::I32},
    {MatmulType::Fp16xInt4ToBf16, "fp16xint4->bf16", "RKNN_FLOAT16_MM_INT4_TO_BFLOAT16", DType::F16, DType::I4, DType::BF16},
    {MatmulType::Int8xInt4ToFp16, "int8xint4->fp16", "RKNN_INT8_MM_INT4_TO_FLOAT16", DType::I8, DType::I4, DType::F16},
}};

/// The type's entry in kMatmulTypes; throws InvalidInput for a number the API does not define.
inline const MatmulTypeInfo& matmulTypeInfo(MatmulType type) {
    for (const auto& info : kMatmulTypes)
        if (info.type == type) return info;
    failInput("unknown matmul type number " + std::to_string(int(type)));
}

/// The largest K for which an integer type's int32 sums cannot overflow: 32768 x 255 x 255 < 2^31.
inline constexpr int64_t kMatmulMaxIntegerK = 32768;

/// Layouts of the API (rknn_matmul_layout). A and C: Norm or Native; B: Norm, Native or TpNorm (B as [N,K]).
enum class MatmulLayout : int16_t { Norm = 0, Native = 1, TpNorm = 2 };

enum class QuantGranularity { PerLayer, PerChannel, PerGroup };

/// One operand's quantization parameters (rknn_quant_params). Empty scales: scale 1, zero point 0.
struct MatmulQuant {
    QuantGranularity granularity = QuantGranularity::PerLayer;
    int64_t groupSize = 0;            // PerGroup: elements of K sharing parameters
    std::vector<float> scales;        // PerLayer 1, PerChannel N, PerGroup (K / groupSize) x N, group-major
    std::vector<int32_t> zeroPoints;  // same length as scales, or empty for all 0 (symmetric)

    bool isSet() const { return !scales.empty(); }
    bool symmetric() const {
        for (int32_t z : zeroPoints)
            if (z != 0) return false;
        return true;
    }
    int64_t groups(int64_t K) const {
        return granularity == QuantGranularity::PerGroup && groupSize > 0 ? K / groupSize : 1;
    }
    /// Index of the parameters for group g and column n (columns share one set when per layer).
    int64_t index(int64_t g, int64_t n, int64_t N) const {
        switch (granularity) {
            case QuantGranularity::PerLayer: return 0;
            case QuantGranularity::PerChannel: return n;
            case QuantGranularity::PerGroup: return g * N + n;
        }
        return 0;
    }
    float scale(int64_t g, int64_t n, int64_t N) const { return scales.empty() ? 1.0f : scales[size_t(index(g, n, N))]; }
    int32_t zeroPoint(int64_t g, int64_t n, int64_t N) const {
        return zeroPoints.empty() ? 0 : zeroPoints[size_t(index(g, n, N))];
    }
};

/// int4 storage: element i of a packed array (sign-extended nibble) and its store.
inline int8_t int4At(const void* data, int64_t i) {
    const uint8_t byte = static_cast<const uint8_t*>(data)[i >> 1];
    const uint8_t nibble = (i & 1) ? uint8_t(byte >> 4) : uint8_t(byte & 0x0f);
    return static_cast<int8_t>(nibble >= 8 ? int(nibble) - 16 : int(nibble));
}
inline void setInt4(void* data, int64_t i, int value) {
    uint8_t& byte = static_cast<uint8_t*>(data)[i >> 1];
    const uint8_t nibble = static_cast<uint8_t>(value) & 0x0f;
    byte = (i & 1) ? uint8_t((byte & 0x0f) | (nibble << 4)) : uint8_t((byte & 0xf0) | nibble);
}
/// Bytes of `elements` values of `dtype` (int4 rounded up to whole bytes).
inline int64_t matmulStorageBytes(DType dtype, int64_t elements) {
    return dtype == DType::I4 ? (elements + 1) / 2 : elements * int64_t(dtypeSize(dtype));
}

}  // namespace npuwb
