// The plain reference of every matmul type (the rules in npuwb/MatmulTypes.h) and the integer epilogue that the
// reference and all kernels share, so integer results are bit-exact between them.
#include "matmul/MatmulReference.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "npuwb/Error.h"
#include "npuwb/ir/Half.h"

namespace npuwb {

namespace {

int64_t bIndex(const MatmulKernelSpec& spec, int64_t k, int64_t n) {
    return spec.bTransposed ? n * spec.K + k : k * spec.N + n;
}

int64_t groupOf(const MatmulQuant& q, int64_t k) {
    return q.granularity == QuantGranularity::PerGroup && q.groupSize > 0 ? k / q.groupSize : 0;
}

void storeFloat(DType dtype, void* c, int64_t index, float value) {
    switch (dtype) {
        case DType::F32:
            static_cast<float*>(c)[index] = value;
            return;
        case DType::F16:
            static_cast<uint16_t*>(c)[index] = floatToHalfBits(value);
            return;
        case DType::BF16:
            static_cast<uint16_t*>(c)[index] = floatToBFloat16Bits(value);
            return;
        default:
            failUnsupported("matmul: C of type " + std::string(dtypeName(dtype)) + " is not a float");
    }
}

template <class T>
void storeSaturated(void* c, int64_t index, double value) {
    const double lo = double(std::numeric_limits<T>::min()), hi = double(std::numeric_limits<T>::max());
    static_cast<T*>(c)[index] = static_cast<T>(value < lo ? lo : value > hi ? hi : value);
}

class ReferenceMatmul : public MatmulKernel {
public:
    ReferenceMatmul(const MatmulKernelSpec& spec, const void* b) : spec_(spec), info_(matmulTypeInfo(spec.type)) {
        const int64_t K = spec.K, N = spec.N;
        if (info_.a == DType::F16) {
            realB_.resize(size_t(K * N));
            for (int64_t k = 0; k < K; ++k)
                for (int64_t n = 0; n < N; ++n) realB_[size_t(k * N + n)] = dequantizedB(spec, b, k, n);
        } else {
            shiftedB_.resize(size_t(K * N));
            for (int64_t k = 0; k < K; ++k)
                for (int64_t n = 0; n < N; ++n)
                    shiftedB_[size_t(k * N + n)] =
                        matmulIntAt(info_.b, b, bIndex(spec, k, n)) - spec.b.zeroPoint(groupOf(spec.b, k), n, N);
        }
    }

    void run(int64_t M, const void* a, void* c) override {
        const int64_t K = spec_.K, N = spec_.N;
        if (info_.a == DType::F16) {
            std::vector<float> row(static_cast<size_t>(N));
            for (int64_t m = 0; m < M; ++m) {
                std::fill(row.begin(), row.end(), 0.0f);
                for (int64_t k = 0; k < K; ++k) {
                    const float av = matmulFloatAt(DType::F16, a, m * K + k);
                    const float* bk = realB_.data() + k * N;
                    for (int64_t n = 0; n < N; ++n) row[size_t(n)] += av * bk[n];
                }
                for (int64_t n = 0; n < N; ++n) storeFloat(info_.c, c, m * N + n, row[size_t(n)]);
            }
            return;
        }
        const int64_t groups = spec_.b.groups(K), groupSize = K / groups;
        const int32_t zA = spec_.a.zeroPoint(0, 0, N);
        std::vector<int32_t> acc(size_t(groups * M * N), 0);
        for (int64_t g = 0; g < groups; ++g)
            for (int64_t m = 0; m < M; ++m) {
                int32_t* out = acc.data() + (g * M + m) * N;
                for (int64_t k = g * groupSize; k < (g + 1) * groupSize; ++k) {
                    const int32_t av = matmulIntAt(info_.a, a, m * K + k) - zA;
                    const int32_t* bk = shiftedB_.data() + k * N;
                    for (int64_t n = 0; n < N; ++n) out[n] += av * bk[n];
                }
            }
        finishIntegerMatmul(spec_, M, acc.data(), c);
    }

private:
    MatmulKernelSpec spec_;
    MatmulTypeInfo info_;
    std::vector<float> realB_;       // fp16-A types: real(B) [K,N]
    std::vector<int32_t> shiftedB_;  // integer types: B - zB [K,N]
};

}  // namespace

float matmulFloatAt(DType dtype, const void* data, int64_t index) {
    switch (dtype) {
        case DType::F16:
            return halfBitsToFloat(static_cast<const uint16_t*>(data)[index]);
        case DType::F32:
            return static_cast<const float*>(data)[index];
        default:
            return float(matmulIntAt(dtype, data, index));
    }
}

int32_t matmulIntAt(DType dtype, const void* data, int64_t index) {
    switch (dtype) {
        case DType::I4:
            return int4At(data, index);
        case DType::I8:
            return static_cast<const int8_t*>(data)[index];
        case DType::I16:
            return static_cast<const int16_t*>(data)[index];
        case DType::I32:
            return static_cast<const int32_t*>(data)[index];
        default:
            failUnsupported("matmul: " + std::string(dtypeName(dtype)) + " is not an integer operand");
    }
}

float dequantizedB(const MatmulKernelSpec& spec, const void* b, int64_t k, int64_t n) {
    const DType bType = matmulTypeInfo(spec.type).b;
    const int64_t index = bIndex(spec, k, n);
    if (bType == DType::F16) return matmulFloatAt(DType::F16, b, index);
    const int64_t g = groupOf(spec.b, k);
    return spec.b.scale(g, n, spec.N) * float(matmulIntAt(bType, b, index) - spec.b.zeroPoint(g, n, spec.N));
}

void finishIntegerMatmul(const MatmulKernelSpec& spec, int64_t M, const int32_t* acc, void* c) {
    const int64_t N = spec.N, groups = spec.b.groups(spec.K), count = M * N;
    const DType cType = matmulTypeInfo(spec.type).c;
    // Without any scale v is the integer sum itself: the same values as the formula below, computed directly.
    if (!spec.a.isSet() && !spec.b.isSet() && !spec.c.isSet() && groups == 1) {
        switch (cType) {
            case DType::I32:
                std::memcpy(c, acc, size_t(count) * sizeof(int32_t));
                return;
            case DType::I16:
                for (int64_t i = 0; i < count; ++i) storeSaturated<int16_t>(c, i, double(acc[i]));
                return;
            case DType::I8:
                for (int64_t i = 0; i < count; ++i) storeSaturated<int8_t>(c, i, double(acc[i]));
                return;
            default:
                for (int64_t i = 0; i < count; ++i) storeFloat(cType, c, i, float(acc[i]));
                return;
        }
    }
    const double sA = spec.a.scale(0, 0, N);
    const double sC = spec.c.scale(0, 0, N);
    const double zC = spec.c.zeroPoint(0, 0, N);
    std::vector<double> v(static_cast<size_t>(N));
    for (int64_t m = 0; m < M; ++m) {
        std::fill(v.begin(), v.end(), 0.0);
        for (int64_t g = 0; g < groups; ++g) {
            const int32_t* row = acc + (g * M + m) * N;
            for (int64_t n = 0; n < N; ++n) v[size_t(n)] += double(spec.b.scale(g, n, N)) * double(row[n]);
        }
        for (int64_t n = 0; n < N; ++n) {
            const double value = sA * v[size_t(n)];
            const int64_t i = m * N + n;
            switch (cType) {
                case DType::I32:
                    storeSaturated<int32_t>(c, i, std::nearbyint(value / sC) + zC);
                    break;
                case DType::I16:
                    storeSaturated<int16_t>(c, i, std::nearbyint(value / sC) + zC);
                    break;
                case DType::I8:
                    storeSaturated<int8_t>(c, i, std::nearbyint(value / sC) + zC);
                    break;
                default:
                    storeFloat(cType, c, i, float(value));
                    break;
            }
        }
    }
}

std::unique_ptr<MatmulKernel> prepareReferenceMatmul(const MatmulKernelSpec& spec, const void* b) {
    return std::make_unique<ReferenceMatmul>(spec, b);
}

void referenceMatmul(const MatmulKernelSpec& spec, int64_t M, const void* a, const void* b, void* c) {
    ReferenceMatmul(spec, b).run(M, a, c);
}

}  // namespace npuwb
