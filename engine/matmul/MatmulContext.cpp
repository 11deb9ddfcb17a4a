// A prepared matmul on the CPU: picks the kernels of a backend plugin (or the reference), converts native
// layouts to the normal ones kernels take, and serves every M of the spec from buffers sized for the largest.
#include <algorithm>
#include <cstring>

#include "matmul/MatmulPlugins.h"
#include "matmul/MatmulReference.h"
#include "npuwb/Error.h"
#include "npuwb/Matmul.h"
#include "npuwb/Session.h"

namespace npuwb {

struct MatmulContext::State {
    MatmulSpec spec;
    MatmulTypeInfo info{};
    MatmulNativeLayout native;
    std::shared_ptr<MatmulKernelProvider> provider;  // keeps the plugin's kernel code alive
    std::unique_ptr<MatmulKernel> kernel;
    std::string backend = "reference";
    std::string fallbackReason;
    std::vector<uint8_t> normalA, normalC;  // native A/C: the kernel's normal layouts, sized for the largest M
    bool deviceLayouts = false;             // the kernel takes A and C in the spec's layouts (a device's)
};

namespace {

MatmulKernelSpec kernelSpec(const MatmulSpec& spec, int threads) {
    MatmulKernelSpec k;
    k.type = spec.type;
    k.K = spec.K;
    k.N = spec.N;
    k.mValues = spec.mValues;
    std::sort(k.mValues.begin(), k.mValues.end());
    k.mValues.erase(std::unique(k.mValues.begin(), k.mValues.end()), k.mValues.end());
    k.bTransposed = spec.bLayout == MatmulLayout::TpNorm;
    k.a = spec.a;
    k.b = spec.b;
    k.c = spec.c;
    k.threads = threads;
    return k;
}

/// The engine's dims and bytes of A, B and C per M in the spec's layouts: what a device must report alike.
std::vector<MatmulDeviceShape> deviceShapes(const MatmulKernelSpec& k, const MatmulTypeInfo& info,
                                            const MatmulNativeLayout& native) {
    std::vector<MatmulDeviceShape> shapes;
    auto operand = [&](MatmulOperand which, MatmulLayout layout, DType dtype, int64_t M) {
        return MatmulOperandShape{matmulOperandDims(which, layout, M, k.K, k.N, native).front(),
                                  matmulOperandBytes(which, layout, dtype, M, k.K, k.N, native)};
    };
    for (int64_t M : k.mValues)
        shapes.push_back({M, operand(MatmulOperand::A, k.acLayout, info.a, M),
                          operand(MatmulOperand::B, k.bLayout, info.b, M),
                          operand(MatmulOperand::C, k.acLayout, info.c, M)});
    return shapes;
}

}  // namespace

MatmulContext::MatmulContext(const MatmulSpec& spec, const void* b, const MatmulContextOptions& options)
    : state_(std::make_unique<State>()) {
    State& s = *state_;
    s.spec = spec;
    validateMatmul(spec, options.chip);
    s.info = matmulTypeInfo(spec.type);
    if (options.bGivenNormal && spec.bLayout != MatmulLayout::Native)
        failInput("B given in the normal layout for conversion, but the spec's B layout is " +
                  std::string(matmulLayoutName(spec.bLayout)) + ", not native");
    const bool native = spec.acLayout == MatmulLayout::Native || spec.bLayout == MatmulLayout::Native;
    if (native) {
        if (!options.chip) failInput("native matmul layouts need a chip (its profile defines them)");
        s.native = matmulNativeLayout(spec.type, *options.chip);
    }
    const int threads = options.threads > 0 ? options.threads : physicalCoreCount();
    MatmulKernelSpec kspec = kernelSpec(spec, threads);
    const std::string requested = resolveBackendName(options.backend);
    if (requested != "reference") {
        try {
            s.provider = loadMatmulKernelProvider(requested);
        } catch (const Error& e) {
            if (options.backend != "auto") throw;
            s.fallbackReason = e.what();
        }
    }
    // A device takes the operands as they are, in the spec's layouts; the device's view is checked against ours.
    if (s.provider && s.provider->takesSpecLayouts()) {
        kspec.acLayout = spec.acLayout;
        kspec.bLayout = spec.bLayout;
        kspec.bGivenNormal = options.bGivenNormal;
        kspec.coreMask = options.coreMask;
        kspec.deviceShapes = deviceShapes(kspec, s.info, s.native);
        const Capability cap = s.provider->supports(kspec);
        if (!cap.supported) failUnsupported(s.provider->name() + " does not run this matmul: " + cap.reason);
        s.kernel = s.provider->prepare(kspec, b);
        s.backend = s.provider->name();
        s.deviceLayouts = true;
        return;
    }
    // Kernels take B as [K,N] or [N,K]: a native B is converted back once, as the API converts it on the way in.
    std::vector<uint8_t> normalB;
    const void* kernelB = b;
    if (spec.bLayout == MatmulLayout::Native && !options.bGivenNormal) {
        normalB.resize(
            size_t(matmulOperandBytes(MatmulOperand::B, MatmulLayout::Norm, s.info.b, 1, spec.K, spec.N, s.native)));
        convertMatmulOperand(MatmulOperand::B, s.info.b, 1, spec.K, spec.N, s.native, MatmulLayout::Native, b,
                             MatmulLayout::Norm, normalB.data());
        kernelB = normalB.data();
    }
    if (s.provider) {
        Capability cap = s.provider->supports(kspec);
        if (cap.supported) {
            s.kernel = s.provider->prepare(kspec, kernelB);
            s.backend = s.provider->name();
        } else {
            s.fallbackReason = s.provider->name() + " does not run this matmul: " + cap.reason;
        }
    }
    if (!s.kernel) s.kernel = prepareReferenceMatmul(kspec, kernelB);
    if (spec.acLayout == MatmulLayout::Native) {
        const int64_t maxM = spec.maxM();
        s.normalA.resize(size_t(matmulStorageBytes(s.info.a, maxM * spec.K)));
        s.normalC.resize(size_t(matmulStorageBytes(s.info.c, maxM * spec.N)));
    }
}

MatmulContext::~MatmulContext() = default;

void MatmulContext::run(int64_t M, const void* a, void* c) {
    State& s = *state_;
    if (std::find(s.spec.mValues.begin(), s.spec.mValues.end(), M) == s.spec.mValues.end()) {
        std::string ms;
        for (int64_t m : s.spec.mValues) ms.append(ms.empty() ? "" : ",").append(std::to_string(m));
        failInput("matmul run with M=" + std::to_string(M) + ", which is not one of the prepared shapes (M=" + ms +
                  ")");
    }
    const int64_t K = s.spec.K, N = s.spec.N;
    if (s.spec.acLayout != MatmulLayout::Native || s.deviceLayouts) {
        s.kernel->run(M, a, c);
        return;
    }
    convertMatmulOperand(MatmulOperand::A, s.info.a, M, K, N, s.native, MatmulLayout::Native, a, MatmulLayout::Norm,
                         s.normalA.data());
    s.kernel->run(M, s.normalA.data(), s.normalC.data());
    convertMatmulOperand(MatmulOperand::C, s.info.c, M, K, N, s.native, MatmulLayout::Norm, s.normalC.data(),
                         MatmulLayout::Native, c);
}

const MatmulSpec& MatmulContext::spec() const { return state_->spec; }
std::string MatmulContext::backendName() const { return state_->backend; }
std::string MatmulContext::fallbackReason() const { return state_->fallbackReason; }

}  // namespace npuwb
