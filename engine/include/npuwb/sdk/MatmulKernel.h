#pragma once
// The matmul kernel contract: a backend plugin that runs the NPU's matmul types on the CPU (npuwb/MatmulTypes.h
// says what each type computes). The engine hands kernels normal layouts only (it converts the chips' native
// layouts itself), prepares once per B and runs many times, for each of several M (dynamic shapes: one prepared
// kernel serves every M of MatmulKernelSpec::mValues, buffers sized for the largest).
//
// A plugin offers matmul kernels by exporting, besides the backend entry points (npuwb/sdk/Backend.h):
//   extern "C" int npuwb_matmul_kernel_api_version();                      // must equal kMatmulKernelApiVersion
//   extern "C" npuwb::MatmulKernelProvider* npuwb_create_matmul_kernels();  // ownership passes to the engine
// Specs a provider declines run on the engine's plain reference, which is also the oracle kernels are tested
// against (bit-exact for integer types).
//
// A device provider (takesSpecLayouts(): the NPU runtime plugin, which runs the vendor's matmul calls) instead
// takes A, B and C in the spec's own layouts, native ones included, as the device reads them; the spec then also
// carries the engine's dims and bytes of each operand per M (deviceShapes), which the device's own view must match.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "npuwb/MatmulTypes.h"
#include "npuwb/sdk/Backend.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb {

inline constexpr int kMatmulKernelApiVersion = 2;  // 2: device providers (layouts, core mask, deviceShapes)

/// One operand as the engine lays it out (matmulOperandDims / matmulOperandBytes): dims (B native: its first K
/// segment's, as the vendor's io_attr gives them) and bytes (all segments, padding included).
struct MatmulOperandShape {
    std::vector<int64_t> dims;
    int64_t bytes = 0;
};
/// A, B and C of one M in the spec's layouts.
struct MatmulDeviceShape {
    int64_t M = 0;
    MatmulOperandShape a, b, c;
};

/// One matmul as a kernel sees it. Validated by the engine: sizes positive, K <= kMatmulMaxIntegerK for integer
/// A, quantization arrays of the right lengths (a and c per layer), groupSize dividing K.
struct MatmulKernelSpec {
    MatmulType type = MatmulType::Fp16xFp16ToFp32;
    int64_t K = 0;
    int64_t N = 0;
    std::vector<int64_t> mValues;  // every M run() is called with
    bool bTransposed = false;      // B is [N,K] (the API's TP_NORM) instead of [K,N]
    MatmulQuant a, b, c;
    int threads = 1;

    // Device providers only (CPU kernels always get normal layouts and these defaults):
    MatmulLayout acLayout = MatmulLayout::Norm;  // A and C as run() takes and gives them: Norm or Native
    MatmulLayout bLayout = MatmulLayout::Norm;   // B on the device: Norm, TpNorm or Native
    bool bGivenNormal = false;  // bLayout Native, but prepare()'s B is [K,N]: the device's own conversion makes it
    NpuCoreMask coreMask = NpuCoreMask::Auto;
    std::vector<MatmulDeviceShape> deviceShapes;  // one per M of mValues, same order

    int64_t maxM() const {
        int64_t m = 0;
        for (int64_t v : mValues) m = v > m ? v : m;
        return m;
    }
};

/// A matmul prepared for one B (weights packed), run with A and C in normal layouts:
/// A [M,K] and C [M,N], row-major, in the type's element types (a device kernel: in the spec's acLayout).
class MatmulKernel {
public:
    virtual ~MatmulKernel() = default;
    /// M is one of the spec's mValues. May be called from one thread at a time.
    virtual void run(int64_t M, const void* a, void* c) = 0;
};

class MatmulKernelProvider {
public:
    virtual ~MatmulKernelProvider() = default;
    virtual std::string name() const = 0;  // the backend's name, "cpu-onednn"
    /// Whether this provider runs `spec`; why not otherwise (shown next to the reference's results).
    virtual Capability supports(const MatmulKernelSpec& spec) const = 0;
    /// Packs B ([K,N], or [N,K] when spec.bTransposed) for every M of spec.mValues. Throws npuwb::Error.
    virtual std::unique_ptr<MatmulKernel> prepare(const MatmulKernelSpec& spec, const void* b) = 0;
    /// True for a device's kernels, which take operands in the spec's layouts (see the top of this file).
    virtual bool takesSpecLayouts() const { return false; }
};

/// The last step of integer-input types (npuwb/MatmulTypes.h): C rows [0, M) from the exact sums
/// acc[(g * M + m) * N + n] of each group g (groups = spec.b.groups(K)). Implemented once, in the engine.
void finishIntegerMatmul(const MatmulKernelSpec& spec, int64_t M, const int32_t* acc, void* c);

/// Real value of B element (k, n) as fp16-A types use it (npuwb/MatmulTypes.h); `b` as the spec stores B.
float dequantizedB(const MatmulKernelSpec& spec, const void* b, int64_t k, int64_t n);

/// The engine's plain reference (naive loops, k ascending): the oracle and the fallback. B as in `prepare`.
void referenceMatmul(const MatmulKernelSpec& spec, int64_t M, const void* a, const void* b, void* c);

}  // namespace npuwb
