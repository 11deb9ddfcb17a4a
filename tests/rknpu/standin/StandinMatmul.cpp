// The stand-in's matmul API (standin_rknn_matmul_api.h; README.md here, "Matmul API"): contexts hold the engine's
// MatmulSpec for the chip named by $NPUWB_STANDIN_CHIP (default rk3588; the chip profiles via NPUWB_CHIPS_DIR as
// for containers), io_attrs are the engine's matmulOperandDims / matmulOperandBytes, and rknn_matmul_run computes
// C with the engine's reference matmul (MatmulContext, backend "reference") from the bound buffers in their layouts,
// so results equal the CPU reference by construction. Engine public API only.
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "StandinMatmul.h"
#include "StandinZeroCopy.h"
#include "npuwb/ChipProfile.h"
#include "npuwb/Matmul.h"
#include "standin_rknn_matmul_api.h"

using namespace npuwb;
using namespace npuwb::standin;

#define STANDIN_EXPORT __attribute__((visibility("default")))
#ifdef NPUWB_STANDIN_MINI_RUNTIME  // librknnmrt.so has no matmul API
#define STANDIN_MATMUL_EXPORT __attribute__((visibility("hidden")))
#else
#define STANDIN_MATMUL_EXPORT STANDIN_EXPORT
#endif

namespace {

struct MatmulCtx {
    std::mutex mutex;
    ChipProfile chip;
    MatmulSpec spec;  // mValues: every shape's M
    std::vector<rknn_matmul_shape> shapes;
    size_t current = 0;  // the shape rknn_matmul_set_dynamic_shape chose
    rknn_tensor_mem *a = nullptr, *b = nullptr, *c = nullptr;
};

std::mutex g_mutex;
std::map<rknn_context, std::shared_ptr<MatmulCtx>> g_matmuls;
rknn_context g_nextHandle = 0x40000000;  // apart from the model contexts' handles

std::shared_ptr<MatmulCtx> findMatmul(rknn_context handle) {
    std::lock_guard lock(g_mutex);
    auto it = g_matmuls.find(handle);
    return it == g_matmuls.end() ? nullptr : it->second;
}

ChipProfile standinChip() {
    const char* chip = std::getenv("NPUWB_STANDIN_CHIP");
    return findChipProfile(chip && *chip ? chip : "rk3588");
}

rknn_tensor_type vendorType(DType dtype) {
    switch (dtype) {
    case DType::F32: return RKNN_TENSOR_FLOAT32;
    case DType::F16: return RKNN_TENSOR_FLOAT16;
    case DType::BF16: return RKNN_TENSOR_BFLOAT16;
    case DType::I8: return RKNN_TENSOR_INT8;
    case DType::I16: return RKNN_TENSOR_INT16;
    case DType::I32: return RKNN_TENSOR_INT32;
    case DType::I4: return RKNN_TENSOR_INT4;
    default: return RKNN_TENSOR_TYPE_MAX;
    }
}

MatmulLayout layoutOf(int16_t code, bool b) {
    if (code == RKNN_MM_LAYOUT_NORM) return MatmulLayout::Norm;
    if (code == RKNN_MM_LAYOUT_NATIVE) return MatmulLayout::Native;
    if (code == RKNN_MM_LAYOUT_TP_NORM && b) return MatmulLayout::TpNorm;
    throw std::invalid_argument("layout " + std::to_string(code) + " is not one of " + (b ? "B's" : "A/C's"));
}

std::optional<MatmulNativeLayout> nativeOf(MatmulType type, const ChipProfile& chip) {
    try {
        return matmulNativeLayout(type, chip);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

void fillAttr(rknn_matmul_tensor_attr& attr, const char* name, MatmulOperand operand, MatmulLayout layout,
              DType dtype, int64_t M, const MatmulSpec& spec, const MatmulNativeLayout& native) {
    attr = {};
    std::snprintf(attr.name, sizeof attr.name, "%s", name);
    const auto dims = matmulOperandDims(operand, layout, M, spec.K, spec.N, native).front();  // B: first segment
    attr.n_dims = uint32_t(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) attr.dims[i] = uint32_t(dims[i]);
    attr.size = uint32_t(matmulOperandBytes(operand, layout, dtype, M, spec.K, spec.N, native));
    attr.type = vendorType(dtype);
}

}  // namespace

namespace npuwb::standin {

bool coreMaskValid(int mask, int64_t cores) {
    if (mask == RKNN_NPU_CORE_AUTO || mask == RKNN_NPU_CORE_0) return true;
    if (cores < 2) return false;
    if (mask == RKNN_NPU_CORE_1 || mask == RKNN_NPU_CORE_0_1 || mask == RKNN_NPU_CORE_ALL) return true;
    return cores >= 3 && (mask == RKNN_NPU_CORE_2 || mask == RKNN_NPU_CORE_0_1_2);
}

bool isMatmulContext(rknn_context handle) { return findMatmul(handle) != nullptr; }

void unbindMatmulMem(rknn_context handle, const rknn_tensor_mem* mem) {
    auto ctx = findMatmul(handle);
    if (!ctx) return;
    std::lock_guard lock(ctx->mutex);
    for (rknn_tensor_mem** bound : {&ctx->a, &ctx->b, &ctx->c})
        if (*bound == mem) *bound = nullptr;
}

}  // namespace npuwb::standin

extern "C" {

STANDIN_MATMUL_EXPORT int rknn_matmul_create_dynamic_shape(rknn_matmul_ctx* context, rknn_matmul_info* info,
                                                           int shape_num, rknn_matmul_shape dynamic_shapes[],
                                                           rknn_matmul_io_attr io_attrs[]) {
    if (!context || !info || shape_num < 1 || !dynamic_shapes || !io_attrs) return RKNN_ERR_PARAM_INVALID;
    return guarded("rknn_matmul_create_dynamic_shape", RKNN_ERR_PARAM_INVALID, [&] {
        auto ctx = std::make_shared<MatmulCtx>();
        ctx->chip = standinChip();
        MatmulSpec& spec = ctx->spec;
        spec.type = MatmulType(rawValue(info->type));
        matmulTypeInfo(spec.type);  // throws for a number the API does not define
        spec.K = dynamic_shapes[0].K;
        spec.N = dynamic_shapes[0].N;
        spec.mValues.clear();
        for (int i = 0; i < shape_num; ++i) {
            if (dynamic_shapes[i].K != spec.K || dynamic_shapes[i].N != spec.N) {
                say("rknn_matmul_create_dynamic_shape: only M may differ between shapes");
                return RKNN_ERR_PARAM_INVALID;
            }
            spec.mValues.push_back(dynamic_shapes[i].M);
            ctx->shapes.push_back(dynamic_shapes[i]);
        }
        spec.acLayout = layoutOf(info->AC_layout, false);
        spec.bLayout = layoutOf(info->B_layout, true);
        if (info->B_quant_type == 1) spec.b.granularity = QuantGranularity::PerChannel;
        if (info->B_quant_type == 2)
            spec.b.granularity = QuantGranularity::PerGroup, spec.b.groupSize = info->group_size;
        if (const auto problems = matmulChipProblems(spec, ctx->chip); !problems.empty()) {
            say("rknn_matmul_create: " + problems.front());
            return RKNN_ERR_PARAM_INVALID;
        }
        const MatmulNativeLayout native = nativeOf(spec.type, ctx->chip).value_or(MatmulNativeLayout{});
        const MatmulTypeInfo& types = matmulTypeInfo(spec.type);
        for (int i = 0; i < shape_num; ++i) {
            const int64_t M = dynamic_shapes[i].M;
            fillAttr(io_attrs[i].A, "A", MatmulOperand::A, spec.acLayout, types.a, M, spec, native);
            fillAttr(io_attrs[i].B, "B", MatmulOperand::B, spec.bLayout, types.b, M, spec, native);
            fillAttr(io_attrs[i].C, "C", MatmulOperand::C, spec.acLayout, types.c, M, spec, native);
        }
        std::lock_guard lock(g_mutex);
        *context = g_nextHandle++;
        g_matmuls[*context] = std::move(ctx);
        return RKNN_SUCC;
    });
}

STANDIN_MATMUL_EXPORT int rknn_matmul_create(rknn_matmul_ctx* context, rknn_matmul_info* info,
                                             rknn_matmul_io_attr* io_attr) {
    if (!info) return RKNN_ERR_PARAM_INVALID;
    rknn_matmul_shape shape{info->M, info->K, info->N};
    return rknn_matmul_create_dynamic_shape(context, info, 1, &shape, io_attr);
}

STANDIN_MATMUL_EXPORT int rknn_matmul_set_core_mask(rknn_matmul_ctx context, rknn_core_mask core_mask) {
    auto ctx = findMatmul(context);
    if (!ctx) return RKNN_ERR_CTX_INVALID;
    if (!standin::coreMaskValid(rawValue(core_mask), ctx->chip.cores)) {
        say("rknn_matmul_set_core_mask: mask " + std::to_string(rawValue(core_mask)) + " is not valid on " +
            ctx->chip.name);
        return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}

STANDIN_MATMUL_EXPORT int rknn_matmul_set_quant_params(rknn_matmul_ctx context, rknn_quant_params* params) {
    auto ctx = findMatmul(context);
    if (!ctx) return RKNN_ERR_CTX_INVALID;
    if (!params || !params->scale || params->scale_len < 1 || (params->zp_len > 0 && !params->zp))
        return RKNN_ERR_PARAM_INVALID;
    std::lock_guard lock(ctx->mutex);
    const std::string name(params->name, strnlen(params->name, sizeof params->name));
    MatmulQuant* quant = name == "A" ? &ctx->spec.a : name == "B" ? &ctx->spec.b : name == "C" ? &ctx->spec.c : nullptr;
    if (!quant) {
        say("rknn_matmul_set_quant_params: no operand named '" + name + "'");
        return RKNN_ERR_PARAM_INVALID;
    }
    quant->scales.assign(params->scale, params->scale + params->scale_len);
    quant->zeroPoints.assign(params->zp, params->zp + std::max(params->zp_len, 0));
    if (const auto problems = matmulSpecProblems(ctx->spec); !problems.empty()) {
        say("rknn_matmul_set_quant_params: " + problems.front());
        quant->scales.clear(), quant->zeroPoints.clear();
        return RKNN_ERR_PARAM_INVALID;
    }
    return RKNN_SUCC;
}

STANDIN_MATMUL_EXPORT int rknn_matmul_set_io_mem(rknn_matmul_ctx context, rknn_tensor_mem* mem,
                                                 rknn_matmul_tensor_attr* attr) {
    auto ctx = findMatmul(context);
    if (!ctx) return RKNN_ERR_CTX_INVALID;
    if (!mem || !attr) return RKNN_ERR_PARAM_INVALID;
    rknn_context owner = 0;
    if (!standin::memOwner(mem, owner) || owner != context) {
        say("rknn_matmul_set_io_mem: the buffer was not made by rknn_create_mem on this context");
        return RKNN_ERR_PARAM_INVALID;
    }
    if (mem->size < attr->size) {
        say("rknn_matmul_set_io_mem: '" + std::string(attr->name) + "' needs " + std::to_string(attr->size) +
            " bytes, the buffer has " + std::to_string(mem->size));
        return RKNN_ERR_PARAM_INVALID;
    }
    std::lock_guard lock(ctx->mutex);
    const std::string name(attr->name, strnlen(attr->name, sizeof attr->name));
    rknn_tensor_mem** slot = name == "A" ? &ctx->a : name == "B" ? &ctx->b : name == "C" ? &ctx->c : nullptr;
    if (!slot) return RKNN_ERR_PARAM_INVALID;
    *slot = mem;
    return RKNN_SUCC;
}

STANDIN_MATMUL_EXPORT int rknn_matmul_set_dynamic_shape(rknn_matmul_ctx context, rknn_matmul_shape* shape) {
    auto ctx = findMatmul(context);
    if (!ctx) return RKNN_ERR_CTX_INVALID;
    if (!shape) return RKNN_ERR_PARAM_INVALID;
    std::lock_guard lock(ctx->mutex);
    for (size_t i = 0; i < ctx->shapes.size(); ++i)
        if (ctx->shapes[i].M == shape->M && ctx->shapes[i].K == shape->K && ctx->shapes[i].N == shape->N) {
            ctx->current = i;
            return RKNN_SUCC;
        }
    say("rknn_matmul_set_dynamic_shape: M=" + std::to_string(shape->M) + " was not one of the created shapes");
    return RKNN_ERR_PARAM_INVALID;
}

STANDIN_MATMUL_EXPORT int rknn_matmul_run(rknn_matmul_ctx context) {
    auto ctx = findMatmul(context);
    if (!ctx) return RKNN_ERR_CTX_INVALID;
    return guarded("rknn_matmul_run", RKNN_ERR_PARAM_INVALID, [&] {
        std::lock_guard lock(ctx->mutex);
        if (!ctx->a || !ctx->b || !ctx->c) {
            say("rknn_matmul_run: A, B and C need buffers (rknn_matmul_set_io_mem)");
            return RKNN_ERR_PARAM_INVALID;
        }
        // The engine's reference on the bound bytes, in the context's layouts (native ones converted around it).
        MatmulContextOptions options;
        options.backend = "reference";
        options.threads = 1;
        options.chip = &ctx->chip;
        MatmulContext reference(ctx->spec, ctx->b->virt_addr, options);
        reference.run(ctx->shapes[ctx->current].M, ctx->a->virt_addr, ctx->c->virt_addr);
        return RKNN_SUCC;
    });
}

STANDIN_MATMUL_EXPORT int rknn_matmul_destroy(rknn_matmul_ctx context) {
    std::lock_guard lock(g_mutex);
    return g_matmuls.erase(context) ? RKNN_SUCC : RKNN_ERR_CTX_INVALID;
}

STANDIN_MATMUL_EXPORT int rknn_B_normal_layout_to_native_layout(void* B_input, void* B_output, int K, int N,
                                                                rknn_matmul_info* info) {
    if (!B_input || !B_output || !info || K < 1 || N < 1) return RKNN_ERR_PARAM_INVALID;
    return guarded("rknn_B_normal_layout_to_native_layout", RKNN_ERR_PARAM_INVALID, [&] {
        const MatmulType type = MatmulType(info->type);
        const MatmulNativeLayout native = matmulNativeLayout(type, standinChip());
        convertMatmulOperand(MatmulOperand::B, matmulTypeInfo(type).b, 1, K, N, native, MatmulLayout::Norm, B_input,
                             MatmulLayout::Native, B_output);
        return RKNN_SUCC;
    });
}

}  // extern "C"
