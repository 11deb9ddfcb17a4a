#pragma once
// The NPU's matrix multiply as a workbench feature (RKNN SDK user guide V2.5.0, 4.1.1 "Matmul API"): specify a
// matmul (type, sizes, several M for dynamic shapes, layouts, quantization), check it against a chip's limits,
// convert operands to and from the chip's native layouts, run it on the CPU (a backend plugin's kernels or the
// engine's plain reference), and estimate its NPU time. What each type computes: npuwb/MatmulTypes.h.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "npuwb/ChipProfile.h"
#include "npuwb/MatmulTypes.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb {

/// Accepts the type name ("int8xint8->int32", also with "-" for "->"), the vendor name
/// ("RKNN_INT8_MM_INT8_TO_INT32"), the vendor number ("2") and the short names fp16 (fp16xfp16->fp32),
/// int8 (int8xint8->int32), int4 (int4xint4->int16), w8a16 (fp16xint8->fp32), w4a16 (fp16xint4->fp32).
/// Throws InvalidInput listing the names.
MatmulType parseMatmulType(std::string_view text);
/// The short name parseMatmulType takes for this type ("int8"), or "" when it has none.
std::string matmulTypeShortName(MatmulType type);
/// The operand kind a chip profile keys this type's layouts and limits by: A's type ("int4", "int8", "fp16").
/// For mixed types the guide gives B the layout and limits of A's type (4.1.1.4, note to table 4-3 and 4-5).
std::string matmulOperandKind(MatmulType type);

std::string_view matmulLayoutName(MatmulLayout layout);  // "norm", "native", "tp_norm"
MatmulLayout parseMatmulLayout(std::string_view text);   // throws InvalidInput

/// A matmul as the API's rknn_matmul_info describes it, with every M it will run with (dynamic shapes: only M
/// varies; one context serves them all, buffers sized for the largest).
struct MatmulSpec {
    MatmulType type = MatmulType::Fp16xFp16ToFp32;
    std::vector<int64_t> mValues{1};
    int64_t K = 0;
    int64_t N = 0;
    MatmulLayout acLayout = MatmulLayout::Norm;  // A and C: Norm or Native
    MatmulLayout bLayout = MatmulLayout::Norm;   // B: Norm, Native or TpNorm
    MatmulQuant a, b, c;                         // a and c per layer only

    int64_t maxM() const;
};

/// Problems of the spec alone (no chip): sizes, layouts per operand, quantization lengths and ranges, K of
/// integer types at most kMatmulMaxIntegerK. Empty when fine.
std::vector<std::string> matmulSpecProblems(const MatmulSpec& spec);
/// Those plus the chip's limits, each naming the limit: "N=100 must be a multiple of 32 for int8 on RK3588",
/// "K=12000 exceeds 10240, the largest K of the matmul API on RK3588", an unsupported type or B layout.
std::vector<std::string> matmulChipProblems(const MatmulSpec& spec, const ChipProfile& chip);
/// Throws InvalidInput with the problems joined by "; ". `chip` may be null (CPU runs of normal layouts).
void validateMatmul(const MatmulSpec& spec, const ChipProfile* chip);

// ---- Native layouts -------------------------------------------------------------------------------------------

/// One chip's native layouts for one type (from the profile's matmul section; divisions round up, padding is 0):
///   A [K/a, M, a]   B [N/n, K/k, n, k], per K segment   C [N/c, M, c]
struct MatmulNativeLayout {
    std::string chip;
    std::string kind;  // operand kind, "int8"
    int64_t aKBlock = 0;
    int64_t bNBlock = 0;
    int64_t bKBlock = 0;
    int64_t cNBlock = 0;
    int64_t kSegment = 0;  // B's K split into segments of this many rows, each its own native array (0: never)
};
/// Throws Unsupported when the chip has no matmul API or no layouts for the type's operand kind.
MatmulNativeLayout matmulNativeLayout(MatmulType type, const ChipProfile& chip);

enum class MatmulOperand { A, B, C };

/// K ranges [begin, end) of B's native segments: T = ceil(K / kSegment) of them (one without segmentation).
std::vector<std::pair<int64_t, int64_t>> matmulBSegments(int64_t K, const MatmulNativeLayout& native);
/// Dims of an operand in a layout, as the API's io_attr reports them: A norm [M,K], native [K/a,M,a]; B norm
/// [K,N], tp_norm [N,K], native [N/n,K/k,n,k] (one entry per K segment); C like A with N.
std::vector<std::vector<int64_t>> matmulOperandDims(MatmulOperand operand, MatmulLayout layout, int64_t M, int64_t K,
                                                    int64_t N, const MatmulNativeLayout& native);
/// Bytes of an operand in a layout (padding included; int4 two values per byte).
int64_t matmulOperandBytes(MatmulOperand operand, MatmulLayout layout, DType dtype, int64_t M, int64_t K, int64_t N,
                           const MatmulNativeLayout& native);
/// "[K/16,M,16] = [4,64,16]": the formula and its sizes, for tables and views.
std::string matmulLayoutText(MatmulOperand operand, MatmulLayout layout, int64_t M, int64_t K, int64_t N,
                             const MatmulNativeLayout& native);
/// Rearranges an operand between two of its layouts (A, C: norm and native; B: norm, tp_norm and native).
/// `dst` holds matmulOperandBytes(operand, to, ...); native padding is written as zeros. `native` is ignored
/// when neither layout is native.
void convertMatmulOperand(MatmulOperand operand, DType dtype, int64_t M, int64_t K, int64_t N,
                          const MatmulNativeLayout& native, MatmulLayout from, const void* src, MatmulLayout to,
                          void* dst);

// ---- Execution on the CPU -------------------------------------------------------------------------------------

struct MatmulContextOptions {
    /// "auto", "reference", a backend plugin with matmul kernels ("cpu-onednn") or a runtime plugin that runs the
    /// vendor's matmul calls on the NPU ("rknpu": operands go to the device in the spec's layouts; never "auto")
    std::string backend = "auto";
    int threads = 0;                    // 0: all physical cores
    const ChipProfile* chip = nullptr;  // needed for native layouts (and validated against when given)
    NpuCoreMask coreMask = NpuCoreMask::Auto;  // the NPU's cores (rknpu only)
    /// B is given [K,N] although spec.bLayout is Native: converted once when the context is made (rknpu: by the
    /// vendor's rknn_B_normal_layout_to_native_layout; the CPU needs no conversion).
    bool bGivenNormal = false;
};

/// A prepared matmul, like the API's context: B is taken (and packed) once, then run() for any M of the spec.
/// A, B and C are in the spec's layouts; native ones are converted to normal layouts around the CPU kernel.
class MatmulContext {
public:
    /// Validates the spec (and against options.chip when given). `b` holds B in spec.bLayout. A backend that
    /// declines the spec leaves it to the reference (fallbackReason() says why); an unknown backend throws.
    MatmulContext(const MatmulSpec& spec, const void* b, const MatmulContextOptions& options = {});
    ~MatmulContext();
    MatmulContext(const MatmulContext&) = delete;
    MatmulContext& operator=(const MatmulContext&) = delete;

    /// `a` and `c` in spec.acLayout, sized for this M (matmulOperandBytes). M must be one of spec.mValues.
    void run(int64_t M, const void* a, void* c);

    const MatmulSpec& spec() const;
    std::string backendName() const;     // "cpu-onednn", or "reference"
    std::string fallbackReason() const;  // why the requested backend is not the one running (empty if it is)

private:
    struct State;
    std::unique_ptr<State> state_;
};

/// Backends whose plugins provide matmul kernels (found in the plugin folders).
std::vector<std::string> availableMatmulBackends();

// ---- Estimate -------------------------------------------------------------------------------------------------

struct MatmulEstimate {
    double timeUs = 0;     // predicted NPU time of one run (native layouts, data in DDR)
    double npuCycles = 0;  // MAC array cycles including alignment padding
    double ddrCycles = 0;  // A, B and C moved over DDR
    int64_t paddedMacs = 0;
    int64_t bytesMoved = 0;
    double peakGops = 0;  // theoretical peak of the cores used for this type (2 ops per MAC)
    double macUsagePercent = 0;
};
/// The cost model's prediction for one M of the spec on `cores` NPU cores (the API uses one unless a core mask
/// says otherwise). The MAC array per cycle is B's native block (n x k), as for the chip's conv rates.
MatmulEstimate estimateMatmul(const MatmulSpec& spec, int64_t M, const ChipProfile& chip, int64_t cores = 1);

}  // namespace npuwb
