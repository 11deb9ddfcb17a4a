// npuwb-matmul-peer: our matmul kernels side by side with the fastest libraries on this machine, in one process
// and interleaved (each round runs every contestant once, so a busy spell of the machine falls on all of them):
//   fp32 GEMM      ours: fp16xfp16->fp32 through MatmulContext (A converted to fp32 on every run, fp32 GEMM with
//                  fp32 accumulation), peers: oneDNN's f32 matmul with prepacked weights, OpenBLAS sgemm
//   int8 GEMM      ours: int8xint8->int32 (exact int32)
//   int4 weights   ours: fp16xint4->fp32 (w4a16, per-channel scales) against our fp32 at the same M
// Prints median milliseconds and the ratios the benchmark goals name. Run by tests/bench/bench_matmul.sh.
#include <oneapi/dnnl/dnnl.hpp>
#ifdef NPUWB_HAVE_OPENBLAS
#include <cblas.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "npuwb/Matmul.h"
#include "npuwb/ir/Half.h"

using namespace npuwb;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    int threads = 2;
    int rounds = 5;
    int runs = 10;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

/// A contestant: a function running one multiplication, timed `runs` times per round after one warm-up call.
struct Contestant {
    std::string name;
    std::function<void()> run;
    std::vector<double> ms;
};

void timeRounds(std::vector<Contestant>& contestants, const Options& o) {
    for (int round = 0; round < o.rounds; ++round)
        for (auto& c : contestants) {
            c.run();
            for (int i = 0; i < o.runs; ++i) {
                auto start = Clock::now();
                c.run();
                c.ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
            }
            // OpenBLAS' and OpenMP's idle workers spin for a while after a call: let them sleep before the next.
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
}

std::vector<uint8_t> randomBytes(size_t n, std::mt19937& rng) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = uint8_t(rng());
    return v;
}

std::vector<float> randomFloats(size_t n, std::mt19937& rng) {
    std::uniform_real_distribution<float> d(-1, 1);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
}

std::vector<uint16_t> toHalf(const std::vector<float>& v) {
    std::vector<uint16_t> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) h[i] = floatToHalfBits(v[i]);
    return h;
}

/// Our matmul of `type` for one M: a context over random operands; B prepared once.
struct Ours {
    std::unique_ptr<MatmulContext> context;
    std::vector<uint8_t> a, c;
    int64_t M;
    void operator()() { context->run(M, a.data(), c.data()); }
};

Ours ours(MatmulType type, int64_t M, int64_t K, int64_t N, int threads, std::mt19937& rng, bool perChannel = false) {
    const MatmulTypeInfo& info = matmulTypeInfo(type);
    MatmulSpec spec;
    spec.type = type;
    spec.mValues = {M};
    spec.K = K;
    spec.N = N;
    if (perChannel) {
        spec.b.granularity = QuantGranularity::PerChannel;
        spec.b.scales = std::vector<float>(size_t(N), 0.02f);
    }
    std::vector<uint8_t> b = info.b == DType::F16
                                 ? [&] { auto h = toHalf(randomFloats(size_t(K * N), rng));
                                         return std::vector<uint8_t>(reinterpret_cast<uint8_t*>(h.data()),
                                                                     reinterpret_cast<uint8_t*>(h.data() + h.size())); }()
                                 : randomBytes(size_t(matmulStorageBytes(info.b, K * N)), rng);
    MatmulContextOptions options;
    options.threads = threads;
    Ours o;
    o.context = std::make_unique<MatmulContext>(spec, b.data(), options);
    o.M = M;
    if (info.a == DType::F16) {
        auto h = toHalf(randomFloats(size_t(M * K), rng));
        o.a.assign(reinterpret_cast<uint8_t*>(h.data()), reinterpret_cast<uint8_t*>(h.data() + h.size()));
    } else {
        o.a = randomBytes(size_t(matmulStorageBytes(info.a, M * K)), rng);
    }
    o.c.resize(size_t(matmulStorageBytes(info.c, M * N)));
    std::fprintf(stderr, "ours %s M=%lld K=%lld N=%lld on %s\n", std::string(info.name).c_str(), (long long)M,
                 (long long)K, (long long)N, o.context->backendName().c_str());
    return o;
}

/// oneDNN's f32 matmul with weights reordered once into the layout it prefers.
struct OnednnF32 {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    dnnl::matmul primitive;
    dnnl::memory a, b, c;
    std::vector<float> aData, cData;
    OnednnF32(int64_t M, int64_t K, int64_t N, std::mt19937& rng) {
        using dnnl::memory;
        aData = randomFloats(size_t(M * K), rng);
        cData.resize(size_t(M * N));
        std::vector<float> bData = randomFloats(size_t(K * N), rng);
        memory::desc ad({M, K}, memory::data_type::f32, memory::format_tag::ab);
        memory::desc bd({K, N}, memory::data_type::f32, memory::format_tag::any);
        memory::desc cd({M, N}, memory::data_type::f32, memory::format_tag::ab);
        dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(ad, bd, cd), engine);
        primitive = dnnl::matmul(pd);
        memory plain({{K, N}, memory::data_type::f32, memory::format_tag::ab}, engine, bData.data());
        b = memory(pd.weights_desc(), engine);
        dnnl::reorder(plain, b).execute(stream, plain, b);
        stream.wait();
        a = memory(ad, engine, aData.data());
        c = memory(cd, engine, cData.data());
        std::fprintf(stderr, "oneDNN f32 matmul M=%lld: %s\n", (long long)M, pd.impl_info_str());
    }
    void operator()() {
        primitive.execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
        stream.wait();
    }
};

#ifdef NPUWB_HAVE_OPENBLAS
struct OpenblasSgemm {
    int64_t M, K, N;
    std::vector<float> a, b, c;
    OpenblasSgemm(int64_t m, int64_t k, int64_t n, std::mt19937& rng)
        : M(m),
          K(k),
          N(n),
          a(randomFloats(size_t(m * k), rng)),
          b(randomFloats(size_t(k * n), rng)),
          c(size_t(m * n)) {}
    void operator()() {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, int(M), int(N), int(K), 1.0f, a.data(), int(K), b.data(),
                    int(N), 0.0f, c.data(), int(N));
    }
};
#endif

struct Case {
    std::string name;
    int64_t M, K, N;
};

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (argc == 2 && std::string(argv[1]) == "--probe-openblas") {
#ifdef NPUWB_HAVE_OPENBLAS
        // The bench script's pick of OpenBLAS' core type: median ms of sgemm 1024^3 with the current one.
        std::mt19937 rng(1);
        OpenblasSgemm sgemm(1024, 1024, 1024, rng);
        std::vector<Contestant> one = {{"OpenBLAS sgemm", std::ref(sgemm), {}}};
        o.rounds = 2;
        o.runs = 5;
        timeRounds(one, o);
        std::printf("%.3f\n", median(one[0].ms));
        return 0;
#else
        return 1;
#endif
    }
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string key = argv[i];
        const int value = std::atoi(argv[i + 1]);
        if (key == "--threads")
            o.threads = value;
        else if (key == "--rounds")
            o.rounds = value;
        else if (key == "--runs")
            o.runs = value;
        else {
            std::fprintf(stderr, "usage: %s [--threads T] [--rounds R] [--runs N]\n", argv[0]);
            return 1;
        }
    }
    setenv("OMP_NUM_THREADS", std::to_string(o.threads).c_str(), 0);
#ifdef NPUWB_HAVE_OPENBLAS
    openblas_set_num_threads(o.threads);
    std::fprintf(stderr, "OpenBLAS core: %s, config: %s\n", openblas_get_corename(), openblas_get_config());
#endif
    std::mt19937 rng(1);
    std::printf("%-28s %10s %10s %10s   %s\n", "case (M x K x N)", "ours_ms", "onednn_ms", "openblas_ms", "ratios");
    struct Goal {
        std::string what;
        double ratio, wanted;
    };
    std::vector<Goal> goals;
    for (const Case& size :
         {Case{"gemm", 1024, 1024, 1024}, Case{"decode", 1, 1024, 1024}, Case{"decode", 1, 4096, 4096}}) {
        const std::string label = std::to_string(size.M) + "x" + std::to_string(size.K) + "x" + std::to_string(size.N);
        Ours fp32 = ours(MatmulType::Fp16xFp16ToFp32, size.M, size.K, size.N, o.threads, rng);
        Ours int8 = ours(MatmulType::Int8xInt8ToInt32, size.M, size.K, size.N, o.threads, rng);
        Ours int4 = ours(MatmulType::Fp16xInt4ToFp32, size.M, size.K, size.N, o.threads, rng, true);
        OnednnF32 onednn(size.M, size.K, size.N, rng);
        std::vector<Contestant> contestants = {{"ours fp32", std::ref(fp32), {}},
                                               {"ours int8", std::ref(int8), {}},
                                               {"ours int4 weights", std::ref(int4), {}},
                                               {"oneDNN f32", std::ref(onednn), {}}};
#ifdef NPUWB_HAVE_OPENBLAS
        OpenblasSgemm openblas(size.M, size.K, size.N, rng);
        contestants.push_back({"OpenBLAS sgemm", std::ref(openblas), {}});
#endif
        timeRounds(contestants, o);
        const double ours32 = median(contestants[0].ms), ours8 = median(contestants[1].ms),
                     ours4 = median(contestants[2].ms);
        const double dnnl = median(contestants[3].ms);
        const double blas = contestants.size() > 4 ? median(contestants[4].ms) : 0;
        const double fastest = blas > 0 ? std::min(dnnl, blas) : dnnl;
        std::printf("%-28s %10.3f %10.3f %10.3f   fastest library / ours %.2fx\n", ("fp32 " + label).c_str(), ours32,
                    dnnl, blas, fastest / ours32);
        std::printf("%-28s %10.3f %10s %10s   our fp32 / int8 %.2fx\n", ("int8 " + label).c_str(), ours8, "-", "-",
                    ours32 / ours8);
        std::printf("%-28s %10.3f %10s %10s   our fp32 / int4 weights %.2fx\n", ("w4a16 " + label).c_str(), ours4, "-",
                    "-", ours32 / ours4);
        std::fflush(stdout);
        if (size.M == 1024) {
            goals.push_back({"fp32 GEMM 1024^3: ours vs the fastest library", fastest / ours32, 0.9});
            goals.push_back({"int8 GEMM 1024^3: ours vs our fp32", ours32 / ours8, 2.0});
        } else if (size.K == 1024) {
            goals.push_back({"int4 weights 1x1024x1024: ours vs our fp32", ours32 / ours4, 1.5});
        }
    }
    int failed = 0;
    std::printf("\ngoals (speed ratios, higher is faster):\n");
    for (const auto& g : goals) {
        const bool met = g.ratio >= g.wanted;
        failed += !met;
        std::printf("  %-48s %6.2fx  (>= %.1f)  %s\n", g.what.c_str(), g.ratio, g.wanted, met ? "met" : "NOT MET");
    }
    return failed == 0 ? 0 : 3;
}
