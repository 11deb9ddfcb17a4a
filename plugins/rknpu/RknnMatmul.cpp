// The matmul kernels of the rknpu plugin (RknnMatmul.h), following the order of the RKNN SDK user guide V2.5.0,
// 4.1.1: create (one rknn_matmul_shape per M when there are several), core mask, quantization parameters, buffers
// sized from the io_attr of the largest M, B into its buffer (the vendor's own normal -> native conversion when
// asked), then per run: the shape, the buffers bound, A in, rknn_matmul_run, C out. Everything made is destroyed by
// the kernel's destructor, also when a step of making it fails.
#include "RknnMatmul.h"

#include <dlfcn.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <type_traits>

#include "RknnLibrary.h"
#include "RknnMatmulApi.h"
#include "npuwb/Error.h"

namespace npuwb::rknpu {

namespace {

/// The runtime with its matmul calls.
struct MatmulRuntime {
    std::unique_ptr<RknnLibrary> lib;
    rknn::MatmulCreateFn create = nullptr;
    rknn::MatmulCreateDynamicFn createDynamic = nullptr;
    rknn::MatmulSetIoMemFn setIoMem = nullptr;
    rknn::MatmulSetCoreMaskFn setCoreMask = nullptr;
    rknn::MatmulSetQuantParamsFn setQuantParams = nullptr;
    rknn::MatmulSetDynamicShapeFn setDynamicShape = nullptr;
    rknn::MatmulRunFn run = nullptr;
    rknn::MatmulDestroyFn destroy = nullptr;
    rknn::BNormalToNativeFn bToNative = nullptr;
};

/// Loaded once per library path ($NPUWB_RKNNRT_LIBRARY or the default); null with `why` naming the library and
/// every function it lacks.
std::shared_ptr<const MatmulRuntime> loadMatmulRuntime(std::string& why) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const MatmulRuntime>> loaded;
    const char* env = std::getenv("NPUWB_RKNNRT_LIBRARY");
    const std::string key = env ? env : "";
    std::lock_guard lock(mutex);
    if (auto it = loaded.find(key); it != loaded.end()) return it->second;
    auto rt = std::make_shared<MatmulRuntime>();
    rt->lib = loadRknnLibrary("", why);
    if (!rt->lib) return nullptr;
    std::string missing;
    auto lacks = [&](const char* name) { missing.append(missing.empty() ? "" : ", ").append(name); };
    auto resolve = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(rt->lib->handle, name));
        if (!fn) lacks(name);
    };
    resolve(rt->create, "rknn_matmul_create");
    resolve(rt->createDynamic, "rknn_matmul_create_dynamic_shape");
    resolve(rt->setIoMem, "rknn_matmul_set_io_mem");
    resolve(rt->setCoreMask, "rknn_matmul_set_core_mask");
    resolve(rt->setQuantParams, "rknn_matmul_set_quant_params");
    resolve(rt->setDynamicShape, "rknn_matmul_set_dynamic_shape");
    resolve(rt->run, "rknn_matmul_run");
    resolve(rt->destroy, "rknn_matmul_destroy");
    resolve(rt->bToNative, "rknn_B_normal_layout_to_native_layout");
    if (!rt->lib->createMem) lacks("rknn_create_mem");
    if (!rt->lib->destroyMem) lacks("rknn_destroy_mem");
    if (!missing.empty()) {
        why = "'" + rt->lib->path + "' has no matmul API: it lacks " + missing;
        return nullptr;
    }
    loaded[key] = rt;
    return rt;
}

const char* rknnErrorName(int rc) {
    switch (rc) {
    case -1: return "RKNN_ERR_FAIL";
    case -2: return "RKNN_ERR_TIMEOUT";
    case -3: return "RKNN_ERR_DEVICE_UNAVAILABLE";
    case -4: return "RKNN_ERR_MALLOC_FAIL";
    case -5: return "RKNN_ERR_PARAM_INVALID";
    case -7: return "RKNN_ERR_CTX_INVALID";
    case -8: return "RKNN_ERR_INPUT_INVALID";
    case -9: return "RKNN_ERR_OUTPUT_INVALID";
    case -10: return "RKNN_ERR_DEVICE_UNMATCH";
    default: return "an RKNN error";
    }
}

int16_t layoutCode(MatmulLayout layout) {
    switch (layout) {
    case MatmulLayout::Norm: return rknn::kMmLayoutNorm;
    case MatmulLayout::Native: return rknn::kMmLayoutNative;
    case MatmulLayout::TpNorm: return rknn::kMmLayoutTpNorm;
    }
    return rknn::kMmLayoutNorm;
}

int16_t quantCode(QuantGranularity granularity) {
    switch (granularity) {
    case QuantGranularity::PerLayer: return rknn::kMmQuantPerLayer;
    case QuantGranularity::PerChannel: return rknn::kMmQuantPerChannel;
    case QuantGranularity::PerGroup: return rknn::kMmQuantPerGroup;
    }
    return rknn::kMmQuantPerLayer;
}

std::string dimsText(const uint32_t* dims, uint32_t n) {
    std::string s = "[";
    for (uint32_t i = 0; i < n && i < uint32_t(rknn::kMaxDims); ++i)
        s.append(i ? "," : "").append(std::to_string(dims[i]));
    return s + "]";
}

std::string dimsText(const std::vector<int64_t>& dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s.append(i ? "," : "").append(std::to_string(dims[i]));
    return s + "]";
}

class RknnMatmulKernel final : public MatmulKernel {
public:
    RknnMatmulKernel(std::shared_ptr<const MatmulRuntime> rt, const MatmulKernelSpec& spec)
        : rt_(std::move(rt)), spec_(spec) {
        std::string ms;
        for (int64_t m : spec.mValues) ms.append(ms.empty() ? "" : ",").append(std::to_string(m));
        what_ = std::string(matmulTypeInfo(spec.type).name) + " M=" + ms + " K=" + std::to_string(spec.K) +
                " N=" + std::to_string(spec.N) + " (" + rt_->lib->path + ")";
    }

    ~RknnMatmulKernel() override {
        for (rknn::TensorMem* mem : {a_, b_, c_})
            if (mem) rt_->lib->destroyMem(ctx_, mem);
        if (created_) rt_->destroy(ctx_);
    }

    void open(const void* b) {
        const size_t shapes = spec_.mValues.size();
        info_ = {};
        info_.M = int32_t(spec_.maxM());
        info_.K = int32_t(spec_.K);
        info_.N = int32_t(spec_.N);
        info_.type = int32_t(spec_.type);
        info_.B_layout = layoutCode(spec_.bLayout);
        info_.AC_layout = layoutCode(spec_.acLayout);
        if (spec_.b.isSet()) info_.B_quant_type = quantCode(spec_.b.granularity);
        if (spec_.b.granularity == QuantGranularity::PerGroup) info_.group_size = int16_t(spec_.b.groupSize);
        attrs_.assign(shapes, rknn::MatmulIoAttr{});
        for (int64_t m : spec_.mValues) shapes_.push_back({int32_t(m), int32_t(spec_.K), int32_t(spec_.N)});
        if (shapes == 1) {
            check(rt_->create(&ctx_, &info_, &attrs_[0]), "rknn_matmul_create");
        } else {
            check(rt_->createDynamic(&ctx_, &info_, int(shapes), shapes_.data(), attrs_.data()),
                  "rknn_matmul_create_dynamic_shape");
        }
        created_ = true;
        for (size_t i = 0; i < shapes; ++i) checkAttrs(i);
        if (spec_.coreMask != NpuCoreMask::Auto)
            check(rt_->setCoreMask(ctx_, rknnCoreMask(spec_.coreMask)),
                  "rknn_matmul_set_core_mask(" + std::string(coreMaskName(spec_.coreMask)) + ")");
        setQuant(spec_.a, attrs_[0].A, "A");
        setQuant(spec_.b, attrs_[0].B, "B");
        setQuant(spec_.c, attrs_[0].C, "C");
        uint32_t aBytes = 0, cBytes = 0;
        for (const auto& attr : attrs_) aBytes = std::max(aBytes, attr.A.size), cBytes = std::max(cBytes, attr.C.size);
        a_ = makeMem(aBytes, "A");
        b_ = makeMem(attrs_[0].B.size, "B");
        c_ = makeMem(cBytes, "C");
        if (spec_.bGivenNormal) {
            check(rt_->bToNative(const_cast<void*>(b), b_->virt_addr, info_.K, info_.N, &info_),
                  "rknn_B_normal_layout_to_native_layout");
        } else {
            std::memcpy(b_->virt_addr, b, size_t(spec_.deviceShapes[0].b.bytes));
        }
    }

    void run(int64_t M, const void* a, void* c) override {
        const auto it = std::find(spec_.mValues.begin(), spec_.mValues.end(), M);
        if (it == spec_.mValues.end()) failInput("rknpu matmul: M=" + std::to_string(M) + " was not prepared");
        const size_t i = size_t(it - spec_.mValues.begin());
        if (bound_ != int(i)) bind(i);
        const MatmulDeviceShape& shape = spec_.deviceShapes[i];
        std::memcpy(a_->virt_addr, a, size_t(shape.a.bytes));
        check(rt_->run(ctx_), "rknn_matmul_run (M=" + std::to_string(M) + ")");
        std::memcpy(c, c_->virt_addr, size_t(shape.c.bytes));
    }

private:
    void check(int rc, const std::string& call) const {
        if (rc == rknn::kSucc) return;
        failInput(call + " failed with RKNN error " + std::to_string(rc) + " (" + rknnErrorName(rc) + ") for " +
                  what_);
    }

    /// The runtime's view of A, B and C for shape i must be the engine's (same dims, at least as many bytes).
    void checkAttrs(size_t i) const {
        const MatmulDeviceShape& want = spec_.deviceShapes[i];
        const rknn::MatmulIoAttr& got = attrs_[i];
        auto one = [&](const char* name, const rknn::MatmulTensorAttr& attr, const MatmulOperandShape& shape) {
            bool same = attr.n_dims == shape.dims.size() && attr.size >= uint64_t(shape.bytes);
            for (size_t d = 0; same && d < shape.dims.size(); ++d) same = int64_t(attr.dims[d]) == shape.dims[d];
            if (!same)
                failInput(std::string("the runtime's ") + name + " for M=" + std::to_string(want.M) + " is " +
                          dimsText(attr.dims, attr.n_dims) + " (" + std::to_string(attr.size) +
                          " bytes), the engine's layout for the chip asked is " + dimsText(shape.dims) + " (" +
                          std::to_string(shape.bytes) + " bytes): is the board that chip? (" + what_ + ")");
        };
        one("A", got.A, want.a);
        one("B", got.B, want.b);
        one("C", got.C, want.c);
    }

    void setQuant(const MatmulQuant& quant, const rknn::MatmulTensorAttr& attr, const char* operand) {
        if (!quant.isSet()) return;
        std::vector<float> scales = quant.scales;
        std::vector<int32_t> zeroPoints = quant.zeroPoints;
        if (zeroPoints.empty()) zeroPoints.assign(scales.size(), 0);
        rknn::QuantParams params{};
        std::memcpy(params.name, attr.name, sizeof params.name);
        params.scale = scales.data();
        params.scale_len = int32_t(scales.size());
        params.zp = zeroPoints.data();
        params.zp_len = int32_t(zeroPoints.size());
        check(rt_->setQuantParams(ctx_, &params),
              std::string("rknn_matmul_set_quant_params(") + operand + ", " + std::to_string(scales.size()) +
                  " scale(s))");
    }

    rknn::TensorMem* makeMem(uint32_t bytes, const char* operand) {
        rknn::TensorMem* mem = rt_->lib->createMem(ctx_, bytes);
        if (!mem)
            failInput("rknn_create_mem(" + std::to_string(bytes) + " bytes) for " + operand +
                      " returned no buffer for " + what_);
        return mem;
    }

    void bind(size_t i) {
        if (spec_.mValues.size() > 1)
            check(rt_->setDynamicShape(ctx_, &shapes_[i]),
                  "rknn_matmul_set_dynamic_shape(M=" + std::to_string(shapes_[i].M) + ")");
        check(rt_->setIoMem(ctx_, a_, &attrs_[i].A), "rknn_matmul_set_io_mem(A)");
        check(rt_->setIoMem(ctx_, b_, &attrs_[i].B), "rknn_matmul_set_io_mem(B)");
        check(rt_->setIoMem(ctx_, c_, &attrs_[i].C), "rknn_matmul_set_io_mem(C)");
        bound_ = int(i);
    }

    std::shared_ptr<const MatmulRuntime> rt_;
    MatmulKernelSpec spec_;
    std::string what_;
    rknn::Context ctx_ = 0;
    bool created_ = false;
    rknn::MatmulInfo info_{};
    std::vector<rknn::MatmulShape> shapes_;
    std::vector<rknn::MatmulIoAttr> attrs_;
    rknn::TensorMem *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
    int bound_ = -1;
};

class RknnMatmulProvider final : public MatmulKernelProvider {
public:
    std::string name() const override { return "rknpu"; }
    bool takesSpecLayouts() const override { return true; }

    Capability supports(const MatmulKernelSpec& spec) const override {
        std::string why;
        if (!loadMatmulRuntime(why)) return Capability::no(why);
        if (int(spec.type) > 12)  // the published header ends at RKNN_FLOAT16_MM_INT4_TO_BFLOAT16
            return Capability::no(std::string(matmulTypeInfo(spec.type).name) +
                                  " is not in the rknn_matmul_api.h this plugin was checked against");
        if (spec.maxM() > INT32_MAX || spec.K > INT32_MAX || spec.N > INT32_MAX)
            return Capability::no("sizes beyond 32 bits");
        if (spec.deviceShapes.size() != spec.mValues.size())
            return Capability::no("the engine gave no operand shapes for the device");
        return Capability::yes();
    }

    std::unique_ptr<MatmulKernel> prepare(const MatmulKernelSpec& spec, const void* b) override {
        std::string why;
        auto rt = loadMatmulRuntime(why);
        if (!rt) failUnsupported(why);
        auto kernel = std::make_unique<RknnMatmulKernel>(std::move(rt), spec);
        kernel->open(b);  // on failure the kernel's destructor frees what open() made
        return kernel;
    }
};

}  // namespace

std::unique_ptr<MatmulKernelProvider> makeRknnMatmulProvider() { return std::make_unique<RknnMatmulProvider>(); }

}  // namespace npuwb::rknpu
