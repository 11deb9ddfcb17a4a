// The chips' native matmul layouts and the conversions to and from them (RKNN SDK user guide V2.5.0, 4.1.1.4
// "performance-optimized data layout", table 4-3, figures 4-3 and 4-4, and the K segmentation of B on RK3588 /
// RK3576 in 4.1.1.4.1). Divisions round up; padding is zero.
#include <algorithm>
#include <cstring>
#include <vector>

#include "npuwb/Error.h"
#include "npuwb/Matmul.h"

namespace npuwb {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Visits an operand's native layout in memory order as runs: `length` native elements from `nativeOffset` hold
/// `valid` matrix elements (at plain offsets plainOffset + i * plainStride of a non-native layout) then padding.
/// A [K/a,M,a] and C [N/c,M,c]: one run per block and row; B [N/n,K/k,n,k] per K segment: one run per column.
template <class Visit>
void visitNativeRuns(MatmulOperand operand, MatmulLayout plain, int64_t M, int64_t K, int64_t N,
                     const MatmulNativeLayout& native, Visit&& visit) {
    int64_t offset = 0;
    if (operand == MatmulOperand::B) {
        const int64_t n = native.bNBlock, k = native.bKBlock;
        const bool transposed = plain == MatmulLayout::TpNorm;  // [N,K]: a column's K values are contiguous
        for (const auto& [k0, k1] : matmulBSegments(K, native))
            for (int64_t nb = 0; nb < ceilDiv(N, n); ++nb)
                for (int64_t kb = 0; kb < ceilDiv(k1 - k0, k); ++kb) {
                    const int64_t kStart = k0 + kb * k, valid = std::min(k, k1 - kStart);
                    for (int64_t nn = 0; nn < n; ++nn, offset += k) {
                        const int64_t ni = nb * n + nn;
                        if (ni >= N) {
                            visit(offset, 0, 0, 0, k);
                            continue;
                        }
                        visit(offset, transposed ? ni * K + kStart : kStart * N + ni, transposed ? 1 : N, valid, k);
                    }
                }
        return;
    }
    const int64_t cols = operand == MatmulOperand::A ? K : N;
    const int64_t block = operand == MatmulOperand::A ? native.aKBlock : native.cNBlock;
    for (int64_t cb = 0; cb < ceilDiv(cols, block); ++cb) {
        const int64_t c0 = cb * block, valid = std::min(block, cols - c0);
        for (int64_t m = 0; m < M; ++m, offset += block) visit(offset, m * cols + c0, 1, valid, block);
    }
}

/// Element access by flat index for one storage width (memcpy: buffers need not be aligned).
template <class T>
struct Elements {
    static T get(const void* p, int64_t i) {
        T v;
        std::memcpy(&v, static_cast<const char*>(p) + i * int64_t(sizeof(T)), sizeof(T));
        return v;
    }
    static void set(void* p, int64_t i, T v) {
        std::memcpy(static_cast<char*>(p) + i * int64_t(sizeof(T)), &v, sizeof(T));
    }
};

template <class T>
void convertWith(MatmulOperand operand, int64_t M, int64_t K, int64_t N, const MatmulNativeLayout& native,
                 MatmulLayout from, const void* src, MatmulLayout to, void* dst) {
    using E = Elements<T>;
    if (from == MatmulLayout::Native) {
        visitNativeRuns(operand, to, M, K, N, native,
                        [&](int64_t nat, int64_t plain, int64_t stride, int64_t valid, int64_t) {
                            for (int64_t i = 0; i < valid; ++i) E::set(dst, plain + i * stride, E::get(src, nat + i));
                        });
    } else if (to == MatmulLayout::Native) {
        visitNativeRuns(operand, from, M, K, N, native,
                        [&](int64_t nat, int64_t plain, int64_t stride, int64_t valid, int64_t length) {
                            for (int64_t i = 0; i < valid; ++i) E::set(dst, nat + i, E::get(src, plain + i * stride));
                            for (int64_t i = valid; i < length; ++i) E::set(dst, nat + i, T{});
                        });
    } else {  // B norm <-> tp_norm
        const bool toTransposed = to == MatmulLayout::TpNorm;
        for (int64_t k = 0; k < K; ++k)
            for (int64_t n = 0; n < N; ++n) {
                const int64_t normal = k * N + n, transposed = n * K + k;
                E::set(dst, toTransposed ? transposed : normal, E::get(src, toTransposed ? normal : transposed));
            }
    }
}

std::string dimsText(const std::vector<int64_t>& dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s.append(i ? "," : "").append(std::to_string(dims[i]));
    return s + "]";
}

const char* operandName(MatmulOperand operand) {
    return operand == MatmulOperand::A ? "A" : operand == MatmulOperand::B ? "B" : "C";
}

void checkLayout(MatmulOperand operand, MatmulLayout layout) {
    if (layout == MatmulLayout::TpNorm && operand != MatmulOperand::B)
        failInput(std::string("matmul operand ") + operandName(operand) + " has no tp_norm layout");
}

}  // namespace

MatmulNativeLayout matmulNativeLayout(MatmulType type, const ChipProfile& chip) {
    if (!chip.matmul) failUnsupported(chip.name + " has no matmul API");
    const std::string kind = matmulOperandKind(type);
    auto it = chip.matmul->kinds.find(kind);
    if (it == chip.matmul->kinds.end())
        failUnsupported(chip.name + " has no native matmul layouts for " + kind + " (" + chip.sourcePath + ")");
    MatmulNativeLayout n;
    n.chip = chip.name;
    n.kind = kind;
    n.aKBlock = it->second.aKBlock;
    n.bNBlock = it->second.bNBlock;
    n.bKBlock = it->second.bKBlock;
    n.cNBlock = it->second.cNBlock;
    n.kSegment = chip.matmul->kSegment;
    return n;
}

std::vector<std::pair<int64_t, int64_t>> matmulBSegments(int64_t K, const MatmulNativeLayout& native) {
    if (native.kSegment <= 0 || K <= native.kSegment) return {{0, K}};
    std::vector<std::pair<int64_t, int64_t>> segments;
    for (int64_t begin = 0; begin < K; begin += native.kSegment)
        segments.emplace_back(begin, std::min(K, begin + native.kSegment));
    return segments;
}

std::vector<std::vector<int64_t>> matmulOperandDims(MatmulOperand operand, MatmulLayout layout, int64_t M, int64_t K,
                                                    int64_t N, const MatmulNativeLayout& native) {
    checkLayout(operand, layout);
    if (layout != MatmulLayout::Native) {
        switch (operand) {
            case MatmulOperand::A:
                return {{M, K}};
            case MatmulOperand::C:
                return {{M, N}};
            case MatmulOperand::B:
                return layout == MatmulLayout::TpNorm ? std::vector<std::vector<int64_t>>{{N, K}}
                                                      : std::vector<std::vector<int64_t>>{{K, N}};
        }
    }
    if (native.aKBlock <= 0) failInput("no native matmul layout given");
    switch (operand) {
        case MatmulOperand::A:
            return {{ceilDiv(K, native.aKBlock), M, native.aKBlock}};
        case MatmulOperand::C:
            return {{ceilDiv(N, native.cNBlock), M, native.cNBlock}};
        case MatmulOperand::B: {
            std::vector<std::vector<int64_t>> dims;
            for (const auto& [k0, k1] : matmulBSegments(K, native))
                dims.push_back(
                    {ceilDiv(N, native.bNBlock), ceilDiv(k1 - k0, native.bKBlock), native.bNBlock, native.bKBlock});
            return dims;
        }
    }
    return {};
}

int64_t matmulOperandBytes(MatmulOperand operand, MatmulLayout layout, DType dtype, int64_t M, int64_t K, int64_t N,
                           const MatmulNativeLayout& native) {
    int64_t elements = 0;
    for (const auto& dims : matmulOperandDims(operand, layout, M, K, N, native)) {
        int64_t e = 1;
        for (int64_t d : dims) e *= d;
        elements += e;
    }
    return matmulStorageBytes(dtype, elements);
}

std::string matmulLayoutText(MatmulOperand operand, MatmulLayout layout, int64_t M, int64_t K, int64_t N,
                             const MatmulNativeLayout& native) {
    const auto dims = matmulOperandDims(operand, layout, M, K, N, native);
    std::string formula;
    if (layout != MatmulLayout::Native) {
        formula = operand == MatmulOperand::A      ? "[M,K]"
                  : operand == MatmulOperand::C    ? "[M,N]"
                  : layout == MatmulLayout::TpNorm ? "[N,K]"
                                                   : "[K,N]";
    } else if (operand == MatmulOperand::B) {
        const std::string n = std::to_string(native.bNBlock), k = std::to_string(native.bKBlock);
        formula = "[N/" + n + ",K/" + k + "," + n + "," + k + "]";
        if (dims.size() > 1) formula = std::to_string(dims.size()) + " K segments x " + formula;
    } else {
        const std::string b = std::to_string(operand == MatmulOperand::A ? native.aKBlock : native.cNBlock);
        formula = std::string(operand == MatmulOperand::A ? "[K/" : "[N/") + b + ",M," + b + "]";
    }
    std::string sizes;
    for (const auto& d : dims) sizes += (sizes.empty() ? "" : " + ") + dimsText(d);
    return formula + " = " + sizes;
}

void convertMatmulOperand(MatmulOperand operand, DType dtype, int64_t M, int64_t K, int64_t N,
                          const MatmulNativeLayout& native, MatmulLayout from, const void* src, MatmulLayout to,
                          void* dst) {
    checkLayout(operand, from);
    checkLayout(operand, to);
    if (from == to) {
        std::memcpy(dst, src, size_t(matmulOperandBytes(operand, from, dtype, M, K, N, native)));
        return;
    }
    if ((from == MatmulLayout::Native || to == MatmulLayout::Native) && native.aKBlock <= 0)
        failInput("no native matmul layout given");
    if (dtype == DType::I4) {
        // Nibble by nibble is slow: widen to one byte per value, rearrange bytes, pack again.
        const int64_t fromCount = matmulOperandBytes(operand, from, DType::I8, M, K, N, native);
        const int64_t toCount = matmulOperandBytes(operand, to, DType::I8, M, K, N, native);
        std::vector<int8_t> wide(static_cast<size_t>(fromCount)), rearranged(static_cast<size_t>(toCount));
        for (int64_t i = 0; i < fromCount; ++i) wide[size_t(i)] = int4At(src, i);
        convertWith<uint8_t>(operand, M, K, N, native, from, wide.data(), to, rearranged.data());
        auto* out = static_cast<uint8_t*>(dst);
        for (int64_t i = 0; i + 1 < toCount; i += 2)
            out[i / 2] = uint8_t((rearranged[size_t(i)] & 0x0f) | (rearranged[size_t(i + 1)] << 4));
        if (toCount % 2) out[toCount / 2] = uint8_t(rearranged[size_t(toCount - 1)] & 0x0f);
        return;
    }
    switch (dtypeSize(dtype)) {
        case 1:
            return convertWith<uint8_t>(operand, M, K, N, native, from, src, to, dst);
        case 2:
            return convertWith<uint16_t>(operand, M, K, N, native, from, src, to, dst);
        case 4:
            return convertWith<uint32_t>(operand, M, K, N, native, from, src, to, dst);
        default:
            failUnsupported("matmul layouts of " + std::string(dtypeName(dtype)) + " elements");
    }
}

}  // namespace npuwb
