// The rknpu plugin's matmul kernels (the vendor's matmul calls) through the engine's public API (MatmulContext with
// backend "rknpu"), against the stand-in librknnrt.so: results equal the engine's CPU reference (the stand-in
// computes with it, so every type is compared byte for byte here; on a board float types would need a tolerance),
// for int8 per layer and per channel, fp16, int4, B native and normal, B converted by the runtime, native A/C,
// several M from one context; the runtime's io_attr checked against the engine's layouts; clear errors naming the
// library, the call and the vendor's error code; no buffer left behind.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>

#include "MatmulTestOperands.h"
#include "RknpuTestSupport.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/Matmul.h"
#include "npuwb/ir/Half.h"

using namespace npuwb;
using npuwb::matmul_test::randomOperand;
using namespace npuwb::rknpu_test;

namespace {

/// Points the plugin at a stand-in for the chip `chip` for the test's duration.
struct StandinScope {
    explicit StandinScope(const char* library = STANDIN_RKNNRT_PATH, const char* chip = "rk3588") {
        setenv("NPUWB_RKNNRT_LIBRARY", library, 1);
        setenv("NPUWB_STANDIN_CHIP", chip, 1);
    }
    ~StandinScope() {
        unsetenv("NPUWB_RKNNRT_LIBRARY");
        unsetenv("NPUWB_STANDIN_CHIP");
    }
};

uint64_t liveBuffers() {
    void* handle = dlopen(STANDIN_RKNNRT_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!handle) return ~uint64_t{0};
    auto count = reinterpret_cast<uint64_t (*)()>(dlsym(handle, "npuwb_standin_live_mems"));
    const uint64_t live = count ? count() : ~uint64_t{0};
    dlclose(handle);
    return live;
}

struct Case {
    MatmulSpec spec;
    const char* chip = "rk3588";
    bool bGivenNormal = false;  // B handed over [K,N] for the runtime's own conversion to native
};

/// B and A are made in the normal layout, converted to the spec's layouts for the NPU; the NPU's C (converted back
/// when native) must equal the reference's, for every M of one context.
void expectReferenceResults(const Case& c) {
    StandinScope standin(STANDIN_RKNNRT_PATH, c.chip);
    const ChipProfile chip = findChipProfile(c.chip);
    const MatmulSpec& spec = c.spec;
    const MatmulTypeInfo info = matmulTypeInfo(spec.type);
    const bool nativeUsed = spec.bLayout == MatmulLayout::Native || spec.acLayout == MatmulLayout::Native;
    const MatmulNativeLayout native = nativeUsed ? matmulNativeLayout(spec.type, chip) : MatmulNativeLayout{};
    std::mt19937 rng(19);
    const MatmulLayout bNormal = spec.bLayout == MatmulLayout::TpNorm ? MatmulLayout::TpNorm : MatmulLayout::Norm;
    const std::vector<uint8_t> b = randomOperand(info.b, spec.K * spec.N, rng);
    std::vector<uint8_t> bSpec = b;
    if (spec.bLayout == MatmulLayout::Native && !c.bGivenNormal) {
        bSpec.assign(size_t(matmulOperandBytes(MatmulOperand::B, MatmulLayout::Native, info.b, 1, spec.K, spec.N,
                                               native)), 0);
        convertMatmulOperand(MatmulOperand::B, info.b, 1, spec.K, spec.N, native, MatmulLayout::Norm, b.data(),
                             MatmulLayout::Native, bSpec.data());
    }
    MatmulContextOptions npuOptions;
    npuOptions.backend = "rknpu";
    npuOptions.chip = &chip;
    npuOptions.bGivenNormal = c.bGivenNormal;
    {
        MatmulContext npu(spec, bSpec.data(), npuOptions);
        ASSERT_EQ(npu.backendName(), "rknpu") << npu.fallbackReason();
        MatmulSpec normal = spec;
        normal.bLayout = bNormal;
        normal.acLayout = MatmulLayout::Norm;
        MatmulContextOptions refOptions;
        refOptions.backend = "reference";
        MatmulContext reference(normal, b.data(), refOptions);
        for (int64_t M : spec.mValues) {
            const std::vector<uint8_t> a = randomOperand(info.a, M * spec.K, rng);
            std::vector<uint8_t> want(size_t(matmulStorageBytes(info.c, M * spec.N)), 0);
            reference.run(M, a.data(), want.data());
            std::vector<uint8_t> aSpec = a;
            const MatmulLayout ac = spec.acLayout;
            if (ac == MatmulLayout::Native) {
                aSpec.assign(size_t(matmulOperandBytes(MatmulOperand::A, ac, info.a, M, spec.K, spec.N, native)), 0);
                convertMatmulOperand(MatmulOperand::A, info.a, M, spec.K, spec.N, native, MatmulLayout::Norm,
                                     a.data(), ac, aSpec.data());
            }
            std::vector<uint8_t> cSpec(size_t(matmulOperandBytes(MatmulOperand::C, ac, info.c, M, spec.K, spec.N,
                                                                 native)), 0xcd);
            npu.run(M, aSpec.data(), cSpec.data());
            std::vector<uint8_t> got = cSpec;
            if (ac == MatmulLayout::Native) {
                got.assign(want.size(), 0xcd);
                convertMatmulOperand(MatmulOperand::C, info.c, M, spec.K, spec.N, native, ac, cSpec.data(),
                                     MatmulLayout::Norm, got.data());
            }
            ASSERT_EQ(got.size(), want.size());
            EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size()), 0) << info.name << " M=" << M;
        }
    }
    EXPECT_EQ(liveBuffers(), 0u) << "rknn_destroy_mem for every rknn_create_mem";
}

MatmulSpec spec(MatmulType type, std::vector<int64_t> ms, int64_t K, int64_t N, MatmulLayout b, MatmulLayout ac) {
    MatmulSpec s;
    s.type = type;
    s.mValues = std::move(ms);
    s.K = K;
    s.N = N;
    s.bLayout = b;
    s.acLayout = ac;
    return s;
}

}  // namespace

TEST(RknnMatmul, Int8PerLayerNativeBSeveralM) {
    Case c{spec(MatmulType::Int8xInt8ToInt8, {1, 4, 16}, 64, 64, MatmulLayout::Native, MatmulLayout::Norm)};
    c.spec.a.scales = {0.05f};
    c.spec.a.zeroPoints = {3};
    c.spec.b.scales = {0.02f};
    c.spec.b.zeroPoints = {-2};
    c.spec.c.scales = {0.2f};
    c.spec.c.zeroPoints = {1};
    expectReferenceResults(c);
}

TEST(RknnMatmul, Int8PerChannelNormalB) {
    Case c{spec(MatmulType::Int8xInt8ToInt32, {3}, 64, 32, MatmulLayout::Norm, MatmulLayout::Norm)};
    c.spec.b.granularity = QuantGranularity::PerChannel;
    for (int n = 0; n < 32; ++n) c.spec.b.scales.push_back(0.01f * float(n + 1)), c.spec.b.zeroPoints.push_back(0);
    c.spec.a.scales = {0.1f};
    c.spec.c.scales = {0.5f};
    expectReferenceResults(c);
}

TEST(RknnMatmul, Fp16BConvertedByTheRuntimeNativeAC) {
    Case c{spec(MatmulType::Fp16xFp16ToFp32, {1, 8}, 64, 32, MatmulLayout::Native, MatmulLayout::Native)};
    c.bGivenNormal = true;  // rknn_B_normal_layout_to_native_layout
    expectReferenceResults(c);
}

TEST(RknnMatmul, Fp16NativeOnRk3566) {
    Case c{spec(MatmulType::Fp16xFp16ToFp16, {2, 5}, 32, 16, MatmulLayout::Native, MatmulLayout::Native), "rk3566"};
    expectReferenceResults(c);
}

TEST(RknnMatmul, Int8TransposedB) {
    Case c{spec(MatmulType::Int8xInt8ToInt32, {3}, 64, 32, MatmulLayout::TpNorm, MatmulLayout::Norm)};
    expectReferenceResults(c);
}

TEST(RknnMatmul, Int4NativeB) {
    Case c{spec(MatmulType::Int4xInt4ToInt16, {2, 7}, 64, 64, MatmulLayout::Native, MatmulLayout::Norm)};
    expectReferenceResults(c);
}

TEST(RknnMatmul, LibraryWithoutTheMatmulApiIsNamed) {
    StandinScope mini(STANDIN_RKNNMRT_PATH);
    const ChipProfile chip = findChipProfile("rk3588");
    MatmulSpec s = spec(MatmulType::Int8xInt8ToInt32, {1}, 64, 32, MatmulLayout::Norm, MatmulLayout::Norm);
    std::vector<uint8_t> b(64 * 32);
    MatmulContextOptions options;
    options.backend = "rknpu";
    options.chip = &chip;
    const Error e = thrownBy([&] { MatmulContext npu(s, b.data(), options); });
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported);
    const std::string what = e.what();
    EXPECT_NE(what.find(std::string("'") + STANDIN_RKNNMRT_PATH + "' has no matmul API: it lacks rknn_matmul_create,"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("rknn_B_normal_layout_to_native_layout"), std::string::npos) << what;
}

TEST(RknnMatmul, BoardOfAnotherChipIsCaughtByTheLayoutCheck) {
    StandinScope rk3566(STANDIN_RKNNRT_PATH, "rk3566");
    const ChipProfile chip = findChipProfile("rk3588");  // the user says RK3588, the board is an RK3566
    MatmulSpec s = spec(MatmulType::Int8xInt8ToInt32, {1}, 64, 32, MatmulLayout::Native, MatmulLayout::Norm);
    std::vector<uint8_t> b(64 * 32);
    MatmulContextOptions options;
    options.backend = "rknpu";
    options.chip = &chip;
    const Error e = thrownBy([&] { MatmulContext npu(s, b.data(), options); });
    const std::string what = e.what();
    EXPECT_NE(what.find("the runtime's B for M=1 is [2,2,16,32]"), std::string::npos) << what;
    EXPECT_NE(what.find("the engine's layout for the chip asked is [1,2,32,32]"), std::string::npos) << what;
    EXPECT_EQ(liveBuffers(), 0u);
}

TEST(RknnMatmul, RefusedCallIsNamedWithTheVendorCode) {
    StandinScope rk3566(STANDIN_RKNNRT_PATH, "rk3566");
    const ChipProfile chip = findChipProfile("rk3566");
    MatmulSpec s = spec(MatmulType::Int8xInt8ToInt32, {1, 2}, 64, 32, MatmulLayout::Norm, MatmulLayout::Norm);
    std::vector<uint8_t> b(64 * 32);
    MatmulContextOptions options;
    options.backend = "rknpu";
    options.chip = &chip;
    options.coreMask = NpuCoreMask::Cores01;  // RK3566 has one NPU core
    const Error e = thrownBy([&] { MatmulContext npu(s, b.data(), options); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
    const std::string what = e.what();
    EXPECT_NE(what.find("rknn_matmul_set_core_mask(0_1) failed with RKNN error -5 (RKNN_ERR_PARAM_INVALID) for "
                        "int8xint8->int32 M=1,2 K=64 N=32"),
              std::string::npos)
        << what;
    EXPECT_EQ(liveBuffers(), 0u);
}
