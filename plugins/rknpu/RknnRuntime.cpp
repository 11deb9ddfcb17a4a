// Loading librknnrt.so and running a model with perf collection (see RknnRunner.h).
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "RknnApi.h"
#include "RknnRunner.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"

namespace npuwb::rknpu {

namespace {

/// The runtime's entry points, resolved once per load. The handle is never closed: the runtime keeps driver
/// threads and atexit handlers that may outlive one profiling session.
struct RknnLibrary {
    rknn::InitFn init = nullptr;
    rknn::DestroyFn destroy = nullptr;
    rknn::QueryFn query = nullptr;
    rknn::InputsSetFn inputsSet = nullptr;
    rknn::RunFn run = nullptr;
    rknn::OutputsGetFn outputsGet = nullptr;
    rknn::OutputsReleaseFn outputsRelease = nullptr;
};

/// Loads the library; on failure returns the reason instead.
std::unique_ptr<RknnLibrary> loadLibrary(const std::string& path, std::string& why) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* err = dlerror();
        why = "librknnrt.so not available on this board: cannot load '" + path + "' (" + (err ? err : "unknown") +
              "); install Rockchip's RKNPU2 runtime or set NPUWB_RKNNRT_LIBRARY to its path";
        return nullptr;
    }
    auto lib = std::make_unique<RknnLibrary>();
    std::string missing;
    auto resolve = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
        if (!fn) missing += (missing.empty() ? "" : ", ") + std::string(name);
    };
    resolve(lib->init, "rknn_init");
    resolve(lib->destroy, "rknn_destroy");
    resolve(lib->query, "rknn_query");
    resolve(lib->inputsSet, "rknn_inputs_set");
    resolve(lib->run, "rknn_run");
    resolve(lib->outputsGet, "rknn_outputs_get");
    resolve(lib->outputsRelease, "rknn_outputs_release");
    if (!missing.empty()) {
        why = "librknnrt.so not usable on this board: '" + path + "' lacks " + missing;
        return nullptr;
    }
    return lib;
}

const char* tensorTypeName(int32_t type) {
    static const char* const names[] = {"float32", "float16", "int8",  "uint8", "int16", "uint16",
                                        "int32",   "uint32",  "int64", "bool",  "int4",  "bfloat16"};
    return type >= 0 && type < 12 ? names[type] : "undefined";
}

TensorDesc describe(const rknn::TensorAttr& a) {
    TensorDesc d;
    d.name = std::string(a.name, strnlen(a.name, sizeof a.name));
    d.dataType = tensorTypeName(a.type);
    for (uint32_t i = 0; i < a.n_dims && i < rknn::kMaxDims; ++i) d.shape.push_back(std::to_string(a.dims[i]));
    return d;
}

/// Owns an initialized context; destroys it on every path out.
class Session {
public:
    Session(const RknnLibrary& lib, const std::string& modelPath) : lib_(lib), model_(modelPath) {
        std::string blob = readFile(modelPath);
        if (blob.empty()) failInput(modelPath + ": the .rknn model file is empty");
        check(lib_.init(&ctx_, blob.data(), static_cast<uint32_t>(blob.size()), rknn::kFlagCollectPerfMask, nullptr),
              "rknn_init (is this a .rknn model for this chip and runtime version?)");
        live_ = true;
    }
    ~Session() {
        if (live_) lib_.destroy(ctx_);
    }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    void check(int rc, const char* call) const {
        if (rc != 0) failInput(model_ + ": " + call + " failed with RKNN error " + std::to_string(rc));
    }
    template <class T> bool query(rknn::QueryCmd cmd, T& info) const {
        return lib_.query(ctx_, cmd, &info, sizeof info) == 0;
    }
    rknn::Context ctx() const { return ctx_; }

private:
    const RknnLibrary& lib_;
    std::string model_;
    rknn::Context ctx_ = 0;
    bool live_ = false;
};

}  // namespace

std::string rknnRuntimeLibrary(const std::string& library) {
    if (!library.empty()) return library;
    if (const char* env = std::getenv("NPUWB_RKNNRT_LIBRARY"); env && *env) return env;
    return "librknnrt.so";
}

std::string rknnRuntimeUnavailableReason(const std::string& library) {
    std::string why;
    return loadLibrary(rknnRuntimeLibrary(library), why) ? std::string() : why;
}

RknnRunResult runRknnModel(const std::string& modelPath, const ModelRunOptions& options) {
    if (options.runs < 1) failInput("run-rknn: --runs must be at least 1");
    std::string why;
    auto lib = loadLibrary(rknnRuntimeLibrary(options.library), why);
    if (!lib) failUnsupported(why);
    Session session(*lib, modelPath);
    RknnRunResult result;
    result.modelPath = modelPath;
    result.warmup = options.warmup;
    rknn::SdkVersion version{};
    if (session.query(rknn::kQuerySdkVersion, version)) {
        result.apiVersion = std::string(version.api_version, strnlen(version.api_version, sizeof version.api_version));
        result.driverVersion = std::string(version.drv_version, strnlen(version.drv_version, sizeof version.drv_version));
    }
    rknn::InputOutputNum io{};
    if (!session.query(rknn::kQueryInOutNum, io)) failInput(modelPath + ": rknn_query(IN_OUT_NUM) failed");
    std::vector<rknn::Input> inputs(io.n_input);
    std::vector<std::vector<uint8_t>> buffers(io.n_input);
    for (uint32_t i = 0; i < io.n_input; ++i) {
        rknn::TensorAttr attr{};
        attr.index = i;
        if (!session.query(rknn::kQueryInputAttr, attr)) failInput(modelPath + ": rknn_query(INPUT_ATTR) failed");
        result.inputs.push_back(describe(attr));
        buffers[i].assign(attr.size, 0);  // zeros: timing does not depend on values for these graphs
        inputs[i] = rknn::Input{i, buffers[i].data(), attr.size, 0, attr.type, attr.fmt};
    }
    for (uint32_t i = 0; i < io.n_output; ++i) {
        rknn::TensorAttr attr{};
        attr.index = i;
        if (session.query(rknn::kQueryOutputAttr, attr)) result.outputs.push_back(describe(attr));
    }
    for (int r = 0; r < options.warmup + options.runs; ++r) {
        session.check(lib->inputsSet(session.ctx(), io.n_input, inputs.data()), "rknn_inputs_set");
        session.check(lib->run(session.ctx(), nullptr), "rknn_run");
        std::vector<rknn::Output> outputs(io.n_output);
        for (uint32_t i = 0; i < io.n_output; ++i) outputs[i].index = i;
        session.check(lib->outputsGet(session.ctx(), io.n_output, outputs.data(), nullptr), "rknn_outputs_get");
        // Both perf queries are valid only between rknn_outputs_get and rknn_outputs_release.
        rknn::PerfRun perf{};
        const bool timed = session.query(rknn::kQueryPerfRun, perf);
        if (r >= options.warmup && timed && perf.run_duration >= 0)
            result.runDurationsUs.push_back(static_cast<double>(perf.run_duration));
        rknn::PerfDetail detail{};
        if (r + 1 == options.warmup + options.runs && session.query(rknn::kQueryPerfDetail, detail) && detail.perf_data)
            result.perfDetail.assign(detail.perf_data, strnlen(detail.perf_data, detail.data_len ? detail.data_len : 1 << 26));
        lib->outputsRelease(session.ctx(), io.n_output, outputs.data());
    }
    rknn::MemSize mem{};
    if (session.query(rknn::kQueryMemSize, mem)) {
        result.haveMemSize = true;
        result.weightBytes = mem.total_weight_size;
        result.internalBytes = mem.total_internal_size;
        result.dmaBytes = static_cast<int64_t>(mem.total_dma_allocated_size);
        result.sramTotalBytes = mem.total_sram_size;
        result.sramFreeBytes = mem.free_sram_size;
    }
    return result;
}

}  // namespace npuwb::rknpu
