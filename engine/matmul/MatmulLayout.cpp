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

/// Element access by flat index for one storage width (memcpy: buffers need not be aligned).
template <class T>
T elementAt(const void* p, int64_t i) {
    T v;
    std::memcpy(&v, static_cast<const char*>(p) + i * int64_t(sizeof(T)), sizeof(T));
    return v;
}
template <class T>
void setElement(void* p, int64_t i, T v) {
    std::memcpy(static_cast<char*>(p) + i * int64_t(sizeof(T)), &v, sizeof(T));
}

/// A [K/a,M,a] and C [N/c,M,c] <-> their [M,cols]. Rows go in tiles of 8 so that both sides stay in a few cache
/// lines: a run of one block is 16 bytes or less, and row strides of a power of two would otherwise evict each other.
template <class T>
void convertRows(int64_t M, int64_t cols, int64_t block, bool toNative, const void* src, void* dst) {
    constexpr int64_t rowTile = 8;
    for (int64_t m0 = 0; m0 < M; m0 += rowTile)
        for (int64_t cb = 0; cb < ceilDiv(cols, block); ++cb) {
            const int64_t c0 = cb * block, valid = std::min(block, cols - c0);
            for (int64_t m = m0; m < std::min(M, m0 + rowTile); ++m) {
                const int64_t nat = (cb * M + m) * block, plain = m * cols + c0;
                if (toNative) {
                    for (int64_t j = 0; j < valid; ++j) setElement<T>(dst, nat + j, elementAt<T>(src, plain + j));
                    for (int64_t j = valid; j < block; ++j) setElement<T>(dst, nat + j, T{});
                } else {
                    for (int64_t j = 0; j < valid; ++j) setElement<T>(dst, plain + j, elementAt<T>(src, nat + j));
                }
            }
        }
}

/// B [N/n,K/k,n,k] per K segment <-> [K,N] (or [N,K] for tp_norm), one n x k block at a time through a small tile,
/// so the rows of [K,N] are read and written contiguously.
template <class T>
void convertB(int64_t K, int64_t N, const MatmulNativeLayout& native, MatmulLayout plain, bool toNative,
              const void* src, void* dst) {
    const int64_t n = native.bNBlock, k = native.bKBlock;
    const bool transposed = plain == MatmulLayout::TpNorm;
    std::vector<T> tile(static_cast<size_t>(n * k));  // native order: [n][k]
    int64_t segmentOffset = 0;
    for (const auto& [k0, k1] : matmulBSegments(K, native)) {
        const int64_t kBlocks = ceilDiv(k1 - k0, k), nBlocks = ceilDiv(N, n);
        // Blocks in the row order of the plain matrix ([K,N]: K blocks outside; [N,K]: N blocks), not in the memory
        // order of the native array: each plain row is then read or written once, front to back.
        const int64_t outer = transposed ? nBlocks : kBlocks, inner = transposed ? kBlocks : nBlocks;
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i) {
                const int64_t kb = transposed ? i : o, nb = transposed ? o : i;
                const int64_t offset = segmentOffset + (nb * kBlocks + kb) * n * k;
                const int64_t kStart = k0 + kb * k, validK = std::min(k, k1 - kStart);
                const int64_t nStart = nb * n, validN = std::min(n, N - nStart);
                auto plainIndex = [&](int64_t kk, int64_t nn) {
                    return transposed ? (nStart + nn) * K + kStart + kk : (kStart + kk) * N + nStart + nn;
                };
                if (toNative) {
                    if (validK < k || validN < n) std::fill(tile.begin(), tile.end(), T{});
                    if (transposed) {
                        for (int64_t nn = 0; nn < validN; ++nn)
                            for (int64_t kk = 0; kk < validK; ++kk)
                                tile[size_t(nn * k + kk)] = elementAt<T>(src, plainIndex(kk, nn));
                    } else {
                        for (int64_t kk = 0; kk < validK; ++kk)
                            for (int64_t nn = 0; nn < validN; ++nn)
                                tile[size_t(nn * k + kk)] = elementAt<T>(src, plainIndex(kk, nn));
                    }
                    std::memcpy(static_cast<char*>(dst) + offset * int64_t(sizeof(T)), tile.data(),
                                tile.size() * sizeof(T));
                } else {
                    std::memcpy(tile.data(), static_cast<const char*>(src) + offset * int64_t(sizeof(T)),
                                tile.size() * sizeof(T));
                    if (transposed) {
                        for (int64_t nn = 0; nn < validN; ++nn)
                            for (int64_t kk = 0; kk < validK; ++kk)
                                setElement<T>(dst, plainIndex(kk, nn), tile[size_t(nn * k + kk)]);
                    } else {
                        for (int64_t kk = 0; kk < validK; ++kk)
                            for (int64_t nn = 0; nn < validN; ++nn)
                                setElement<T>(dst, plainIndex(kk, nn), tile[size_t(nn * k + kk)]);
                    }
                }
            }
        segmentOffset += nBlocks * kBlocks * n * k;
    }
}

template <class T>
void convertWith(MatmulOperand operand, int64_t M, int64_t K, int64_t N, const MatmulNativeLayout& native,
                 MatmulLayout from, const void* src, MatmulLayout to, void* dst) {
    const bool toNative = to == MatmulLayout::Native;
    if (from == MatmulLayout::Native || toNative) {
        const MatmulLayout plain = toNative ? from : to;
        if (operand == MatmulOperand::B) return convertB<T>(K, N, native, plain, toNative, src, dst);
        const bool isA = operand == MatmulOperand::A;
        return convertRows<T>(M, isA ? K : N, isA ? native.aKBlock : native.cNBlock, toNative, src, dst);
    }
    // B norm <-> tp_norm
    const bool toTransposed = to == MatmulLayout::TpNorm;
    for (int64_t kk = 0; kk < K; ++kk)
        for (int64_t nn = 0; nn < N; ++nn) {
            const int64_t normal = kk * N + nn, transposed = nn * K + kk;
            setElement<T>(dst, toTransposed ? transposed : normal,
                          elementAt<T>(src, toTransposed ? normal : transposed));
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
