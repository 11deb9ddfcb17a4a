// The cpu-onednn plugin's matmul kernels (npuwb/sdk/MatmulKernel.h) for every type of the NPU's matmul API:
//   fp16 A: A converted to fp32 (F16C), B dequantized to fp32 once, oneDNN's fp32 matmul (fp32 accumulation),
//           C rounded to fp16/bf16 when the type says so; int4 B at small M: the int4 kernel (MatmulInt4.h).
//   int8/int4 A: int4 widened to int8, oneDNN's s8 x s8 -> s32 matmul (VNNI), one batch entry per quantization
//           group, zero points applied exactly in integers, then the engine's finishIntegerMatmul.
// One oneDNN primitive per M of the spec (dynamic shapes); B is packed once in oneDNN's preferred layout.
#include <omp.h>

#include <algorithm>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>

#include "MatmulConvert.h"
#include "MatmulInt4.h"
#include "npuwb/Error.h"

namespace npuwb::onednn {

namespace {

using dnnl::memory;
using Dims = memory::dims;

/// The calling thread's OpenMP team size for the duration of a run (oneDNN plans with omp_get_max_threads()).
struct ThreadScope {
    int saved;
    explicit ThreadScope(int threads) : saved(omp_get_max_threads()) { omp_set_num_threads(std::max(1, threads)); }
    ~ThreadScope() { omp_set_num_threads(saved); }
};

/// One oneDNN matmul per M, all sharing B packed in the layouts their primitives want (usually one copy).
class OnednnMatmuls {
public:
    OnednnMatmuls(const dnnl::engine& engine, const std::vector<int64_t>& mValues, memory::data_type srcType,
                  memory::data_type dstType, int64_t batch, int64_t K, int64_t N, const memory& plainB)
        : engine_(engine), stream_(engine_) {
        dnnl::stream& stream = stream_;
        for (int64_t M : mValues) {
            const Dims src = batch > 1 ? Dims{batch, M, K} : Dims{M, K};
            const Dims wei = batch > 1 ? Dims{batch, K, N} : Dims{K, N};
            const Dims dst = batch > 1 ? Dims{batch, M, N} : Dims{M, N};
            const auto plainTag = batch > 1 ? memory::format_tag::abc : memory::format_tag::ab;
            memory::desc srcDesc(src, srcType, plainTag), dstDesc(dst, dstType, plainTag);
            memory::desc anyWeights(wei, srcType, memory::format_tag::any);
            dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(srcDesc, anyWeights, dstDesc), engine_);
            Entry e{M, dnnl::matmul(pd), srcDesc, dstDesc, 0};
            auto same = std::find_if(packed_.begin(), packed_.end(),
                                     [&](const memory& m) { return m.get_desc() == pd.weights_desc(); });
            if (same == packed_.end()) {
                memory to(pd.weights_desc(), engine_);
                dnnl::reorder(plainB, to).execute(stream, const_cast<memory&>(plainB), to);
                packed_.push_back(to);
                same = packed_.end() - 1;
            }
            e.weights = size_t(same - packed_.begin());
            entries_.push_back(std::move(e));
        }
        stream.wait();
    }

    void run(int64_t M, const void* src, void* dst) {
        auto e = std::find_if(entries_.begin(), entries_.end(), [&](const Entry& x) { return x.M == M; });
        if (e == entries_.end()) failInput("cpu-onednn matmul: M=" + std::to_string(M) + " was not prepared");
        memory srcMem(e->src, engine_, const_cast<void*>(src)), dstMem(e->dst, engine_, dst);
        e->primitive.execute(stream_,
                             {{DNNL_ARG_SRC, srcMem}, {DNNL_ARG_WEIGHTS, packed_[e->weights]}, {DNNL_ARG_DST, dstMem}});
        stream_.wait();
    }

private:
    struct Entry {
        int64_t M;
        dnnl::matmul primitive;
        memory::desc src, dst;
        size_t weights;
    };
    dnnl::engine engine_;
    dnnl::stream stream_;
    std::vector<Entry> entries_;
    std::vector<memory> packed_;
};

/// fp16 A types: fp32 compute.
class FloatMatmul : public MatmulKernel {
public:
    FloatMatmul(const MatmulKernelSpec& spec, const void* b, const dnnl::engine& engine)
        : spec_(spec), cType_(matmulTypeInfo(spec.type).c) {
        std::string why;
        if (int4KernelSupports(spec, why)) int4_ = packInt4B(spec, b);
        std::vector<int64_t> large;  // M the int4 kernel does not take: oneDNN on dequantized B
        for (int64_t M : spec.mValues)
            if (!int4_ || M > kInt4KernelMaxM) large.push_back(M);
        if (!large.empty()) {
            std::vector<float> realB(size_t(spec.K * spec.N));
            for (int64_t k = 0; k < spec.K; ++k)
                for (int64_t n = 0; n < spec.N; ++n) realB[size_t(k * spec.N + n)] = dequantizedB(spec, b, k, n);
            memory plain({{spec.K, spec.N}, memory::data_type::f32, memory::format_tag::ab}, engine, realB.data());
            ThreadScope threads(spec.threads);
            onednn_.emplace(engine, large, memory::data_type::f32, memory::data_type::f32, 1, spec.K, spec.N, plain);
        }
        const int64_t lda = int4_ ? int4_->kPadded : spec.K;
        a_.resize(size_t(spec.maxM() * lda));
        if (cType_ != DType::F32) c_.resize(size_t(spec.maxM() * spec.N));
    }

    void run(int64_t M, const void* a, void* c) override {
        const bool small = int4_ && M <= kInt4KernelMaxM;
        const int64_t lda = small ? int4_->kPadded : spec_.K;
        halfRowsToFloat(static_cast<const uint16_t*>(a), a_.data(), M, spec_.K, lda);
        float* out = cType_ == DType::F32 ? static_cast<float*>(c) : c_.data();
        ThreadScope threads(spec_.threads);
        if (small)
            int4Matmul(*int4_, M, a_.data(), out, spec_.threads);
        else
            onednn_->run(M, a_.data(), out);
        if (cType_ == DType::F16) floatToHalf(out, static_cast<uint16_t*>(c), M * spec_.N);
        if (cType_ == DType::BF16) floatToBFloat16(out, static_cast<uint16_t*>(c), M * spec_.N);
    }

private:
    MatmulKernelSpec spec_;
    DType cType_;
    std::optional<PackedInt4B> int4_;
    std::optional<OnednnMatmuls> onednn_;
    std::vector<float> a_, c_;
};

/// int8 / int4 A types: exact integer sums per group, then the engine's epilogue.
class IntegerMatmul : public MatmulKernel {
public:
    IntegerMatmul(const MatmulKernelSpec& spec, const void* b, const dnnl::engine& engine)
        : spec_(spec), info_(matmulTypeInfo(spec.type)), groups_(spec.b.groups(spec.K)), groupSize_(spec.K / groups_) {
        const int64_t K = spec.K, N = spec.N;
        // B as int8 [K,N] = [groups][groupSize][N]: the batched weights of one matmul per group.
        std::vector<int8_t> b8(size_t(K * N));
        for (int64_t k = 0; k < K; ++k)
            for (int64_t n = 0; n < N; ++n) {
                const int64_t i = spec.bTransposed ? n * K + k : k * N + n;
                b8[size_t(k * N + n)] = info_.b == DType::I4 ? int4At(b, i) : static_cast<const int8_t*>(b)[i];
            }
        zeroA_ = spec.a.zeroPoint(0, 0, N);
        zeroB_.assign(size_t(groups_ * N), 0);
        for (int64_t g = 0; g < groups_; ++g)
            for (int64_t n = 0; n < N; ++n) zeroB_[size_t(g * N + n)] = spec.b.zeroPoint(g, n, N);
        hasZeroB_ = !spec.b.symmetric();
        if (zeroA_ != 0) {
            columnSums_.assign(size_t(groups_ * N), 0);
            for (int64_t k = 0; k < K; ++k)
                for (int64_t n = 0; n < N; ++n) columnSums_[size_t((k / groupSize_) * N + n)] += b8[size_t(k * N + n)];
        }
        const Dims wei = groups_ > 1 ? Dims{groups_, groupSize_, N} : Dims{K, N};
        memory plain({wei, memory::data_type::s8, groups_ > 1 ? memory::format_tag::abc : memory::format_tag::ab},
                     engine, b8.data());
        {
            ThreadScope threads(spec.threads);
            onednn_.emplace(engine, spec.mValues, memory::data_type::s8, memory::data_type::s32, groups_, groupSize_, N,
                            plain);
        }
        const int64_t maxM = spec.maxM();
        if (info_.a == DType::I4) a8_.resize(size_t(maxM * K));
        if (groups_ > 1) grouped_.resize(size_t(maxM * K));
        acc_.resize(size_t(groups_ * maxM * N));
        if (hasZeroB_) rowSums_.resize(size_t(groups_ * maxM));
    }

    void run(int64_t M, const void* a, void* c) override {
        const int64_t K = spec_.K;
        const int8_t* rowsA = static_cast<const int8_t*>(a);
        if (info_.a == DType::I4) {
            int4ToInt8(a, a8_.data(), M * K);
            rowsA = a8_.data();
        }
        const int8_t* src = rowsA;
        if (groups_ > 1) {  // [M][groups][groupSize] -> [groups][M][groupSize]
            for (int64_t m = 0; m < M; ++m)
                for (int64_t g = 0; g < groups_; ++g)
                    std::copy_n(rowsA + m * K + g * groupSize_, groupSize_, grouped_.data() + (g * M + m) * groupSize_);
            src = grouped_.data();
        }
        {
            ThreadScope threads(spec_.threads);
            onednn_->run(M, src, acc_.data());
        }
        if (hasZeroB_ || zeroA_ != 0) applyZeroPoints(M, rowsA);
        finishIntegerMatmul(spec_, M, acc_.data(), c);
    }

private:
    /// sum (A - zA)(B - zB) = sum AB - zB sum A - zA sum B + groupSize zA zB, per group, in exact integers.
    void applyZeroPoints(int64_t M, const int8_t* rowsA) {
        const int64_t K = spec_.K, N = spec_.N;
        if (hasZeroB_)
            for (int64_t m = 0; m < M; ++m)
                for (int64_t g = 0; g < groups_; ++g) {
                    int32_t sum = 0;
                    for (int64_t k = g * groupSize_; k < (g + 1) * groupSize_; ++k) sum += rowsA[m * K + k];
                    rowSums_[size_t(g * M + m)] = sum;
                }
        for (int64_t g = 0; g < groups_; ++g)
            for (int64_t m = 0; m < M; ++m) {
                int32_t* row = acc_.data() + (g * M + m) * N;
                const int64_t rowSum = hasZeroB_ ? rowSums_[size_t(g * M + m)] : 0;
                for (int64_t n = 0; n < N; ++n) {
                    const int64_t zB = zeroB_[size_t(g * N + n)];
                    const int64_t colSum = zeroA_ != 0 ? columnSums_[size_t(g * N + n)] : 0;
                    row[n] = int32_t(int64_t(row[n]) - zB * rowSum - int64_t(zeroA_) * colSum +
                                     groupSize_ * int64_t(zeroA_) * zB);
                }
            }
    }

    MatmulKernelSpec spec_;
    MatmulTypeInfo info_;
    int64_t groups_, groupSize_;
    int32_t zeroA_ = 0;
    bool hasZeroB_ = false;
    std::vector<int32_t> zeroB_, columnSums_, rowSums_, acc_;
    std::vector<int8_t> a8_, grouped_;  // int4 A widened; A regrouped [groups][M][groupSize]
    std::optional<OnednnMatmuls> onednn_;
};

bool hasVnni() {
    return __builtin_cpu_supports("avx512vnni") || __builtin_cpu_supports("avxvnni");
}

class OnednnMatmulProvider : public MatmulKernelProvider {
public:
    std::string name() const override { return "cpu-onednn"; }

    Capability supports(const MatmulKernelSpec& spec) const override {
        if (spec.mValues.empty() || spec.K < 1 || spec.N < 1) return Capability::no("empty matmul");
        // Without VNNI oneDNN multiplies int8 pairs with vpmaddubsw, whose 16-bit pair sums saturate for large int8
        // values on both sides: not exact. int4 on either side stays far below the limit.
        const MatmulTypeInfo& info = matmulTypeInfo(spec.type);
        if (info.a == DType::I8 && info.b == DType::I8 && !hasVnni())
            return Capability::no("exact int8 x int8 sums need a CPU with VNNI (oneDNN's 16-bit pair sums saturate)");
        return Capability::yes();
    }

    std::unique_ptr<MatmulKernel> prepare(const MatmulKernelSpec& spec, const void* b) override {
        try {
            if (matmulTypeInfo(spec.type).a == DType::F16) return std::make_unique<FloatMatmul>(spec, b, engine_);
            return std::make_unique<IntegerMatmul>(spec, b, engine_);
        } catch (const dnnl::error& e) {
            failUnsupported(std::string("cpu-onednn matmul: oneDNN refused ") +
                            std::string(matmulTypeInfo(spec.type).name) + " with K=" + std::to_string(spec.K) +
                            " N=" + std::to_string(spec.N) + ": " + e.what());
        }
    }

private:
    dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
};

}  // namespace

}  // namespace npuwb::onednn

extern "C" int npuwb_matmul_kernel_api_version() { return npuwb::kMatmulKernelApiVersion; }
extern "C" npuwb::MatmulKernelProvider* npuwb_create_matmul_kernels() {
    return new npuwb::onednn::OnednnMatmulProvider();
}
