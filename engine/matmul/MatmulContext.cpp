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

}  // namespace

MatmulContext::MatmulContext(const MatmulSpec& spec, const void* b, const MatmulContextOptions& options)
    : state_(std::make_unique<State>()) {
    State& s = *state_;
    s.spec = spec;
    validateMatmul(spec, options.chip);
    s.info = matmulTypeInfo(spec.type);
    const bool native = spec.acLayout == MatmulLayout::Native || spec.bLayout == MatmulLayout::Native;
    if (native) {
        if (!options.chip) failInput("native matmul layouts need a chip (its profile defines them)");
        s.native = matmulNativeLayout(spec.type, *options.chip);
    }
    // Kernels take B as [K,N] or [N,K]: a native B is converted back once, as the API converts it on the way in.
    std::vector<uint8_t> normalB;
    const void* kernelB = b;
    if (spec.bLayout == MatmulLayout::Native) {
        normalB.resize(
            size_t(matmulOperandBytes(MatmulOperand::B, MatmulLayout::Norm, s.info.b, 1, spec.K, spec.N, s.native)));
        convertMatmulOperand(MatmulOperand::B, s.info.b, 1, spec.K, spec.N, s.native, MatmulLayout::Native, b,
                             MatmulLayout::Norm, normalB.data());
        kernelB = normalB.data();
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
    if (s.spec.acLayout != MatmulLayout::Native) {
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
