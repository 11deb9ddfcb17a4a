// Identity and Dropout: ops that (at inference) hand their input through unchanged.
#include <random>

#include "ops/tensor/TensorOpsUtil.h"

namespace npuwb {
namespace {

using namespace tensorops;

// Identity also forwards sequences and optionals (opset 14+/16+): the Value is passed through as is.
void identity(KernelContext& ctx) { ctx.setOutputValue(0, ctx.inputValue(0)); }

// numpy's legacy np.random.seed(s) + np.random.uniform(0, 1, n): MT19937 seeded with init_genrand (what
// std::mt19937 does) and 53-bit doubles from two draws. Reproducing it makes training-mode Dropout with a
// `seed` attribute match the ONNX reference outputs bit for bit.
std::vector<double> numpyUniform(uint32_t seed, int64_t n) {
    std::mt19937 mt(seed);
    std::vector<double> out(uz(n));
    for (double& v : out) {
        uint32_t a = static_cast<uint32_t>(mt()) >> 5;
        uint32_t b = static_cast<uint32_t>(mt()) >> 6;
        v = (a * 67108864.0 + b) / 9007199254740992.0;
    }
    return out;
}

void dropout(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    double ratio = ctx.attrFloat("ratio", 0.5f);
    bool training = false;
    if (ctx.opset() >= 12) {
        ratio = ctx.hasInput(1) ? scalarAsDouble(ctx.input(1)) : 0.5;
        training = ctx.hasInput(2) && scalarAsDouble(ctx.input(2)) != 0.0;
    }
    // Dropout-1..6 had is_test; models exported for inference are treated as inference regardless.
    DType maskType = ctx.opset() >= 10 ? DType::Bool : x.dtype();

    if (!training || ratio == 0.0) {
        ctx.setOutput(0, x);
        if (ctx.wantsOutput(1)) ctx.setOutput(1, filledTensor(maskType, x.shape(), 1.0));
        return;
    }
    if (ratio < 0.0 || ratio >= 1.0) ctx.fail("ratio must be in [0, 1) in training mode");
    uint32_t seed = ctx.hasAttr("seed") ? static_cast<uint32_t>(ctx.attrInt("seed", 0)) : std::random_device{}();
    std::vector<double> draws = numpyUniform(seed, x.numel());
    Tensor y(x.dtype(), x.shape());
    Tensor mask(DType::Bool, x.shape());
    bool* m = mask.data<bool>();
    visitFloat(x.dtype(), [&]<typename T>() {
        const T* in = x.data<T>();
        T* out = y.data<T>();
        float scale = static_cast<float>(1.0 / (1.0 - ratio));
        for (int64_t i = 0; i < x.numel(); ++i) {
            m[i] = draws[uz(i)] >= ratio;
            out[i] = m[i] ? T(static_cast<float>(in[i]) * scale) : T(0.0f);
        }
    }, "Dropout");
    ctx.setOutput(0, std::move(y));
    if (ctx.wantsOutput(1)) ctx.setOutput(1, std::move(mask));  // training needs opset 12+: bool mask
}

}  // namespace

NPUWB_KERNEL("Identity", identity);
NPUWB_KERNEL("Dropout", dropout);

}  // namespace npuwb
