// Checks of a matmul spec, alone and against a chip's matmul API limits (RKNN SDK user guide V2.5.0, 4.1.1.4.1
// "limits of the matrix specification": tables 4-4 and 4-5; rknn_matmul_api.h). Every message names the limit.
#include <algorithm>
#include <cmath>
#include <limits>

#include "npuwb/Error.h"
#include "npuwb/Matmul.h"

namespace npuwb {

namespace {

std::string dtypeLabel(DType t) {
    switch (t) {
        case DType::F16:
            return "fp16";
        case DType::BF16:
            return "bf16";
        case DType::F32:
            return "fp32";
        case DType::I4:
            return "int4";
        case DType::I8:
            return "int8";
        case DType::I16:
            return "int16";
        case DType::I32:
            return "int32";
        default:
            return std::string(dtypeName(t));
    }
}

std::pair<int64_t, int64_t> integerRange(DType t) {
    switch (t) {
        case DType::I4:
            return {-8, 7};
        case DType::I8:
            return {-128, 127};
        case DType::I16:
            return {-32768, 32767};
        default:
            return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    }
}

void checkQuant(const char* operand, DType dtype, const MatmulQuant& q, const MatmulSpec& spec,
                std::vector<std::string>& problems) {
    const std::string name(operand);
    if (!q.isSet()) {
        if (!q.zeroPoints.empty()) problems.push_back("zero points of " + name + " are set without scales");
        return;
    }
    if (!isInteger(dtype)) {
        problems.push_back("quantization of " + name + " is set but " + name + " is " + dtypeLabel(dtype) +
                           " (only integer operands are quantized)");
        return;
    }
    if (name != "B" && q.granularity != QuantGranularity::PerLayer) {
        problems.push_back(name + " supports per-layer quantization only");
        return;
    }
    size_t expected = 1;
    std::string what = "per layer";
    if (q.granularity == QuantGranularity::PerChannel) {
        expected = size_t(spec.N);
        what = "per channel (N)";
    } else if (q.granularity == QuantGranularity::PerGroup) {
        if (q.groupSize <= 0 || spec.K % q.groupSize != 0) {
            problems.push_back("group size " + std::to_string(q.groupSize) + " of " + name +
                               " must divide K=" + std::to_string(spec.K));
            return;
        }
        expected = size_t(spec.K / q.groupSize * spec.N);
        what = "per group (K/groupSize x N)";
    }
    if (q.scales.size() != expected)
        problems.push_back(name + " has " + std::to_string(q.scales.size()) + " scales, " + what + " needs " +
                           std::to_string(expected));
    if (!q.zeroPoints.empty() && q.zeroPoints.size() != q.scales.size())
        problems.push_back(name + " has " + std::to_string(q.zeroPoints.size()) + " zero points for " +
                           std::to_string(q.scales.size()) + " scales");
    for (float s : q.scales)
        if (!(s > 0) || !std::isfinite(s)) {
            problems.push_back("scales of " + name + " must be positive and finite");
            break;
        }
    const auto [lo, hi] = integerRange(dtype);
    for (int32_t z : q.zeroPoints)
        if (z < lo || z > hi) {
            problems.push_back("zero point " + std::to_string(z) + " of " + name + " is outside " + dtypeLabel(dtype) +
                               " [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
            break;
        }
}

}  // namespace

std::vector<std::string> matmulSpecProblems(const MatmulSpec& spec) {
    std::vector<std::string> problems;
    const MatmulTypeInfo& info = matmulTypeInfo(spec.type);
    if (spec.mValues.empty()) problems.push_back("no M given");
    for (int64_t m : spec.mValues)
        if (m < 1) problems.push_back("M=" + std::to_string(m) + " must be at least 1");
    if (spec.K < 1) problems.push_back("K=" + std::to_string(spec.K) + " must be at least 1");
    if (spec.N < 1) problems.push_back("N=" + std::to_string(spec.N) + " must be at least 1");
    if (spec.acLayout == MatmulLayout::TpNorm)
        problems.push_back("A and C take the norm or native layout, not tp_norm");
    if (info.a != DType::F16 && spec.K > kMatmulMaxIntegerK)
        problems.push_back("K=" + std::to_string(spec.K) + " exceeds " + std::to_string(kMatmulMaxIntegerK) +
                           ", the largest K whose int32 sums cannot overflow");
    if (!problems.empty()) return problems;  // quantization lengths depend on sane sizes
    checkQuant("A", info.a, spec.a, spec, problems);
    checkQuant("B", info.b, spec.b, spec, problems);
    checkQuant("C", info.c, spec.c, spec, problems);
    return problems;
}

std::vector<std::string> matmulChipProblems(const MatmulSpec& spec, const ChipProfile& chip) {
    std::vector<std::string> problems = matmulSpecProblems(spec);
    if (!chip.matmul) {
        problems.push_back(chip.name + " has no matmul API");
        return problems;
    }
    const MatmulChipProfile& mm = *chip.matmul;
    const MatmulTypeInfo& info = matmulTypeInfo(spec.type);
    if (std::find(mm.types.begin(), mm.types.end(), info.name) == mm.types.end()) {
        std::string supported;
        for (const auto& t : mm.types) supported += (supported.empty() ? "" : ", ") + t;
        problems.push_back("type " + std::string(info.name) + " is not supported by the matmul API on " + chip.name +
                           " (supported: " + supported + ")");
        return problems;
    }
    const std::string kind = matmulOperandKind(spec.type);
    auto limits = mm.kinds.find(kind);
    if (limits == mm.kinds.end()) {
        problems.push_back(chip.name + "'s profile has no matmul layouts for " + kind);
        return problems;
    }
    if (spec.K > mm.maxK)
        problems.push_back("K=" + std::to_string(spec.K) + " exceeds " + std::to_string(mm.maxK) +
                           ", the largest K of the matmul API on " + chip.name);
    if (spec.K > 0 && spec.K % limits->second.kAlign != 0)
        problems.push_back("K=" + std::to_string(spec.K) + " must be a multiple of " +
                           std::to_string(limits->second.kAlign) + " for " + kind + " on " + chip.name);
    if (spec.N > 0 && spec.N % limits->second.nAlign != 0)
        problems.push_back("N=" + std::to_string(spec.N) + " must be a multiple of " +
                           std::to_string(limits->second.nAlign) + " for " + kind + " on " + chip.name);
    const std::string bLayout(matmulLayoutName(spec.bLayout));
    if (std::find(mm.bLayouts.begin(), mm.bLayouts.end(), bLayout) == mm.bLayouts.end()) {
        std::string supported;
        for (const auto& l : mm.bLayouts) supported += (supported.empty() ? "" : ", ") + l;
        problems.push_back("B layout " + bLayout + " is not supported on " + chip.name + " (" + supported + ")");
    }
    return problems;
}

void validateMatmul(const MatmulSpec& spec, const ChipProfile* chip) {
    const std::vector<std::string> problems = chip ? matmulChipProblems(spec, *chip) : matmulSpecProblems(spec);
    if (problems.empty()) return;
    std::string message;
    for (const auto& p : problems) message += (message.empty() ? "" : "; ") + p;
    failInput(message);
}

}  // namespace npuwb
