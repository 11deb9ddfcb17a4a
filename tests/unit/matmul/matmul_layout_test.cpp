// Native matmul layouts against the worked examples of the RKNN SDK user guide V2.5.0, 4.1.1.4 "performance-
// optimized data layout" (figures 4-3 and 4-4, table 4-3 and its note on mixed types, the K segmentation examples
// of 4.1.1.4.1) and the layout listings of rknn_matmul_api.h; then round trips over every chip, type and layout
// with odd sizes, and zero padding.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "npuwb/Matmul.h"
#include "npuwb/MatmulTypes.h"

using namespace npuwb;
namespace fs = std::filesystem;

namespace {

ChipProfile chip(const std::string& name) {
    return loadChipProfile((fs::path(NPUWB_SOURCE_DIR) / "resources" / "chips" / (name + ".json")).string());
}

std::vector<uint8_t> toNative(MatmulOperand op, const MatmulNativeLayout& n, int64_t M, int64_t K, int64_t N,
                              const std::vector<uint8_t>& normal, MatmulLayout from = MatmulLayout::Norm) {
    std::vector<uint8_t> out(size_t(matmulOperandBytes(op, MatmulLayout::Native, DType::I8, M, K, N, n)), 0xee);
    convertMatmulOperand(op, DType::I8, M, K, N, n, from, normal.data(), MatmulLayout::Native, out.data());
    return out;
}

/// The guide's sample loop for A or C (4.1.1.4, "norm_layout_to_perf_layout"), written out independently:
/// dst[i*M*subK + m*subK + j] = src[m*K + i*subK + j], zero past K.
std::vector<uint8_t> guidePerfLayout(const std::vector<uint8_t>& src, int64_t M, int64_t K, int64_t subK) {
    const int64_t outer = (K + subK - 1) / subK;
    std::vector<uint8_t> dst(size_t(outer * M * subK));
    for (int64_t i = 0; i < outer; ++i)
        for (int64_t m = 0; m < M; ++m)
            for (int64_t j = 0; j < subK; ++j) {
                const int64_t ki = i * subK + j;
                dst[size_t(i * M * subK + m * subK + j)] = ki < K ? src[size_t(m * K + ki)] : 0;
            }
    return dst;
}

/// The guide's sample loop for B (4.1.1.4, "norm_layout_to_native_layout"):
/// dst[((i*K_remain + j)*subN + n)*subK + k] = src[(j*subK + k)*N + i*subN + n], zero outside.
std::vector<uint8_t> guideNativeB(const std::vector<uint8_t>& src, int64_t K, int64_t N, int64_t subN, int64_t subK) {
    const int64_t nRemain = (N + subN - 1) / subN, kRemain = (K + subK - 1) / subK;
    std::vector<uint8_t> dst(size_t(nRemain * kRemain * subN * subK));
    for (int64_t i = 0; i < nRemain; ++i)
        for (int64_t j = 0; j < kRemain; ++j)
            for (int64_t n = 0; n < subN; ++n)
                for (int64_t k = 0; k < subK; ++k) {
                    const int64_t ni = i * subN + n, ki = j * subK + k;
                    dst[size_t(((i * kRemain + j) * subN + n) * subK + k)] =
                        ki < K && ni < N ? src[size_t(ki * N + ni)] : 0;
                }
    return dst;
}

std::vector<uint8_t> iota(int64_t count, int start = 1) {
    std::vector<uint8_t> v(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) v[size_t(i)] = uint8_t(start + i);
    return v;
}

}  // namespace

// Figure 4-3: RK3566/RK3568 int8 A, [M,K] -> [K/8,M,8]. Element (i,j) is D(i,j); the right side is K/8 small
// [M,8] matrices from top to bottom. Here M = 2, K = 16, D(i,j) = 16i + j:
TEST(MatmulLayout, Figure4_3_Rk3566Int8AIsKOver8ByMBy8) {
    const MatmulNativeLayout n = matmulNativeLayout(MatmulType::Int8xInt8ToInt32, chip("rk3566"));
    EXPECT_EQ(n.aKBlock, 8);
    std::vector<uint8_t> a = iota(32, 0);
    const std::vector<uint8_t> expected = {
        0,  1,  2,  3,  4,  5,  6,  7,   // block 0, row 0: D(0,0..7)
        16, 17, 18, 19, 20, 21, 22, 23,  // block 0, row 1: D(1,0..7)
        8,  9,  10, 11, 12, 13, 14, 15,  // block 1, row 0: D(0,8..15)
        24, 25, 26, 27, 28, 29, 30, 31,  // block 1, row 1: D(1,8..15)
    };
    EXPECT_EQ(toNative(MatmulOperand::A, n, 2, 16, 32, a), expected);
    EXPECT_EQ(matmulLayoutText(MatmulOperand::A, MatmulLayout::Native, 2, 16, 32, n), "[K/8,M,8] = [2,2,8]");
    // K = 12 rounds up to two blocks; the tail of the second is zero (divisions round up, padding is 0).
    std::vector<uint8_t> odd = iota(24, 0);  // D(i,j) = 12i + j
    const std::vector<uint8_t> padded = {0, 1, 2,  3,  4, 5, 6, 7, 12, 13, 14, 15, 16, 17, 18, 19,
                                         8, 9, 10, 11, 0, 0, 0, 0, 20, 21, 22, 23, 0,  0,  0,  0};
    EXPECT_EQ(toNative(MatmulOperand::A, n, 2, 12, 32, odd), padded);
    EXPECT_EQ(toNative(MatmulOperand::A, n, 2, 12, 32, odd), guidePerfLayout(odd, 2, 12, 8));
}

// Figure 4-4: RK3566/RK3568 int8 B, [K,N] -> [N/16,K/32,16,32]: N/16 small cuboids [K/32,16,32] from top to
// bottom. K = 64, N = 32, B(k,n) = (k + 3n) mod 256. Positions of the first elements as the figure shows them:
TEST(MatmulLayout, Figure4_4_Rk3566Int8BIsNOver16ByKOver32By16By32) {
    const MatmulNativeLayout n = matmulNativeLayout(MatmulType::Int8xInt8ToInt32, chip("rk3566"));
    EXPECT_EQ(n.bNBlock, 16);
    EXPECT_EQ(n.bKBlock, 32);
    const int64_t K = 64, N = 32;
    std::vector<uint8_t> b(size_t(K * N));
    for (int64_t k = 0; k < K; ++k)
        for (int64_t c = 0; c < N; ++c) b[size_t(k * N + c)] = uint8_t(k + 3 * c);
    const auto native = toNative(MatmulOperand::B, n, 1, K, N, b);
    struct Position {
        int64_t offset, k, n;
    };
    const Position positions[] = {
        {0, 0, 0},                                     // D(0,0): first element of the first cuboid
        {31, 31, 0},                                   // D(31,0): end of the first 32-row strip of column 0
        {32, 0, 1},                                    // D(0,1): next column of the same strip
        {15 * 32 + 31, 31, 15},                        // D(31,15): end of the first [16,32] block
        {16 * 32, 32, 0},                              // D(32,0): second K block of the first cuboid
        {2 * 16 * 32, 0, 16},                          // D(0,16): the second cuboid (columns 16..31)
        {2 * 16 * 32 + 16 * 32 + 5 * 32 + 7, 39, 21},  // D(39,21)
    };
    for (const auto& p : positions)
        EXPECT_EQ(native[size_t(p.offset)], b[size_t(p.k * N + p.n)]) << "offset " << p.offset;
    EXPECT_EQ(native, guideNativeB(b, K, N, 16, 32));
    EXPECT_EQ(matmulLayoutText(MatmulOperand::B, MatmulLayout::Native, 1, K, N, n), "[N/16,K/32,16,32] = [2,2,16,32]");
}

// rknn_matmul_api.h, RK3588 int8 B native (N/32, K/32, 32, 32): [K1N1, K2N1, ..., K32N1, K1N2, ..., K32N32,
// K33N1, ..., K(k-31)N32, ..., K1N33, ...] (1-based in the header).
TEST(MatmulLayout, Rk3588Int8BListingOfTheHeader) {
    const MatmulNativeLayout n = matmulNativeLayout(MatmulType::Int8xInt8ToInt32, chip("rk3588"));
    const int64_t K = 64, N = 64;
    std::vector<uint8_t> b(size_t(K * N));
    for (int64_t i = 0; i < K * N; ++i) b[size_t(i)] = uint8_t(i * 7 + i / 251);
    const auto native = toNative(MatmulOperand::B, n, 1, K, N, b);
    auto at = [&](int64_t k1, int64_t n1) { return b[size_t((k1 - 1) * N + (n1 - 1))]; };  // K<k1>N<n1>
    EXPECT_EQ(native[0], at(1, 1));
    EXPECT_EQ(native[31], at(32, 1));
    EXPECT_EQ(native[32], at(1, 2));
    EXPECT_EQ(native[32 * 32 - 1], at(32, 32));
    EXPECT_EQ(native[32 * 32], at(33, 1));
    EXPECT_EQ(native[2 * 32 * 32], at(1, 33));
    EXPECT_EQ(native, guideNativeB(b, K, N, 32, 32));
}

// rknn_matmul_api.h, C native (N/4, M, 4) on every chip, and (N/8, M, 8) for RK3588's int4 type.
TEST(MatmulLayout, CNativeIsNOver4ByMBy4AndRk3588Int4IsNOver8) {
    const MatmulNativeLayout int8 = matmulNativeLayout(MatmulType::Int8xInt8ToInt32, chip("rk3588"));
    const MatmulNativeLayout int4 = matmulNativeLayout(MatmulType::Int4xInt4ToInt16, chip("rk3588"));
    EXPECT_EQ(int8.cNBlock, 4);
    EXPECT_EQ(int4.cNBlock, 8);
    EXPECT_EQ(matmulNativeLayout(MatmulType::Int8xInt8ToInt32, chip("rk3576")).cNBlock, 4);
    const std::vector<uint8_t> c = iota(2 * 8, 0);  // M = 2, N = 8: C(m,n) = 8m + n
    const std::vector<uint8_t> expected = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};
    EXPECT_EQ(toNative(MatmulOperand::C, int8, 2, 32, 8, c), expected);
    EXPECT_EQ(toNative(MatmulOperand::C, int4, 2, 32, 8, c), c);  // one block of 8: rows stay whole
}

// Table 4-3 per chip: A and B of each operand type.
TEST(MatmulLayout, Table4_3PerChip) {
    struct Row {
        const char* chip;
        MatmulType type;
        int64_t a, n, k;
    };
    const Row rows[] = {
        {"rk3566", MatmulType::Int8xInt8ToInt32, 8, 16, 32},  {"rk3566", MatmulType::Fp16xFp16ToFp32, 4, 8, 16},
        {"rk3568", MatmulType::Int8xInt8ToInt32, 8, 16, 32},  {"rk3562", MatmulType::Int8xInt8ToInt32, 16, 16, 32},
        {"rk3562", MatmulType::Fp16xFp16ToFp32, 8, 8, 32},    {"rk3588", MatmulType::Int4xInt4ToInt16, 32, 64, 32},
        {"rk3588", MatmulType::Int8xInt8ToInt32, 16, 32, 32}, {"rk3588", MatmulType::Fp16xFp16ToFp32, 8, 16, 32},
        {"rk3576", MatmulType::Int8xInt8ToInt32, 16, 32, 32}, {"rv1126b", MatmulType::Fp16xFp16ToFp16, 8, 16, 32},
    };
    for (const auto& r : rows) {
        const MatmulNativeLayout n = matmulNativeLayout(r.type, chip(r.chip));
        EXPECT_EQ(n.aKBlock, r.a) << r.chip;
        EXPECT_EQ(n.bNBlock, r.n) << r.chip;
        EXPECT_EQ(n.bKBlock, r.k) << r.chip;
    }
}

// Note to table 4-3: on RK3576/RV1126B with mixed inputs, B takes the layout of the like-typed case; the guide's
// example (fp16 with int4 to fp32) gives B = [N/16,K/32,16,32], the fp16 layout.
TEST(MatmulLayout, MixedTypesOnRk3576TakeTheFp16BLayout) {
    const MatmulNativeLayout n = matmulNativeLayout(MatmulType::Fp16xInt4ToFp32, chip("rk3576"));
    EXPECT_EQ(matmulLayoutText(MatmulOperand::B, MatmulLayout::Native, 1, 64, 32, n),
              "[N/16,K/32,16,32] = [2,2,16,32]");
}

// 4.1.1.4.1, RK3576: K > 4096 splits B into T = ceil(K/4096) segments. The example: K = 10240, N = 2048, T = 3:
// (4096, 2048), (4096, 2048), (2048, 2048) normal -> (2048/subN, 4096/subK, subN, subK) twice and
// (2048/subN, 2048/subK, subN, subK), here for int8 (subN = subK = 32).
TEST(MatmulLayout, KSegmentationRk3576Example) {
    const MatmulNativeLayout n = matmulNativeLayout(MatmulType::Int8xInt8ToInt32, chip("rk3576"));
    const auto segments = matmulBSegments(10240, n);
    ASSERT_EQ(segments.size(), 3u);
    EXPECT_EQ(segments[0], (std::make_pair<int64_t, int64_t>(0, 4096)));
    EXPECT_EQ(segments[1], (std::make_pair<int64_t, int64_t>(4096, 8192)));
    EXPECT_EQ(segments[2], (std::make_pair<int64_t, int64_t>(8192, 10240)));
    const auto dims = matmulOperandDims(MatmulOperand::B, MatmulLayout::Native, 1, 10240, 2048, n);
    const std::vector<std::vector<int64_t>> expected = {{64, 128, 32, 32}, {64, 128, 32, 32}, {64, 64, 32, 32}};
    EXPECT_EQ(dims, expected);
    // Each segment is its own native array: B(4096, 0) opens the second one, B(8192, 33) sits in the third.
    const int64_t K = 10240, N = 64;  // narrower N keeps the test small; the segmentation depends on K only
    std::vector<uint8_t> b(size_t(K * N));
    for (int64_t i = 0; i < K * N; ++i) b[size_t(i)] = uint8_t((i * 31) ^ (i >> 9));
    const auto native = toNative(MatmulOperand::B, n, 1, K, N, b);
    const int64_t segment = 2 * 128 * 32 * 32;  // N/32 x 4096/32 x 32 x 32
    EXPECT_EQ(native[size_t(segment)], b[size_t(4096 * N)]);
    EXPECT_EQ(native[size_t(2 * segment + 64 * 32 * 32 + 1 * 32)], b[size_t(8192 * N + 33)]);
    for (int t = 0; t < 3; ++t) {  // every segment is the guide's loop over its own rows
        const int64_t k0 = segments[size_t(t)].first, rows = segments[size_t(t)].second - k0;
        std::vector<uint8_t> part(b.begin() + k0 * N, b.begin() + (k0 + rows) * N);
        const auto guide = guideNativeB(part, rows, N, 32, 32);
        EXPECT_TRUE(std::equal(guide.begin(), guide.end(), native.begin() + t * segment)) << "segment " << t;
    }
}

// 4.1.1.4.1, RK3588: K > 8192 splits B into T = ceil(K/8192) segments. The guide's example K = 20488, N = 4096,
// T = 3 (written there with segments of 8196; 8196 + 8196 + 4096 = 20488 only with that typo: T = ceil(K/8192)
// gives 8192, 8192 and 4104 rows).
TEST(MatmulLayout, KSegmentationRk3588Example) {
    const MatmulNativeLayout n = matmulNativeLayout(MatmulType::Fp16xFp16ToFp32, chip("rk3588"));
    EXPECT_EQ(n.kSegment, 8192);
    const auto segments = matmulBSegments(20488, n);
    ASSERT_EQ(segments.size(), 3u);
    EXPECT_EQ(segments[2], (std::make_pair<int64_t, int64_t>(16384, 20488)));
    const auto dims = matmulOperandDims(MatmulOperand::B, MatmulLayout::Native, 1, 20488, 4096, n);
    const std::vector<std::vector<int64_t>> expected = {{256, 256, 16, 32}, {256, 256, 16, 32}, {256, 129, 16, 32}};
    EXPECT_EQ(dims, expected);
    EXPECT_EQ(matmulBSegments(8192, n).size(), 1u);  // no split up to 8192
    EXPECT_EQ(matmulBSegments(10240, matmulNativeLayout(MatmulType::Int8xInt8ToInt32, chip("rk3566"))).size(), 1u);
}

// Round trips: every chip with a matmul API, every type it supports, every layout pair, odd sizes, int4 packing.
TEST(MatmulLayout, RoundTripsOverChipsTypesAndOddSizes) {
    std::mt19937 rng(19);
    for (const char* name : {"rk3566", "rk3562", "rk3588", "rk3576", "rv1126b"}) {
        const ChipProfile profile = chip(name);
        for (const auto& typeName : profile.matmul->types) {
            const MatmulType type = parseMatmulType(typeName);
            const MatmulTypeInfo& info = matmulTypeInfo(type);
            const MatmulNativeLayout n = matmulNativeLayout(type, profile);
            for (int trial = 0; trial < 3; ++trial) {
                const int64_t M = 1 + int64_t(rng() % 9), K = 1 + int64_t(rng() % 300), N = 1 + int64_t(rng() % 150);
                for (auto [op, dtype] :
                     {std::pair{MatmulOperand::A, info.a}, {MatmulOperand::B, info.b}, {MatmulOperand::C, info.c}}) {
                    const int64_t elements = op == MatmulOperand::A ? M * K : op == MatmulOperand::B ? K * N : M * N;
                    std::vector<uint8_t> normal(size_t(matmulStorageBytes(dtype, elements)));
                    for (auto& byte : normal) byte = uint8_t(rng());
                    if (dtype == DType::I4 && elements % 2) normal.back() &= 0x0f;  // the unused nibble stays 0
                    std::vector<uint8_t> native(size_t(matmulOperandBytes(op, MatmulLayout::Native, dtype, M, K, N, n)),
                                                0x5a);
                    convertMatmulOperand(op, dtype, M, K, N, n, MatmulLayout::Norm, normal.data(), MatmulLayout::Native,
                                         native.data());
                    std::vector<uint8_t> back(normal.size(), 0);
                    convertMatmulOperand(op, dtype, M, K, N, n, MatmulLayout::Native, native.data(), MatmulLayout::Norm,
                                         back.data());
                    ASSERT_EQ(back, normal)
                        << name << " " << typeName << " operand " << int(op) << " M=" << M << " K=" << K << " N=" << N;
                    // The padding is zero: the native array holds exactly the matrix's nonzero values.
                    int64_t nonzeroNormal = 0, nonzeroNative = 0;
                    const int64_t nativeElements = dtype == DType::I4
                                                       ? int64_t(native.size()) * 2
                                                       : int64_t(native.size()) / int64_t(dtypeSize(dtype));
                    const int64_t width = dtype == DType::I4 ? 1 : int64_t(dtypeSize(dtype));
                    auto nonzero = [&](const std::vector<uint8_t>& v, int64_t i) {
                        if (dtype == DType::I4) return int4At(v.data(), i) != 0;
                        for (int64_t j = 0; j < width; ++j)
                            if (v[size_t(i * width + j)]) return true;
                        return false;
                    };
                    for (int64_t i = 0; i < elements; ++i) nonzeroNormal += nonzero(normal, i);
                    for (int64_t i = 0; i < nativeElements; ++i) nonzeroNative += nonzero(native, i);
                    EXPECT_EQ(nonzeroNative, nonzeroNormal) << name << " " << typeName << " operand " << int(op);
                    if (op != MatmulOperand::B) continue;
                    // tp_norm: [N,K]; tp_norm -> native equals norm -> native.
                    std::vector<uint8_t> transposed(normal.size(), 0), native2(native.size(), 0);
                    convertMatmulOperand(op, dtype, M, K, N, n, MatmulLayout::Norm, normal.data(), MatmulLayout::TpNorm,
                                         transposed.data());
                    auto element = [&](const std::vector<uint8_t>& v, int64_t i) {
                        if (dtype == DType::I4) return int(int4At(v.data(), i));
                        int value = 0;
                        std::memcpy(&value, v.data() + i * width, size_t(width));
                        return value;
                    };
                    EXPECT_EQ(element(transposed, (N - 1) * K), element(normal, N - 1));  // B(0, N-1)
                    convertMatmulOperand(op, dtype, M, K, N, n, MatmulLayout::TpNorm, transposed.data(),
                                         MatmulLayout::Native, native2.data());
                    EXPECT_EQ(native2, native);
                }
            }
        }
    }
}
