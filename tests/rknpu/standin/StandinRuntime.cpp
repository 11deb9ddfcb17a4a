// The STAND-IN librknnrt.so (tests only, never shipped or installed): Rockchip's public C API (standin_rknn_api.h)
// answered by the engine's CPU backends running the ONNX model inside a stand-in test container (README.md here).
// Given a real .rknn file it refuses with RKNN_ERR_MODEL_INVALID and says why. Every call checks its arguments and
// returns the vendor's error code instead of crashing; contexts are independent, so different contexts may be
// used from different threads at once (calls on one context are serialised).
// Built twice: librknnrt.so, and with NPUWB_STANDIN_MINI_RUNTIME the stand-in for the RV1106/RV1103 mini runtime
// librknnmrt.so, which does not export the functions that runtime lacks (STANDIN_FULL_RUNTIME_ONLY below).
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "StandinMatmul.h"
#include "StandinModel.h"
#include "npuwb/Error.h"

using namespace npuwb;
using namespace npuwb::standin;

#define STANDIN_EXPORT __attribute__((visibility("default")))
#ifdef NPUWB_STANDIN_MINI_RUNTIME  // librknnmrt.so: no rknn_dup_context, core masks or rknn_inputs_set/outputs_get
#define STANDIN_FULL_RUNTIME_ONLY __attribute__((visibility("hidden")))
#define STANDIN_LIBRARY "librknnmrt"
#else
#define STANDIN_FULL_RUNTIME_ONLY STANDIN_EXPORT
#define STANDIN_LIBRARY "librknnrt"
#endif

void npuwb::standin::say(const std::string& message) {
    std::fprintf(stderr, STANDIN_LIBRARY " STAND-IN (npuwb tests): %s\n", message.c_str());
}

namespace {

std::mutex g_registryMutex;
std::map<rknn_context, std::shared_ptr<Context>> g_contexts;
rknn_context g_nextHandle = 1;
std::atomic<uint64_t> g_weightBytes{0};

rknn_context registerContext(std::shared_ptr<Context> ctx) {
    std::lock_guard lock(g_registryMutex);
    const rknn_context handle = g_nextHandle++;
    g_contexts[handle] = std::move(ctx);
    return handle;
}

std::shared_ptr<Context> findContext(rknn_context handle) {
    std::lock_guard lock(g_registryMutex);
    auto it = g_contexts.find(handle);
    return it == g_contexts.end() ? nullptr : it->second;
}

std::optional<DType> dtypeOfVendor(int type) {
    switch (type) {
    case RKNN_TENSOR_FLOAT32: return DType::F32;
    case RKNN_TENSOR_FLOAT16: return DType::F16;
    case RKNN_TENSOR_INT8: return DType::I8;
    case RKNN_TENSOR_UINT8: return DType::U8;
    case RKNN_TENSOR_INT16: return DType::I16;
    case RKNN_TENSOR_UINT16: return DType::U16;
    case RKNN_TENSOR_INT32: return DType::I32;
    case RKNN_TENSOR_UINT32: return DType::U32;
    case RKNN_TENSOR_INT64: return DType::I64;
    case RKNN_TENSOR_BOOL: return DType::Bool;
    case RKNN_TENSOR_BFLOAT16: return DType::BF16;
    default: return std::nullopt;
    }
}

rknn_tensor_type vendorOfDtype(DType t) {
    for (int v = RKNN_TENSOR_FLOAT32; v < RKNN_TENSOR_TYPE_MAX; ++v)
        if (dtypeOfVendor(v) == t) return static_cast<rknn_tensor_type>(v);
    return RKNN_TENSOR_TYPE_MAX;  // not reachable: loadModel refuses types without a vendor name
}

void fillAttr(rknn_tensor_attr& a, const IoDesc& d, bool nhwc) {
    const uint32_t index = a.index;
    std::memset(&a, 0, sizeof a);
    a.index = index;
    Shape shape = d.shape;
    if (nhwc && shape.size() == 4) shape = {shape[0], shape[2], shape[3], shape[1]};
    a.n_dims = static_cast<uint32_t>(std::min<size_t>(shape.size(), RKNN_MAX_DIMS));
    for (uint32_t i = 0; i < a.n_dims; ++i) a.dims[i] = static_cast<uint32_t>(shape[i]);
    std::snprintf(a.name, sizeof a.name, "%s", d.name.c_str());
    a.n_elems = static_cast<uint32_t>(shapeNumel(d.shape));
    a.size = static_cast<uint32_t>(static_cast<size_t>(a.n_elems) * dtypeSize(d.dtype));
    a.fmt = nhwc && shape.size() == 4 ? RKNN_TENSOR_NHWC : d.shape.size() == 4 ? RKNN_TENSOR_NCHW : RKNN_TENSOR_UNDEFINED;
    a.type = vendorOfDtype(d.dtype);
    a.qnt_type = RKNN_TENSOR_QNT_NONE;
    a.scale = 1.0f;
    a.size_with_stride = a.size;
}

/// The caller's buffer converted to the model's type and NCHW order, written into `target` (of the model's type and
/// NCHW `shape`).
void convertInput(const rknn_input& in, const Shape& shape, DType callerType, Tensor& target) {
    const bool nhwc = in.fmt == RKNN_TENSOR_NHWC && shape.size() == 4;
    const int64_t n = shapeNumel(shape);
    const Shape callerShape = nhwc ? Shape{shape[0], shape[2], shape[3], shape[1]} : shape;
    const Tensor source = Tensor::view(callerType, callerShape, in.buf);
    if (!nhwc && callerType == target.dtype()) {
        std::memcpy(target.raw(), in.buf, static_cast<size_t>(n) * dtypeSize(callerType));
        return;
    }
    const int64_t c = nhwc ? shape[1] : 1, h = nhwc ? shape[2] : 1, w = nhwc ? shape[3] : 1;
    visitAny(target.dtype(), [&]<typename T>() {
        T* out = target.data<T>();
        for (int64_t i = 0; i < n; ++i) {
            int64_t from = i;
            if (nhwc) {  // i indexes NCHW; the caller's buffer is NHWC
                const int64_t x = i % w, y = (i / w) % h, ch = (i / (w * h)) % c, b = i / (w * h * c);
                from = ((b * h + y) * w + x) * c + ch;
            }
            if constexpr (std::is_same_v<T, std::string>) {
                failInput("string tensors cannot be set");
            } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
                out[i] = T(static_cast<float>(source.elementAsDouble(from)));
            } else {
                out[i] = static_cast<T>(source.elementAsDouble(from));
            }
        }
    }, "rknn_inputs_set");
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) failInput("cannot open '" + path + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

extern "C" {

STANDIN_EXPORT uint64_t npuwb_standin_weight_bytes_allocated(void) { return g_weightBytes.load(); }

STANDIN_EXPORT uint64_t npuwb_standin_live_mems(void) { return liveMems(); }

STANDIN_EXPORT int rknn_init(rknn_context* context, void* model, uint32_t size, uint32_t flag,
                             [[maybe_unused]] rknn_init_extend* extend) {
    // `extend` (weight sharing between inits, zero-copy model buffers) is not implemented: README.md, known limits.
    return guarded("rknn_init", RKNN_ERR_MODEL_INVALID, [&] {
        if (!context || !model) return RKNN_ERR_PARAM_INVALID;
        const std::string label = size == 0 ? std::string(static_cast<const char*>(model)) : "the model buffer";
        const std::string bytes = size == 0 ? readFile(label) : std::string(static_cast<const char*>(model), size);
        if (looksLikeRealRknn(bytes)) {
            say(label + " is a real .rknn model; this is the npuwb test stand-in for librknnrt.so, which runs only "
                        "NPUWB-STANDIN-RKNN test containers (tests/rknpu/standin/README.md), never real models");
            return RKNN_ERR_MODEL_INVALID;
        }
        std::shared_ptr<const LoadedModel> loaded;
        try {
            loaded = loadModel(bytes, label);
        } catch (const std::exception& e) {
            say(std::string("rknn_init: ") + e.what());
            return RKNN_ERR_MODEL_INVALID;
        }
        auto ctx = std::make_shared<Context>(loaded, flag);
        g_weightBytes += loaded->weightBytes;
        *context = registerContext(std::move(ctx));
        return RKNN_SUCC;
    });
}

STANDIN_FULL_RUNTIME_ONLY int rknn_dup_context(rknn_context* context_in, rknn_context* context_out) {
    return guarded("rknn_dup_context", RKNN_ERR_FAIL, [&] {
        if (!context_in || !context_out) return RKNN_ERR_PARAM_INVALID;
        auto original = findContext(*context_in);
        if (!original) return RKNN_ERR_CTX_INVALID;
        // The copy shares the loaded model (graph and weights) and gets its own session, buffers and figures.
        *context_out = registerContext(std::make_shared<Context>(original->loaded, original->flags));
        return RKNN_SUCC;
    });
}

STANDIN_EXPORT int rknn_destroy(rknn_context context) {
    std::shared_ptr<Context> gone;
    {
        std::lock_guard lock(g_registryMutex);
        auto it = g_contexts.find(context);
        if (it == g_contexts.end()) return RKNN_ERR_CTX_INVALID;
        gone = std::move(it->second);
        g_contexts.erase(it);
    }
    std::lock_guard wait(gone->mutex);  // a call still running on it finishes first
    return RKNN_SUCC;
}

STANDIN_EXPORT int rknn_query(rknn_context context, rknn_query_cmd cmd, void* info, uint32_t size) {
    auto ctx = findContext(context);
    if (!ctx) return RKNN_ERR_CTX_INVALID;
    if (!info) return RKNN_ERR_PARAM_INVALID;
    return guarded("rknn_query", RKNN_ERR_FAIL, [&] {
        std::lock_guard lock(ctx->mutex);
        const LoadedModel& m = *ctx->loaded;
        switch (rawValue(cmd)) {
        case RKNN_QUERY_IN_OUT_NUM: {
            if (size != sizeof(rknn_input_output_num)) return RKNN_ERR_PARAM_INVALID;
            auto* n = static_cast<rknn_input_output_num*>(info);
            n->n_input = static_cast<uint32_t>(m.inputs.size());
            n->n_output = static_cast<uint32_t>(m.outputs.size());
            return RKNN_SUCC;
        }
        case RKNN_QUERY_INPUT_ATTR:
        case RKNN_QUERY_OUTPUT_ATTR:
        case RKNN_QUERY_NATIVE_INPUT_ATTR:
        case RKNN_QUERY_NATIVE_OUTPUT_ATTR:
        case RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR:
        case RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR: {
            if (size != sizeof(rknn_tensor_attr)) return RKNN_ERR_PARAM_INVALID;
            auto* a = static_cast<rknn_tensor_attr*>(info);
            const bool input = cmd == RKNN_QUERY_INPUT_ATTR || cmd == RKNN_QUERY_NATIVE_INPUT_ATTR ||
                               cmd == RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR;
            const auto& list = input ? m.inputs : m.outputs;
            if (a->index >= list.size()) return RKNN_ERR_PARAM_INVALID;
            // Native layouts (README.md, zero-copy buffers): NHWC for 4-D tensors (the stand-in has no NC1HWC2, so
            // both native queries answer the same), input rows padded to a w_stride.
            const bool native = cmd != RKNN_QUERY_INPUT_ATTR && cmd != RKNN_QUERY_OUTPUT_ATTR;
            fillAttr(*a, list[a->index], native);
            if (native) makeNative(*a, input, m.inputWidthAlign);
            return RKNN_SUCC;
        }
        case RKNN_QUERY_PERF_DETAIL: {
            if (size != sizeof(rknn_perf_detail)) return RKNN_ERR_PARAM_INVALID;
            if (!(ctx->flags & RKNN_FLAG_COLLECT_PERF_MASK)) {
                say("RKNN_QUERY_PERF_DETAIL needs RKNN_FLAG_COLLECT_PERF_MASK at rknn_init");
                return RKNN_ERR_PARAM_INVALID;
            }
            if (!ctx->ran) return RKNN_ERR_PARAM_INVALID;  // valid after a run
            auto* d = static_cast<rknn_perf_detail*>(info);
            d->perf_data = ctx->perfDetail.data();
            d->data_len = ctx->perfDetail.size();
            return RKNN_SUCC;
        }
        case RKNN_QUERY_PERF_RUN: {
            if (size != sizeof(rknn_perf_run)) return RKNN_ERR_PARAM_INVALID;
            if (!ctx->ran) return RKNN_ERR_PARAM_INVALID;
            static_cast<rknn_perf_run*>(info)->run_duration = ctx->lastRunUs;
            return RKNN_SUCC;
        }
        case RKNN_QUERY_SDK_VERSION: {
            if (size != sizeof(rknn_sdk_version)) return RKNN_ERR_PARAM_INVALID;
            auto* v = static_cast<rknn_sdk_version*>(info);
            std::snprintf(v->api_version, sizeof v->api_version, "%s",
                          "npuwb stand-in 1 (test double of " STANDIN_LIBRARY ".so on the engine's CPU backends, not "
                          "Rockchip's runtime)");
            std::snprintf(v->drv_version, sizeof v->drv_version, "%s", "none (stand-in, no NPU driver)");
            return RKNN_SUCC;
        }
        case RKNN_QUERY_MEM_SIZE: {
            if (size != sizeof(rknn_mem_size)) return RKNN_ERR_PARAM_INVALID;
            auto* s = static_cast<rknn_mem_size*>(info);
            std::memset(s, 0, sizeof *s);
            uint64_t io = 0;
            for (const auto& d : m.inputs) io += d.itemBytes * static_cast<uint64_t>(m.batch);
            for (const auto& d : m.outputs) io += d.itemBytes * static_cast<uint64_t>(m.batch);
            s->total_weight_size = static_cast<uint32_t>(std::min<uint64_t>(m.weightBytes, UINT32_MAX));
            s->total_internal_size = static_cast<uint32_t>(std::min<uint64_t>(m.internalBytes, UINT32_MAX));
            s->total_dma_allocated_size = m.weightBytes + m.internalBytes + io;
            return RKNN_SUCC;
        }
        default: return RKNN_ERR_PARAM_INVALID;
        }
    });
}

STANDIN_FULL_RUNTIME_ONLY int rknn_inputs_set(rknn_context context, uint32_t n_inputs, rknn_input inputs[]) {
    auto ctx = findContext(context);
    if (!ctx) return RKNN_ERR_CTX_INVALID;
    return guarded("rknn_inputs_set", RKNN_ERR_INPUT_INVALID, [&] {
        std::lock_guard lock(ctx->mutex);
        const auto& descs = ctx->loaded->inputs;
        if (!inputs || n_inputs == 0 || n_inputs > descs.size()) return RKNN_ERR_PARAM_INVALID;
        for (uint32_t k = 0; k < n_inputs; ++k) {
            const rknn_input& in = inputs[k];
            if (in.index >= descs.size() || !in.buf) return RKNN_ERR_PARAM_INVALID;
            const IoDesc& d = descs[in.index];
            const std::optional<DType> callerType = in.pass_through ? std::optional(d.dtype) : dtypeOfVendor(rawValue(in.type));
            if (!callerType) {
                say("rknn_inputs_set: input " + std::to_string(in.index) + " has an unknown type " +
                    std::to_string(rawValue(in.type)));
                return RKNN_ERR_INPUT_INVALID;
            }
            const auto format = rawValue(in.fmt);
            const bool knownFormat = in.pass_through || format == RKNN_TENSOR_NCHW || format == RKNN_TENSOR_NHWC ||
                                     format == RKNN_TENSOR_UNDEFINED;
            // The whole batch, as the size query reports it (a batch-N model's buffer holds all N items).
            const size_t expected = static_cast<size_t>(shapeNumel(d.shape)) * dtypeSize(*callerType);
            if (!knownFormat || in.size != expected) {
                say("rknn_inputs_set: input " + std::to_string(in.index) + " ('" + d.name + "') needs " +
                    std::to_string(expected) + " bytes of " + std::string(dtypeName(*callerType)) +
                    " in NCHW or NHWC, got " + std::to_string(in.size) + " bytes, format " + std::to_string(format));
                return RKNN_ERR_INPUT_INVALID;
            }
            Tensor t = Tensor::uninitialized(d.dtype, d.shape);
            rknn_input copy = in;
            if (in.pass_through) copy.fmt = RKNN_TENSOR_NCHW;
            convertInput(copy, d.shape, *callerType, t);
            ctx->inputs[in.index] = std::move(t);
        }
        return RKNN_SUCC;
    });
}

STANDIN_FULL_RUNTIME_ONLY int rknn_set_core_mask(rknn_context context, rknn_core_mask core_mask) {
    auto ctx = findContext(context);
    if (!ctx) return RKNN_ERR_CTX_INVALID;
    std::lock_guard lock(ctx->mutex);
    if (!coreMaskValid(rawValue(core_mask), ctx->loaded->npuCores)) {
        say("rknn_set_core_mask: mask " + std::to_string(rawValue(core_mask)) + " is not valid on " + ctx->loaded->targetPlatform +
            " (" + std::to_string(ctx->loaded->npuCores) + " NPU core(s))");
        return RKNN_ERR_PARAM_INVALID;
    }
    ctx->coreMask = core_mask;
    return RKNN_SUCC;
}

STANDIN_EXPORT int rknn_set_batch_core_num(rknn_context context, int core_num) {
    auto ctx = findContext(context);
    if (!ctx) return RKNN_ERR_CTX_INVALID;
    std::lock_guard lock(ctx->mutex);
    if (core_num < 1 || core_num > ctx->loaded->npuCores) return RKNN_ERR_PARAM_INVALID;
    ctx->batchCoreNum = core_num;
    return RKNN_SUCC;
}

STANDIN_EXPORT int rknn_run(rknn_context context, rknn_run_extend* extend) {
    auto ctx = findContext(context);
    if (!ctx) return RKNN_ERR_CTX_INVALID;
    return guarded("rknn_run", RKNN_ERR_FAIL, [&] {
        std::lock_guard lock(ctx->mutex);
        const LoadedModel& m = *ctx->loaded;
        // Bound input buffers are read at every run, as the NPU reads the memory it was given.
        for (size_t i = 0; i < ctx->inputMems.size(); ++i)
            if (const auto& b = ctx->inputMems[i]) {
                const std::vector<uint8_t> nchw = gatherNchw(m.inputs[i].shape, *b);
                Tensor t = Tensor::uninitialized(m.inputs[i].dtype, m.inputs[i].shape);
                rknn_input from{};
                from.buf = const_cast<uint8_t*>(nchw.data());
                from.fmt = RKNN_TENSOR_NCHW;
                convertInput(from, m.inputs[i].shape, b->type, t);
                ctx->inputs[i] = std::move(t);
            }
        for (size_t i = 0; i < ctx->inputs.size(); ++i)
            if (!ctx->inputs[i]) {
                say("rknn_run: input " + std::to_string(i) + " was never set (rknn_inputs_set or rknn_set_io_mem)");
                return RKNN_ERR_INPUT_INVALID;
            }
        ctx->run();
        for (size_t k = 0; k < ctx->outputMems.size(); ++k)
            if (const auto& b = ctx->outputMems[k]) {
                const Tensor& result = ctx->outputs[k];
                if (b->type == result.dtype()) {
                    scatterNchw(result.shape(), *b, result.raw());
                    continue;
                }
                Tensor converted = Tensor::uninitialized(b->type, result.shape());
                rknn_input from{};
                from.buf = const_cast<void*>(result.raw());
                from.fmt = RKNN_TENSOR_NCHW;
                convertInput(from, result.shape(), result.dtype(), converted);
                scatterNchw(result.shape(), *b, converted.raw());
            }
        if (extend) extend->frame_id = ctx->frames;
        return RKNN_SUCC;
    });
}

STANDIN_FULL_RUNTIME_ONLY int rknn_outputs_get(rknn_context context, uint32_t n_outputs, rknn_output outputs[],
                                               rknn_output_extend* extend) {
    auto ctx = findContext(context);
    if (!ctx) return RKNN_ERR_CTX_INVALID;
    return guarded("rknn_outputs_get", RKNN_ERR_OUTPUT_INVALID, [&] {
        std::lock_guard lock(ctx->mutex);
        const auto& descs = ctx->loaded->outputs;
        if (!outputs || n_outputs == 0 || n_outputs > descs.size()) return RKNN_ERR_PARAM_INVALID;
        if (!ctx->ran) return RKNN_ERR_OUTPUT_INVALID;
        for (uint32_t k = 0; k < n_outputs; ++k) {
            rknn_output& out = outputs[k];
            if (out.index >= descs.size()) return RKNN_ERR_PARAM_INVALID;
            const Tensor& result = ctx->outputs[out.index];
            Tensor converted = result;
            if (out.want_float && result.dtype() != DType::F32) {
                converted = Tensor::uninitialized(DType::F32, result.shape());
                float* f = converted.data<float>();
                for (int64_t i = 0; i < result.numel(); ++i) f[i] = static_cast<float>(result.elementAsDouble(i));
            }
            const size_t bytes = converted.byteSize();
            if (out.is_prealloc) {
                if (!out.buf || out.size < bytes) {
                    say("rknn_outputs_get: output " + std::to_string(out.index) + " needs a buffer of " +
                        std::to_string(bytes) + " bytes, got " + std::to_string(out.size));
                    return RKNN_ERR_OUTPUT_INVALID;
                }
            } else {
                ctx->heldOutputs.push_back(std::make_unique<std::vector<char>>(bytes));
                out.buf = ctx->heldOutputs.back()->data();
            }
            std::memcpy(out.buf, converted.raw(), bytes);
            out.size = static_cast<uint32_t>(bytes);
        }
        if (extend) extend->frame_id = ctx->frames;
        return RKNN_SUCC;
    });
}

STANDIN_FULL_RUNTIME_ONLY int rknn_outputs_release(rknn_context context, uint32_t n_outputs, rknn_output outputs[]) {
    auto ctx = findContext(context);
    if (!ctx) return RKNN_ERR_CTX_INVALID;
    std::lock_guard lock(ctx->mutex);
    if (n_outputs > 0 && !outputs) return RKNN_ERR_PARAM_INVALID;
    for (uint32_t k = 0; k < n_outputs; ++k)
        if (!outputs[k].is_prealloc) {
            auto& held = ctx->heldOutputs;
            auto it = std::find_if(held.begin(), held.end(), [&](const auto& b) { return b->data() == outputs[k].buf; });
            if (it != held.end()) held.erase(it);
            outputs[k].buf = nullptr;
        }
    return RKNN_SUCC;
}

// Zero-copy buffers (README.md here): made per context, bound by tensor name, read at each rknn_run (inputs) and
// written after it (outputs).
STANDIN_EXPORT rknn_tensor_mem* rknn_create_mem(rknn_context context, uint32_t size) {
    auto ctx = findContext(context);
    if (!ctx && size > 0 && isMatmulContext(context)) {  // a matmul context's A, B or C (StandinMatmul.cpp)
        try {
            return createMem(context, size);
        } catch (const std::bad_alloc&) {
            return nullptr;
        }
    }
    if (!ctx || size == 0) return nullptr;
    std::lock_guard lock(ctx->mutex);
    ++ctx->memsCreated;
    // Test-only failure injection: the Nth call on a context returns no buffer, as a runtime out of DMA memory does.
    if (const char* fail = std::getenv("NPUWB_STANDIN_FAIL_CREATE_MEM"); fail && std::atoi(fail) == ctx->memsCreated) {
        say("rknn_create_mem: call " + std::to_string(ctx->memsCreated) +
            " on this context fails on purpose (NPUWB_STANDIN_FAIL_CREATE_MEM)");
        return nullptr;
    }
    try {
        return createMem(context, size);
    } catch (const std::bad_alloc&) {
        say("rknn_create_mem: out of memory for " + std::to_string(size) + " bytes");
        return nullptr;
    }
}

STANDIN_EXPORT int rknn_destroy_mem(rknn_context context, rknn_tensor_mem* mem) {
    auto ctx = findContext(context);
    if (!ctx && isMatmulContext(context)) {
        rknn_context owner = 0;
        if (!mem || !memOwner(mem, owner) || owner != context) return RKNN_ERR_PARAM_INVALID;
        unbindMatmulMem(context, mem);
        freeMem(mem);
        return RKNN_SUCC;
    }
    if (!ctx) return RKNN_ERR_CTX_INVALID;  // destroy the buffers before their context
    std::lock_guard lock(ctx->mutex);
    rknn_context owner = 0;
    if (!mem || !memOwner(mem, owner) || owner != context) return RKNN_ERR_PARAM_INVALID;
    for (auto* bindings : {&ctx->inputMems, &ctx->outputMems})
        for (auto& b : *bindings)
            if (b && b->mem == mem) b.reset();
    freeMem(mem);
    return RKNN_SUCC;
}

STANDIN_EXPORT int rknn_set_io_mem(rknn_context context, rknn_tensor_mem* mem, rknn_tensor_attr* attr) {
    auto ctx = findContext(context);
    if (!ctx) return RKNN_ERR_CTX_INVALID;
    if (!mem || !attr) return RKNN_ERR_PARAM_INVALID;
    return guarded("rknn_set_io_mem", RKNN_ERR_PARAM_INVALID, [&] {
        std::lock_guard lock(ctx->mutex);
        rknn_context owner = 0;
        if (!memOwner(mem, owner) || owner != context) {
            say("rknn_set_io_mem: the buffer was not made by rknn_create_mem on this context");
            return RKNN_ERR_PARAM_INVALID;
        }
        // The tensor by its name (inputs first), the index checked: nothing else in an attribute says which side it is.
        const std::string name(attr->name, strnlen(attr->name, sizeof attr->name));
        const LoadedModel& m = *ctx->loaded;
        bool input = true;
        size_t index = 0;
        const IoDesc* d = nullptr;
        for (const auto* list : {&m.inputs, &m.outputs}) {
            for (size_t i = 0; i < list->size() && !d; ++i)
                if ((*list)[i].name == name) d = &(*list)[i], index = i;
            if (d) break;
            input = false;
        }
        if (!d || index != attr->index) {
            say("rknn_set_io_mem: no input or output named '" + name + "' with index " + std::to_string(attr->index));
            return RKNN_ERR_PARAM_INVALID;
        }
        const int invalid = input ? RKNN_ERR_INPUT_INVALID : RKNN_ERR_OUTPUT_INVALID;
        const std::optional<DType> type = attr->pass_through ? std::optional(d->dtype) : dtypeOfVendor(attr->type);
        const bool fourD = d->shape.size() == 4;
        const bool nhwc = fourD && (attr->pass_through || attr->fmt == RKNN_TENSOR_NHWC);
        const bool dense = attr->pass_through || attr->fmt == RKNN_TENSOR_NCHW || attr->fmt == RKNN_TENSOR_NHWC ||
                           (!fourD && attr->fmt == RKNN_TENSOR_UNDEFINED);
        if (!type || !dense) {
            say("rknn_set_io_mem: '" + name + "': type " + std::to_string(attr->type) + ", format " +
                std::to_string(attr->fmt) + " not taken (NCHW, the native NHWC, or pass_through)");
            return invalid;
        }
        rknn_tensor_attr native{};
        native.index = static_cast<uint32_t>(index);
        fillAttr(native, *d, true);
        makeNative(native, input, m.inputWidthAlign);
        IoBinding b;
        b.mem = mem;
        b.type = *type;
        b.nhwc = nhwc;
        if (nhwc) {
            b.wStride = native.w_stride;  // the runtime's (read-only for the caller)
            b.hStride = attr->h_stride ? attr->h_stride : d->shape[2];
            if (b.hStride < d->shape[2]) return invalid;
        }
        const size_t need = boundBytes(d->shape, b);
        if (mem->size < need) {
            say("rknn_set_io_mem: '" + name + "' needs a buffer of " + std::to_string(need) + " bytes, got " +
                std::to_string(mem->size));
            return RKNN_ERR_PARAM_INVALID;
        }
        (input ? ctx->inputMems : ctx->outputMems)[index] = b;
        return RKNN_SUCC;
    });
}

}  // extern "C"
