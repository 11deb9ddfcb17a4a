// Matmul specs: type names, validation against the chip profiles' limits (RKNN SDK user guide V2.5.0,
// 4.1.1.4.1, tables 4-4 and 4-5) with messages that name the limit, and the spec-only checks.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include <nlohmann/json.hpp>

#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"
#include "npuwb/Matmul.h"

using namespace npuwb;
namespace fs = std::filesystem;

namespace {

ChipProfile chip(const std::string& name) {
    return loadChipProfile((fs::path(NPUWB_SOURCE_DIR) / "resources" / "chips" / (name + ".json")).string());
}

MatmulSpec spec(MatmulType type, int64_t M, int64_t K, int64_t N) {
    MatmulSpec s;
    s.type = type;
    s.mValues = {M};
    s.K = K;
    s.N = N;
    return s;
}

std::string validationError(const MatmulSpec& s, const ChipProfile* c) {
    try {
        validateMatmul(s, c);
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST(MatmulSpec, TypeNames) {
    EXPECT_EQ(parseMatmulType("int8xint8->int32"), MatmulType::Int8xInt8ToInt32);
    EXPECT_EQ(parseMatmulType("int8xint8-int32"), MatmulType::Int8xInt8ToInt32);
    EXPECT_EQ(parseMatmulType("RKNN_FLOAT16_MM_INT4_TO_BFLOAT16"), MatmulType::Fp16xInt4ToBf16);
    EXPECT_EQ(parseMatmulType("15"), MatmulType::Int8xInt4ToFp16);
    EXPECT_EQ(parseMatmulType("fp16"), MatmulType::Fp16xFp16ToFp32);
    EXPECT_EQ(parseMatmulType("int4"), MatmulType::Int4xInt4ToInt16);
    EXPECT_EQ(parseMatmulType("w4a16"), MatmulType::Fp16xInt4ToFp32);
    EXPECT_EQ(matmulOperandKind(MatmulType::Fp16xInt4ToFp16), "fp16");
    EXPECT_EQ(matmulOperandKind(MatmulType::Int8xInt4ToInt32), "int8");
    try {
        parseMatmulType("int3");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("unknown matmul type 'int3' (types: fp16xfp16->fp32, "), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(parseMatmulLayout("tp_norm"), MatmulLayout::TpNorm);
    EXPECT_THROW(parseMatmulLayout("nchw"), Error);
}

// The two errors the matmul-bench acceptance names, verbatim.
TEST(MatmulSpec, MisalignedNAndOverLongKNameTheLimit) {
    const ChipProfile rk3588 = chip("rk3588");
    EXPECT_EQ(validationError(spec(MatmulType::Int8xInt8ToInt32, 1, 4096, 100), &rk3588),
              "N=100 must be a multiple of 32 for int8 on RK3588");
    EXPECT_EQ(validationError(spec(MatmulType::Int8xInt8ToInt32, 1, 12000, 4096), &rk3588),
              "K=12000 exceeds 10240, the largest K of the matmul API on RK3588");
    EXPECT_EQ(validationError(spec(MatmulType::Int8xInt8ToInt32, 64, 10240, 4096), &rk3588), "no error");
}

TEST(MatmulSpec, AlignmentsPerChipAndType) {
    const ChipProfile rk3566 = chip("rk3566"), rk3562 = chip("rk3562"), rk3588 = chip("rk3588");
    EXPECT_EQ(matmulChipProblems(spec(MatmulType::Fp16xFp16ToFp32, 1, 16, 8), rk3566).size(), 0u);
    EXPECT_EQ(validationError(spec(MatmulType::Fp16xFp16ToFp32, 1, 8, 12), &rk3566),
              "K=8 must be a multiple of 16 for fp16 on RK3566; N=12 must be a multiple of 8 for fp16 on RK3566");
    EXPECT_EQ(validationError(spec(MatmulType::Fp16xFp16ToFp32, 1, 16, 8), &rk3562),
              "K=16 must be a multiple of 32 for fp16 on RK3562");
    EXPECT_EQ(validationError(spec(MatmulType::Int4xInt4ToInt16, 1, 64, 32), &rk3588),
              "N=32 must be a multiple of 64 for int4 on RK3588");
}

TEST(MatmulSpec, TypesLayoutsAndChipsWithoutTheApi) {
    const ChipProfile rk3588 = chip("rk3588"), rk3566 = chip("rk3566"), rv1106 = chip("rv1106");
    const std::string w4a16 = validationError(spec(MatmulType::Fp16xInt4ToFp32, 1, 64, 64), &rk3588);
    EXPECT_EQ(w4a16.rfind("type fp16xint4->fp32 is not supported by the matmul API on RK3588 (supported: ", 0), 0u)
        << w4a16;
    EXPECT_EQ(validationError(spec(MatmulType::Fp16xInt4ToFp32, 1, 64, 64), nullptr), "no error");
    MatmulSpec tp = spec(MatmulType::Int8xInt8ToInt32, 1, 64, 64);
    tp.bLayout = MatmulLayout::TpNorm;
    EXPECT_EQ(validationError(tp, &rk3566), "B layout tp_norm is not supported on RK3566 (norm, native)");
    EXPECT_EQ(validationError(tp, &rk3588), "no error");
    EXPECT_EQ(validationError(spec(MatmulType::Int8xInt8ToInt32, 1, 64, 64), &rv1106), "RV1106 has no matmul API");
    EXPECT_THROW(matmulNativeLayout(MatmulType::Int8xInt8ToInt32, rv1106), Error);
}

TEST(MatmulSpec, SpecOnlyChecks) {
    MatmulSpec s = spec(MatmulType::Int8xInt8ToInt32, 0, 64, 0);
    s.acLayout = MatmulLayout::TpNorm;
    EXPECT_EQ(validationError(s, nullptr),
              "M=0 must be at least 1; N=0 must be at least 1; A and C take the norm or native layout, not tp_norm");
    EXPECT_EQ(validationError(spec(MatmulType::Int8xInt8ToInt32, 1, 40000, 8), nullptr),
              "K=40000 exceeds 32768, the largest K whose int32 sums cannot overflow");
    EXPECT_EQ(validationError(spec(MatmulType::Fp16xFp16ToFp32, 1, 40000, 8), nullptr), "no error");

    MatmulSpec q = spec(MatmulType::Int8xInt4ToInt32, 2, 64, 8);
    q.a.granularity = QuantGranularity::PerChannel;
    q.a.scales = std::vector<float>(8, 1.0f);
    q.b.granularity = QuantGranularity::PerGroup;
    q.b.groupSize = 24;
    q.b.scales = {1.0f};
    q.c.scales = {0.5f};
    q.c.zeroPoints = {1 << 20};
    EXPECT_EQ(validationError(q, nullptr),
              "A supports per-layer quantization only; group size 24 of B must divide K=64");
    q.a = {};
    q.b.groupSize = 32;
    q.b.zeroPoints = {9};
    EXPECT_EQ(validationError(q, nullptr),
              "B has 1 scales, per group (K/groupSize x N) needs 16; zero point 9 of B "
              "is outside int4 [-8, 7]");
    q.b.scales = std::vector<float>(16, 0.1f);
    q.b.zeroPoints = std::vector<int32_t>(16, 9);
    EXPECT_EQ(validationError(q, nullptr), "zero point 9 of B is outside int4 [-8, 7]");
    q.b.zeroPoints = std::vector<int32_t>(16, -8);
    EXPECT_EQ(validationError(q, nullptr), "no error");  // int32 C takes any int32 zero point

    MatmulSpec f = spec(MatmulType::Fp16xInt8ToFp16, 1, 64, 8);
    f.a.scales = {2.0f};
    f.c.scales = {0.0f};
    EXPECT_EQ(validationError(f, nullptr),
              "quantization of A is set but A is fp16 (only integer operands are "
              "quantized); quantization of C is set but C is fp16 (only integer operands "
              "are quantized)");
}

// The chip profiles' matmul sections parse into typed limits (and a bad layout names the field).
TEST(MatmulSpec, ProfilesCarryTheMatmulSection) {
    const ChipProfile rk3576 = chip("rk3576");
    ASSERT_TRUE(rk3576.matmul);
    EXPECT_EQ(rk3576.matmul->maxK, 10240);
    EXPECT_EQ(rk3576.matmul->kSegment, 4096);
    EXPECT_EQ(rk3576.matmul->types.size(), kMatmulTypes.size());
    EXPECT_EQ(rk3576.matmul->kinds.at("int4").nAlign, 64);
    EXPECT_FALSE(chip("rv1103").matmul);
    EXPECT_EQ(chip("rk3566").matmul->kSegment, 0);
}

// A malformed matmul section names the file and the field.
TEST(MatmulSpec, MalformedMatmulSectionsNameTheField) {
    const nlohmann::json good = nlohmann::json::parse(
        readFile((fs::path(NPUWB_SOURCE_DIR) / "resources" / "chips" / "rk3588.json").string()));
    auto errorWith = [&](const std::function<void(nlohmann::json&)>& edit) {
        nlohmann::json j = good;
        edit(j["matmul"]);
        try {
            chipProfileFromJson(j, "x.json");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(errorWith([](nlohmann::json& m) { m["B"]["int8"] = "[K/32,N/32,32,32]"; }),
              "chip profile 'x.json': field 'matmul.B.int8': expected a layout like [N/32,K/32,32,32], got "
              "'[K/32,N/32,32,32]'");
    EXPECT_EQ(errorWith([](nlohmann::json& m) { m["A"]["fp16"] = "[K/8,M,16]"; }),
              "chip profile 'x.json': field 'matmul.A.fp16': expected a layout like [K/16,M,16], got '[K/8,M,16]'");
    EXPECT_EQ(errorWith([](nlohmann::json& m) { m["types"][1] = "int8xint8->int64"; }),
              "chip profile 'x.json': field 'matmul.types[1]': unknown matmul type 'int8xint8->int64'");
    EXPECT_EQ(errorWith([](nlohmann::json& m) { m["nAlign"].erase("int4"); }),
              "chip profile 'x.json': field 'matmul.nAlign.int4': missing");
    EXPECT_EQ(errorWith([](nlohmann::json& m) { m["C"] = "[N/4,M,4]"; }), "no error");  // one C layout for all
}
