// The matmul benchmark sweep: random operands, one context per K, N serving every M, medians of timed runs,
// layout conversion costs, the chip's peak and the cost model's estimate per point.
#include "npuwb/MatmulBench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <set>

#include "npuwb/Error.h"
#include "npuwb/Session.h"
#include "npuwb/ir/Half.h"

namespace npuwb {

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kMaxBenchGigabytes = 4.0;

double microsecondsSince(Clock::time_point start) {
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/// Random values of `dtype` in normal layout: floats in [-1, 1], integers over their whole range.
std::vector<uint8_t> randomOperand(DType dtype, int64_t elements, std::mt19937_64& rng) {
    std::vector<uint8_t> data(size_t(matmulStorageBytes(dtype, elements)));
    std::uniform_real_distribution<float> real(-1.0f, 1.0f);
    std::uniform_int_distribution<int> byte(0, 255);
    if (dtype == DType::F16) {
        auto* p = reinterpret_cast<uint16_t*>(data.data());
        for (int64_t i = 0; i < elements; ++i) p[i] = floatToHalfBits(real(rng));
    } else {
        for (auto& b : data) b = uint8_t(byte(rng));  // int8 and packed int4 alike
    }
    return data;
}

/// Median time of `repeats` calls of f.
template <class F>
double timeMedian(int repeats, F&& f) {
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
        auto start = Clock::now();
        f();
        times.push_back(microsecondsSince(start));
    }
    return median(times);
}

MatmulSpec specFor(const MatmulBenchOptions& o, int64_t K, int64_t N) {
    MatmulSpec spec;
    spec.type = o.type;
    spec.mValues = o.mValues;
    spec.K = K;
    spec.N = N;
    spec.acLayout = o.acLayout;
    spec.bLayout = o.bLayout;
    return spec;
}

}  // namespace

std::vector<std::string> matmulBenchProblems(const ChipProfile& chip, const MatmulBenchOptions& options) {
    std::vector<std::string> problems;
    std::set<std::string> seen;
    if (options.mValues.empty() || options.kValues.empty() || options.nValues.empty())
        problems.push_back("the sweep needs at least one M, K and N");
    if (options.runs < 1) problems.push_back("runs must be at least 1");
    for (int64_t K : options.kValues)
        for (int64_t N : options.nValues)
            for (const auto& p : matmulChipProblems(specFor(options, K, N), chip))
                if (seen.insert(p).second) problems.push_back(p);
    // Operands in several copies (normal, native, a kernel's packed or fp32 one): refuse what cannot fit.
    const int64_t maxM =
        options.mValues.empty() ? 0 : *std::max_element(options.mValues.begin(), options.mValues.end());
    for (int64_t K : options.kValues)
        for (int64_t N : options.nValues) {
            const double gigabytes =
                4.0 * 4.0 * (double(maxM) * double(K) + double(K) * double(N) + double(maxM) * double(N)) / 1e9;
            if (gigabytes > kMaxBenchGigabytes) {
                char text[200];
                std::snprintf(text, sizeof text,
                              "M=%lld K=%lld N=%lld needs about %.1f GB, more than the %.0f GB a sweep may use",
                              static_cast<long long>(maxM), static_cast<long long>(K), static_cast<long long>(N),
                              gigabytes, kMaxBenchGigabytes);
                problems.push_back(text);
            }
        }
    return problems;
}

MatmulBenchResult runMatmulBench(const ChipProfile& chip, const MatmulBenchOptions& options,
                                 const std::function<bool(size_t, size_t)>& progress) {
    const std::vector<std::string> problems = matmulBenchProblems(chip, options);
    if (!problems.empty()) {
        std::string message;
        for (const auto& p : problems) message += (message.empty() ? "" : "; ") + p;
        failInput(message);
    }
    const MatmulTypeInfo& info = matmulTypeInfo(options.type);
    const MatmulNativeLayout native = matmulNativeLayout(options.type, chip);
    MatmulBenchResult result;
    result.chip = chip.name;
    result.type = options.type;
    result.bLayout = options.bLayout;
    result.acLayout = options.acLayout;
    result.threads = options.threads > 0 ? options.threads : physicalCoreCount();
    result.npuCores = std::clamp<int64_t>(options.npuCores, 1, chip.cores);
    result.coreMask = options.coreMask;
    std::mt19937_64 rng(options.seed);
    const size_t total = options.kValues.size() * options.nValues.size() * options.mValues.size();
    const int conversionRepeats = 3;
    for (int64_t K : options.kValues)
        for (int64_t N : options.nValues) {
            const MatmulSpec spec = specFor(options, K, N);
            const std::vector<uint8_t> normalB = randomOperand(info.b, K * N, rng);
            std::vector<uint8_t> nativeB(
                size_t(matmulOperandBytes(MatmulOperand::B, MatmulLayout::Native, info.b, 1, K, N, native)));
            const double bToNativeUs = timeMedian(conversionRepeats, [&] {
                convertMatmulOperand(MatmulOperand::B, info.b, 1, K, N, native, MatmulLayout::Norm, normalB.data(),
                                     MatmulLayout::Native, nativeB.data());
            });
            std::vector<uint8_t> b(
                size_t(matmulOperandBytes(MatmulOperand::B, options.bLayout, info.b, 1, K, N, native)));
            convertMatmulOperand(MatmulOperand::B, info.b, 1, K, N, native, MatmulLayout::Norm, normalB.data(),
                                 options.bLayout, b.data());
            MatmulContextOptions contextOptions;
            contextOptions.backend = options.backend;
            contextOptions.threads = result.threads;
            contextOptions.chip = &chip;
            contextOptions.coreMask = options.coreMask;
            MatmulContext context(spec, b.data(), contextOptions);
            for (int64_t M : options.mValues) {
                MatmulBenchPoint point;
                point.M = M;
                point.K = K;
                point.N = N;
                point.backend = context.backendName();
                point.fallbackReason = context.fallbackReason();
                point.aLayout = matmulLayoutText(MatmulOperand::A, MatmulLayout::Native, M, K, N, native);
                point.bLayout = matmulLayoutText(MatmulOperand::B, MatmulLayout::Native, M, K, N, native);
                point.cLayout = matmulLayoutText(MatmulOperand::C, MatmulLayout::Native, M, K, N, native);
                point.bToNativeUs = bToNativeUs;
                const std::vector<uint8_t> normalA = randomOperand(info.a, M * K, rng);
                std::vector<uint8_t> nativeA(
                    size_t(matmulOperandBytes(MatmulOperand::A, MatmulLayout::Native, info.a, M, K, N, native)));
                std::vector<uint8_t> nativeC(
                    size_t(matmulOperandBytes(MatmulOperand::C, MatmulLayout::Native, info.c, M, K, N, native)));
                std::vector<uint8_t> normalC(size_t(matmulStorageBytes(info.c, M * N)));
                point.acToNativeUs = timeMedian(conversionRepeats, [&] {
                    convertMatmulOperand(MatmulOperand::A, info.a, M, K, N, native, MatmulLayout::Norm, normalA.data(),
                                         MatmulLayout::Native, nativeA.data());
                    convertMatmulOperand(MatmulOperand::C, info.c, M, K, N, native, MatmulLayout::Native,
                                         nativeC.data(), MatmulLayout::Norm, normalC.data());
                });
                const bool nativeAC = options.acLayout == MatmulLayout::Native;
                const void* a = nativeAC ? nativeA.data() : normalA.data();
                void* c = nativeAC ? nativeC.data() : normalC.data();
                for (int i = 0; i < options.warmup; ++i) context.run(M, a, c);
                std::vector<double> times;
                for (int i = 0; i < options.runs; ++i) {
                    auto start = Clock::now();
                    context.run(M, a, c);
                    times.push_back(microsecondsSince(start));
                }
                point.medianUs = median(times);
                point.minUs = *std::min_element(times.begin(), times.end());
                point.gops = point.medianUs > 0 ? 2.0 * double(M) * double(K) * double(N) / point.medianUs / 1e3 : 0;
                point.estimate = estimateMatmul(spec, M, chip, result.npuCores);
                result.peakGops = point.estimate.peakGops;
                result.points.push_back(point);
                if (progress && !progress(result.points.size(), total))
                    fail(ErrorKind::Cancelled, "matmul benchmark cancelled");
            }
        }
    return result;
}

}  // namespace npuwb
