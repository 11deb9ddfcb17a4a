// The cpu-xnnpack plugin's matmul kernels (npuwb/sdk/MatmulKernel.h), for arm64 boards (and x86, where the tests
// run them): fp16-input types on XNNPACK's f32 fully connected operator (B dequantized once; one operator serves
// every M), int4 weights at small M on a portable kernel that keeps B packed, integer types on portable exact
// int32 loops (XNNPACK's integer operators requantize to int8 and cannot give the exact sums the types need).
// The portable loops are written for the compiler to vectorize (NEON on arm64); threads split the columns.
#include <pthreadpool.h>
#include <xnnpack.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <mutex>

#include "npuwb/Error.h"
#include "npuwb/ir/Half.h"
#include "npuwb/sdk/MatmulKernel.h"

namespace npuwb::xnn {

namespace {

constexpr int64_t kInt4MaxM = 16;     // the packed-int4 kernel's M; larger M run the f32 operator on dequantized B
constexpr int64_t kColumnBlock = 32;  // columns per packed int4 block and per thread task
// Below this many multiply-adds a run stays on the calling thread: waking (and then spinning) workers costs more.
constexpr int64_t kMinParallelMacs = 1 << 18;

using Pool = std::shared_ptr<pthreadpool>;

/// The pool for this work: the kernel's, or none (the calling thread) for small runs.
pthreadpool_t poolFor(const Pool& pool, int64_t M, int64_t K, int64_t N) {
    return M * K * N >= kMinParallelMacs ? pool.get() : nullptr;
}

/// Calls f(block) for column blocks [0, blocks) on the pool (null: on the calling thread).
template <class F>
void parallelBlocks(pthreadpool_t pool, int64_t blocks, F&& f) {
    struct Job {
        F* f;
        static void run(void* context, size_t block) { (*static_cast<Job*>(context)->f)(int64_t(block)); }
    } job{&f};
    pthreadpool_parallelize_1d(pool, &Job::run, &job, size_t(blocks), 0);
}

void halfToFloat(const void* src, float* dst, int64_t count) {
    const auto* h = static_cast<const uint16_t*>(src);
    for (int64_t i = 0; i < count; ++i) dst[i] = halfBitsToFloat(h[i]);
}

void storeFloats(DType c, const float* src, void* dst, int64_t count) {
    auto* out16 = static_cast<uint16_t*>(dst);
    if (c == DType::F32)
        std::copy_n(src, count, static_cast<float*>(dst));
    else if (c == DType::F16)
        for (int64_t i = 0; i < count; ++i) out16[i] = floatToHalfBits(src[i]);
    else
        for (int64_t i = 0; i < count; ++i) out16[i] = floatToBFloat16Bits(src[i]);
}

/// B int4 packed for the small-M kernel: per block of 32 columns and row k, 16 bytes; byte j holds column j in
/// the low and column 16 + j in the high nibble, so both halves expand with plain shifts into contiguous lanes.
struct PackedInt4 {
    int64_t K = 0, N = 0, blocks = 0, groups = 1, groupSize = 0;
    std::vector<uint8_t> data;              // [blocks][K][16]
    std::vector<float> scales, zeroPoints;  // [groups][blocks * 32]
};

PackedInt4 packInt4(const MatmulKernelSpec& spec, const void* b) {
    PackedInt4 p;
    p.K = spec.K;
    p.N = spec.N;
    p.blocks = (spec.N + kColumnBlock - 1) / kColumnBlock;
    p.groups = spec.b.groups(spec.K);
    p.groupSize = spec.K / p.groups;
    p.data.assign(size_t(p.blocks * spec.K * 16), 0);
    for (int64_t k = 0; k < spec.K; ++k)
        for (int64_t n = 0; n < spec.N; ++n) {
            const uint8_t q = uint8_t(int4At(b, spec.bTransposed ? n * spec.K + k : k * spec.N + n)) & 0x0f;
            const int64_t j = n % kColumnBlock;
            p.data[size_t(((n / kColumnBlock) * spec.K + k) * 16 + j % 16)] |= uint8_t(j < 16 ? q : q << 4);
        }
    const int64_t width = p.blocks * kColumnBlock;
    p.scales.assign(size_t(p.groups * width), 0.0f);
    p.zeroPoints.assign(size_t(p.groups * width), 0.0f);
    for (int64_t g = 0; g < p.groups; ++g)
        for (int64_t n = 0; n < spec.N; ++n) {
            p.scales[size_t(g * width + n)] = spec.b.scale(g, n, spec.N);
            p.zeroPoints[size_t(g * width + n)] = float(spec.b.zeroPoint(g, n, spec.N));
        }
    return p;
}

/// Columns of one block for M rows: per group sum(a * q), then scale * (sum - zeroPoint * sum(a)).
void int4Block(const PackedInt4& p, int64_t M, const float* a, float* c, int64_t block) {
    const int64_t width = p.blocks * kColumnBlock;
    for (int64_t m = 0; m < M; ++m) {
        float out[kColumnBlock] = {};
        for (int64_t g = 0; g < p.groups; ++g) {
            float acc[kColumnBlock] = {};
            float aSum = 0;
            for (int64_t k = g * p.groupSize; k < (g + 1) * p.groupSize; ++k) {
                const float av = a[m * p.K + k];
                aSum += av;
                const uint8_t* q = p.data.data() + (block * p.K + k) * 16;
                for (int j = 0; j < 16; ++j) {
                    acc[j] += av * float(int8_t(uint8_t(q[j] << 4)) >> 4);
                    acc[16 + j] += av * float(int8_t(q[j]) >> 4);
                }
            }
            const float* s = p.scales.data() + g * width + block * kColumnBlock;
            const float* z = p.zeroPoints.data() + g * width + block * kColumnBlock;
            for (int j = 0; j < kColumnBlock; ++j) out[j] += s[j] * (acc[j] - z[j] * aSum);
        }
        const int64_t n0 = block * kColumnBlock, count = std::min(kColumnBlock, p.N - n0);
        std::copy_n(out, count, c + m * p.N + n0);
    }
}

class FloatMatmul : public MatmulKernel {
public:
    FloatMatmul(const MatmulKernelSpec& spec, const void* b, Pool pool)
        : spec_(spec), cType_(matmulTypeInfo(spec.type).c), pool_(std::move(pool)) {
        const bool int4 = matmulTypeInfo(spec.type).b == DType::I4;
        if (int4) int4_ = packInt4(spec, b);
        const bool large =
            std::any_of(spec.mValues.begin(), spec.mValues.end(), [&](int64_t m) { return !int4 || m > kInt4MaxM; });
        if (large) {
            std::vector<float> weights(size_t(spec.K * spec.N));  // [N,K], the operator's default orientation
            for (int64_t n = 0; n < spec.N; ++n)
                for (int64_t k = 0; k < spec.K; ++k) weights[size_t(n * spec.K + k)] = dequantizedB(spec, b, k, n);
            xnn_operator_t op = nullptr;
            if (xnn_create_fully_connected_nc_f32(size_t(spec.K), size_t(spec.N), size_t(spec.K), size_t(spec.N),
                                                  weights.data(), nullptr, -std::numeric_limits<float>::infinity(),
                                                  std::numeric_limits<float>::infinity(), 0, &op) != xnn_status_success)
                failUnsupported("cpu-xnnpack matmul: XNNPACK refused a fully connected operator with K=" +
                                std::to_string(spec.K) + " N=" + std::to_string(spec.N));
            op_.reset(op);
        }
        a_.resize(size_t(spec.maxM() * spec.K));
        c_.resize(size_t(spec.maxM() * spec.N));
    }

    void run(int64_t M, const void* a, void* c) override {
        halfToFloat(a, a_.data(), M * spec_.K);
        pthreadpool_t pool = poolFor(pool_, M, spec_.K, spec_.N);
        if (int4_.blocks > 0 && M <= kInt4MaxM) {
            parallelBlocks(pool, int4_.blocks,
                           [&](int64_t block) { int4Block(int4_, M, a_.data(), c_.data(), block); });
        } else {
            if (xnn_setup_fully_connected_nc_f32(op_.get(), size_t(M), a_.data(), c_.data(), pool) !=
                    xnn_status_success ||
                xnn_run_operator(op_.get(), pool) != xnn_status_success)
                fail(ErrorKind::Internal, "cpu-xnnpack matmul: XNNPACK failed to run the fully connected operator");
        }
        storeFloats(cType_, c_.data(), c, M * spec_.N);
    }

private:
    struct DeleteOperator {
        void operator()(xnn_operator_t op) const { xnn_delete_operator(op); }
    };
    MatmulKernelSpec spec_;
    DType cType_;
    Pool pool_;
    PackedInt4 int4_;
    std::unique_ptr<xnn_operator, DeleteOperator> op_;
    std::vector<float> a_, c_;
};

/// int8 / int4 A: exact int32 sums per group of (A - zA)(B - zB) with B kept shifted as int16, then the engine's
/// epilogue.
class IntegerMatmul : public MatmulKernel {
public:
    IntegerMatmul(const MatmulKernelSpec& spec, const void* b, Pool pool)
        : spec_(spec),
          info_(matmulTypeInfo(spec.type)),
          pool_(std::move(pool)),
          groups_(spec.b.groups(spec.K)),
          groupSize_(spec.K / groups_) {
        const int64_t K = spec.K, N = spec.N;
        shiftedB_.resize(size_t(K * N));
        for (int64_t k = 0; k < K; ++k)
            for (int64_t n = 0; n < N; ++n) {
                const int64_t i = spec.bTransposed ? n * K + k : k * N + n;
                const int32_t q = info_.b == DType::I4 ? int4At(b, i) : static_cast<const int8_t*>(b)[i];
                shiftedB_[size_t(k * N + n)] = int16_t(q - spec.b.zeroPoint(k / groupSize_, n, N));
            }
        a_.resize(size_t(spec.maxM() * K));
        acc_.resize(size_t(groups_ * spec.maxM() * N));
    }

    void run(int64_t M, const void* a, void* c) override {
        const int64_t K = spec_.K, N = spec_.N;
        const int32_t zA = spec_.a.zeroPoint(0, 0, N);
        for (int64_t i = 0; i < M * K; ++i)
            a_[size_t(i)] = int16_t((info_.a == DType::I4 ? int4At(a, i) : static_cast<const int8_t*>(a)[i]) - zA);
        const int64_t blocks = (N + kColumnBlock - 1) / kColumnBlock;
        parallelBlocks(poolFor(pool_, M, K, N), blocks, [&](int64_t block) {
            const int64_t n0 = block * kColumnBlock, count = std::min(kColumnBlock, N - n0);
            for (int64_t g = 0; g < groups_; ++g)
                for (int64_t m = 0; m < M; ++m) {
                    int32_t sum[kColumnBlock] = {};
                    for (int64_t k = g * groupSize_; k < (g + 1) * groupSize_; ++k) {
                        const int32_t av = a_[size_t(m * K + k)];
                        const int16_t* bk = shiftedB_.data() + k * N + n0;
                        for (int64_t j = 0; j < count; ++j) sum[j] += av * int32_t(bk[j]);
                    }
                    std::copy_n(sum, count, acc_.data() + (g * M + m) * N + n0);
                }
        });
        finishIntegerMatmul(spec_, M, acc_.data(), c);
    }

private:
    MatmulKernelSpec spec_;
    MatmulTypeInfo info_;
    Pool pool_;
    int64_t groups_, groupSize_;
    std::vector<int16_t> shiftedB_, a_;
    std::vector<int32_t> acc_;
};

class XnnMatmulProvider : public MatmulKernelProvider {
public:
    std::string name() const override { return "cpu-xnnpack"; }
    Capability supports(const MatmulKernelSpec& spec) const override {
        if (xnn_initialize(nullptr) != xnn_status_success) return Capability::no("XNNPACK does not support this CPU");
        if (spec.mValues.empty() || spec.K < 1 || spec.N < 1) return Capability::no("empty matmul");
        return Capability::yes();
    }
    std::unique_ptr<MatmulKernel> prepare(const MatmulKernelSpec& spec, const void* b) override {
        Pool pool = this->pool(spec.threads);
        if (matmulTypeInfo(spec.type).a == DType::F16) return std::make_unique<FloatMatmul>(spec, b, pool);
        return std::make_unique<IntegerMatmul>(spec, b, pool);
    }

private:
    /// One pool per thread count, shared by the kernels (which keep it alive): threads are made once.
    Pool pool(int threads) {
        if (threads <= 1) return {};
        std::lock_guard lock(mutex_);
        Pool& p = pools_[threads];
        if (!p) p = Pool(pthreadpool_create(size_t(threads)), pthreadpool_destroy);
        return p;
    }
    std::mutex mutex_;
    std::map<int, Pool> pools_;
};

}  // namespace

}  // namespace npuwb::xnn

extern "C" __attribute__((visibility("default"))) int npuwb_matmul_kernel_api_version() {
    return npuwb::kMatmulKernelApiVersion;
}

extern "C" __attribute__((visibility("default"))) npuwb::MatmulKernelProvider* npuwb_create_matmul_kernels() {
    return new npuwb::xnn::XnnMatmulProvider();
}
