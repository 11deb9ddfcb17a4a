// Every backend plugin with matmul kernels against the engine's plain reference, over every matmul type with
// seeded random shapes and quantization (none, per layer, per channel, per group; symmetric and asymmetric):
// integer types bit-exact, fp16-input types within the fp32 accumulation bound; several M from one context
// (dynamic shapes); the chips' native layouts through a context.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

#include "MatmulTestOperands.h"
#include "npuwb/Error.h"
#include "npuwb/Matmul.h"
#include "npuwb/ir/Half.h"
#include "npuwb/sdk/MatmulKernel.h"

using namespace npuwb;
using npuwb::matmul_test::randomOperand;

namespace {

enum class Quant { None, PerLayer, PerChannel, PerGroup };
const char* quantName(Quant q) {
    return q == Quant::None         ? "none"
           : q == Quant::PerLayer   ? "per-layer"
           : q == Quant::PerChannel ? "per-channel"
                                    : "per-group";
}

int32_t zeroPointFor(DType dtype, std::mt19937& rng, bool asymmetric) {
    if (!asymmetric) return 0;
    const int span = dtype == DType::I4 ? 16 : 256;
    return int32_t(rng() % span) - span / 2;
}

/// Quantization of the integer operands as the case asks (float operands stay unquantized).
void addQuant(MatmulSpec& s, Quant q, bool asymmetric, int64_t groupSize, std::mt19937& rng) {
    if (q == Quant::None) return;
    const MatmulTypeInfo& info = matmulTypeInfo(s.type);
    std::uniform_real_distribution<float> scale(0.01f, 0.2f);
    if (isInteger(info.a)) {
        s.a.scales = {scale(rng)};
        s.a.zeroPoints = {zeroPointFor(info.a, rng, asymmetric)};
    }
    if (isInteger(info.b)) {
        s.b.granularity = q == Quant::PerLayer     ? QuantGranularity::PerLayer
                          : q == Quant::PerChannel ? QuantGranularity::PerChannel
                                                   : QuantGranularity::PerGroup;
        s.b.groupSize = q == Quant::PerGroup ? groupSize : 0;
        const size_t count = q == Quant::PerLayer     ? 1
                             : q == Quant::PerChannel ? size_t(s.N)
                                                      : size_t(s.K / groupSize * s.N);
        for (size_t i = 0; i < count; ++i) {
            s.b.scales.push_back(scale(rng));
            s.b.zeroPoints.push_back(zeroPointFor(info.b, rng, asymmetric));
        }
    }
    if (isInteger(info.c)) {
        s.c.scales = {info.c == DType::I32 ? 0.5f : info.c == DType::I16 ? 0.05f : 0.003f};
        s.c.zeroPoints = {zeroPointFor(DType::I8, rng, asymmetric) / 4};
    }
}

/// |real(B)| as fp16-A types use it, [K,N].
std::vector<double> absoluteRealB(const MatmulSpec& s, const std::vector<uint8_t>& b) {
    MatmulKernelSpec k;
    k.type = s.type;
    k.K = s.K;
    k.N = s.N;
    k.b = s.b;
    k.bTransposed = s.bLayout == MatmulLayout::TpNorm;
    std::vector<double> out(size_t(s.K * s.N));
    for (int64_t i = 0; i < s.K; ++i)
        for (int64_t n = 0; n < s.N; ++n) out[size_t(i * s.N + n)] = std::fabs(dequantizedB(k, b.data(), i, n));
    return out;
}

/// Largest allowed difference per element: fp32 accumulation error over K terms plus one step of the output type.
double floatBound(const MatmulSpec& s, const std::vector<uint8_t>& a, const std::vector<double>& absB, int64_t m,
                  int64_t n, double reference) {
    double magnitude = 0;
    for (int64_t i = 0; i < s.K; ++i)
        magnitude += std::fabs(halfBitsToFloat(reinterpret_cast<const uint16_t*>(a.data())[m * s.K + i])) *
                     absB[size_t(i * s.N + n)];
    const DType c = matmulTypeInfo(s.type).c;
    const double step = c == DType::F16 ? std::ldexp(1.0, -10) : c == DType::BF16 ? std::ldexp(1.0, -7) : 0.0;
    return 2e-6 * magnitude * std::sqrt(double(s.K)) + step * std::fabs(reference) + 1e-6;
}

double toDouble(DType c, const std::vector<uint8_t>& data, int64_t i) {
    const auto* u16 = reinterpret_cast<const uint16_t*>(data.data());
    switch (c) {
        case DType::F32:
            return reinterpret_cast<const float*>(data.data())[i];
        case DType::F16:
            return halfBitsToFloat(u16[i]);
        default:
            return bfloat16BitsToFloat(u16[i]);
    }
}

/// Runs `spec` on `backend` and on the reference for every M; integer C bit-exact, float C within the bound.
void compareWithReference(const MatmulSpec& spec, const std::string& backend, std::mt19937& rng,
                          const std::string& label) {
    const MatmulTypeInfo& info = matmulTypeInfo(spec.type);
    const std::vector<uint8_t> b = randomOperand(info.b, spec.K * spec.N, rng);
    MatmulContextOptions options;
    options.backend = backend;
    options.threads = 2;
    MatmulContext plugin(spec, b.data(), options);
    ASSERT_EQ(plugin.backendName(), backend) << label << ": " << plugin.fallbackReason();
    options.backend = "reference";
    MatmulContext reference(spec, b.data(), options);
    const std::vector<double> absB = info.a == DType::F16 ? absoluteRealB(spec, b) : std::vector<double>();
    for (int64_t M : spec.mValues) {
        const std::vector<uint8_t> a = randomOperand(info.a, M * spec.K, rng);
        std::vector<uint8_t> got(size_t(matmulStorageBytes(info.c, M * spec.N)), 0xcd), want(got.size(), 0);
        plugin.run(M, a.data(), got.data());
        reference.run(M, a.data(), want.data());
        if (info.a != DType::F16) {  // integer inputs: exact sums and the shared epilogue, whatever C's type
            ASSERT_EQ(std::memcmp(got.data(), want.data(), got.size()), 0) << label << " M=" << M;
            continue;
        }
        for (int64_t m = 0; m < M; ++m)
            for (int64_t n = 0; n < spec.N; ++n) {
                const double w = toDouble(info.c, want, m * spec.N + n), g = toDouble(info.c, got, m * spec.N + n);
                ASSERT_LE(std::fabs(g - w), floatBound(spec, a, absB, m, n, w))
                    << label << " M=" << M << " at (" << m << "," << n << "): got " << g << " want " << w;
            }
    }
}

std::vector<std::string> pluginsWithMatmul() { return availableMatmulBackends(); }

}  // namespace

TEST(MatmulKernels, EveryTypeAndQuantizationMatchesTheReference) {
    const auto backends = pluginsWithMatmul();
    if (backends.empty()) GTEST_SKIP() << "no backend plugin with matmul kernels was built";
    std::mt19937 rng(20250119);
    for (const auto& backend : backends)
        for (const auto& type : kMatmulTypes)
            for (Quant q : {Quant::None, Quant::PerLayer, Quant::PerChannel, Quant::PerGroup})
                for (bool asymmetric : {false, true}) {
                    if (q == Quant::None && asymmetric) continue;
                    if (!isInteger(type.b) && q != Quant::None && !isInteger(type.a)) continue;
                    const int64_t groupSize = 8 * int64_t(1 + rng() % 6);  // 8..48, multiples of 8
                    MatmulSpec spec;
                    spec.type = type.type;
                    spec.K = groupSize * int64_t(1 + rng() % 6);
                    spec.N = 1 + int64_t(rng() % 70);
                    spec.mValues = {1, 3, 17, 2 + int64_t(rng() % 40)};
                    spec.bLayout = rng() % 2 ? MatmulLayout::TpNorm : MatmulLayout::Norm;
                    addQuant(spec, q, asymmetric, groupSize, rng);
                    const std::string label = backend + " " + std::string(type.name) + " " + quantName(q) +
                                              (asymmetric ? " asym" : " sym") + " K=" + std::to_string(spec.K) +
                                              " N=" + std::to_string(spec.N) + " B " +
                                              std::string(matmulLayoutName(spec.bLayout));
                    compareWithReference(spec, backend, rng, label);
                }
}

// The small-M int4 kernel and the large-M path on the same context, at sizes of a transformer layer, with
// groups of 32 and of 12 rows (not a multiple of the kernel's 8: the dequantized path takes it).
TEST(MatmulKernels, Int4WeightsAtDecodeAndPrefillSizes) {
    const auto backends = pluginsWithMatmul();
    if (backends.empty()) GTEST_SKIP() << "no backend plugin with matmul kernels was built";
    std::mt19937 rng(4);
    for (const auto& backend : backends)
        for (MatmulType type : {MatmulType::Fp16xInt4ToFp32, MatmulType::Fp16xInt4ToFp16})
            for (int64_t groupSize : {32, 12}) {
                MatmulSpec spec;
                spec.type = type;
                spec.K = 384;
                spec.N = 200;
                spec.mValues = {1, 2, 5, 16, 33};
                addQuant(spec, Quant::PerGroup, true, groupSize, rng);
                compareWithReference(spec, backend, rng, backend + " int4 groups of " + std::to_string(groupSize));
            }
    // K and N off the kernels' blocks (padding of K to 8 rows and of N to the vector width), per channel.
    for (const auto& backend : backends) {
        MatmulSpec spec;
        spec.type = MatmulType::Fp16xInt4ToFp32;
        spec.K = 37;
        spec.N = 50;
        spec.mValues = {1, 6};
        addQuant(spec, Quant::PerChannel, true, 0, rng);
        compareWithReference(spec, backend, rng, backend + " int4 K=37 N=50");
    }
}

// The same on cpu-onednn's AVX2 int4 kernel (an AVX-512 machine otherwise never runs it).
TEST(MatmulKernels, Int4WeightsOnTheAvx2Kernel) {
    const auto backends = pluginsWithMatmul();
    if (std::find(backends.begin(), backends.end(), "cpu-onednn") == backends.end())
        GTEST_SKIP() << "the cpu-onednn plugin was not built";
    ::setenv("NPUWB_MATMUL_MAX_ISA", "avx2", 1);
    std::mt19937 rng(2);
    for (int64_t groupSize : {8, 64}) {
        MatmulSpec spec;
        spec.type = MatmulType::Fp16xInt4ToFp16;
        spec.K = 320;
        spec.N = 77;
        spec.mValues = {1, 3, 4, 7, 16};
        addQuant(spec, Quant::PerGroup, true, groupSize, rng);
        compareWithReference(spec, "cpu-onednn", rng, "avx2 int4 groups of " + std::to_string(groupSize));
    }
    ::unsetenv("NPUWB_MATMUL_MAX_ISA");
}

// Native A, B and C through a context on RK3576 (every type): the same results as the normal layouts.
TEST(MatmulKernels, NativeLayoutsThroughAContext) {
    const auto backends = pluginsWithMatmul();
    const ChipProfile chip =
        loadChipProfile((std::filesystem::path(NPUWB_SOURCE_DIR) / "resources" / "chips" / "rk3576.json").string());
    std::mt19937 rng(3576);
    std::vector<std::string> all = backends;
    all.push_back("reference");
    for (const auto& backend : all)
        for (const auto& type : kMatmulTypes) {
            MatmulSpec normal;
            normal.type = type.type;
            normal.K = 96;
            normal.N = 128;
            normal.mValues = {1, 5};
            MatmulSpec native = normal;
            native.acLayout = MatmulLayout::Native;
            native.bLayout = MatmulLayout::Native;
            const MatmulNativeLayout layout = matmulNativeLayout(type.type, chip);
            const auto b = randomOperand(type.b, normal.K * normal.N, rng);
            std::vector<uint8_t> bNative(
                size_t(matmulOperandBytes(MatmulOperand::B, MatmulLayout::Native, type.b, 1, 96, 128, layout)));
            convertMatmulOperand(MatmulOperand::B, type.b, 1, 96, 128, layout, MatmulLayout::Norm, b.data(),
                                 MatmulLayout::Native, bNative.data());
            MatmulContextOptions options;
            options.backend = backend;
            options.threads = 2;
            options.chip = &chip;
            MatmulContext plain(normal, b.data(), options), blocked(native, bNative.data(), options);
            options.bGivenNormal = true;  // a native B handed over [K,N]: no conversion needed on the CPU
            MatmulContext givenNormal(native, b.data(), options);
            for (int64_t M : normal.mValues) {
                const auto a = randomOperand(type.a, M * 96, rng);
                std::vector<uint8_t> aNative(
                    size_t(matmulOperandBytes(MatmulOperand::A, MatmulLayout::Native, type.a, M, 96, 128, layout)));
                convertMatmulOperand(MatmulOperand::A, type.a, M, 96, 128, layout, MatmulLayout::Norm, a.data(),
                                     MatmulLayout::Native, aNative.data());
                std::vector<uint8_t> c(size_t(matmulStorageBytes(type.c, M * 128)));
                std::vector<uint8_t> cNative(
                    size_t(matmulOperandBytes(MatmulOperand::C, MatmulLayout::Native, type.c, M, 96, 128, layout)));
                std::vector<uint8_t> cBack(c.size());
                plain.run(M, a.data(), c.data());
                blocked.run(M, aNative.data(), cNative.data());
                convertMatmulOperand(MatmulOperand::C, type.c, M, 96, 128, layout, MatmulLayout::Native, cNative.data(),
                                     MatmulLayout::Norm, cBack.data());
                EXPECT_EQ(cBack, c) << backend << " " << type.name << " M=" << M;
                std::fill(cNative.begin(), cNative.end(), 0xcd);
                givenNormal.run(M, aNative.data(), cNative.data());
                convertMatmulOperand(MatmulOperand::C, type.c, M, 96, 128, layout, MatmulLayout::Native, cNative.data(),
                                     MatmulLayout::Norm, cBack.data());
                EXPECT_EQ(cBack, c) << backend << " " << type.name << " M=" << M << " (B given normal)";
            }
        }
}

TEST(MatmulKernels, ClearErrors) {
    MatmulSpec spec;
    spec.type = MatmulType::Int8xInt8ToInt32;
    spec.K = 32;
    spec.N = 32;
    spec.mValues = {1, 4};
    std::vector<int8_t> b(32 * 32, 1), a(4 * 32, 1);
    std::vector<int32_t> c(4 * 32);
    MatmulContextOptions options;
    options.backend = "reference";
    MatmulContext context(spec, b.data(), options);
    try {
        context.run(2, a.data(), c.data());
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "matmul run with M=2, which is not one of the prepared shapes (M=1,4)");
    }
    context.run(4, a.data(), c.data());
    EXPECT_EQ(c[0], 32);
    options.backend = "no-such-backend";
    EXPECT_THROW(MatmulContext(spec, b.data(), options), Error);
    spec.acLayout = MatmulLayout::Native;
    options.backend = "reference";
    try {
        MatmulContext native(spec, b.data(), options);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "native matmul layouts need a chip (its profile defines them)");
    }
    spec.acLayout = MatmulLayout::Norm;
    options.bGivenNormal = true;  // only for a native B
    try {
        MatmulContext normalB(spec, b.data(), options);
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "B given in the normal layout for conversion, but the spec's B layout is norm, not native");
    }
}
