// Profiling a .rknn model: the per-layer pass and the timed passes over concurrent contexts (see RknnRunner.h).
#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <tuple>

#include "RknnInputs.h"
#include "RknnLibrary.h"
#include "RknnRunner.h"
#include "RknnZeroCopy.h"
#include "npuwb/AtomicFile.h"
#include "npuwb/Error.h"

namespace npuwb::rknpu {

namespace {

using Clock = std::chrono::steady_clock;

double microsBetween(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count();
}

TensorDesc describe(const rknn::TensorAttr& a) {
    TensorDesc d;
    d.name = std::string(a.name, strnlen(a.name, sizeof a.name));
    d.dataType = rknnTypeName(a.type);
    for (uint32_t i = 0; i < a.n_dims && i < rknn::kMaxDims; ++i) d.shape.push_back(std::to_string(a.dims[i]));
    return d;
}

/// Owns one context; destroys it on every path out.
class Context {
public:
    Context(const RknnLibrary& lib, std::string model) : lib_(lib), model_(std::move(model)) {}
    ~Context() {
        zeroCopy_.reset();  // its buffers go before the context
        if (live_) lib_.destroy(ctx_);
    }
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    /// rknn_init on the model bytes; returns the runtime's error code (0 on success).
    int init(std::string& blob, uint32_t flags) {
        const int rc = lib_.init(&ctx_, blob.data(), static_cast<uint32_t>(blob.size()), flags, nullptr);
        live_ = rc == rknn::kSucc;
        if (live_ && lib_.zeroCopyIo()) zeroCopy_ = std::make_unique<RknnZeroCopyIo>(lib_, ctx_, model_);
        return rc;
    }
    /// A copy sharing `from`'s weights (rknn_dup_context).
    void dupFrom(Context& from) {
        check(lib_.dupContext(&from.ctx_, &ctx_), "rknn_dup_context");
        live_ = true;
        if (lib_.zeroCopyIo()) zeroCopy_ = std::make_unique<RknnZeroCopyIo>(lib_, ctx_, model_);
    }
    void check(int rc, const std::string& call) const {
        if (rc != rknn::kSucc) failInput(model_ + ": " + call + " failed with RKNN error " + std::to_string(rc));
    }
    template <class T> int query(rknn::QueryCmd cmd, T& info) const {
        return lib_.query(ctx_, cmd, &info, sizeof info);
    }
    rknn::Context handle() const { return ctx_; }
    /// Its zero-copy buffers when the library has no rknn_inputs_set path, else null.
    const RknnZeroCopyIo* zeroCopy() const { return zeroCopy_.get(); }

private:
    const RknnLibrary& lib_;
    std::string model_;
    rknn::Context ctx_ = 0;
    bool live_ = false;
    std::unique_ptr<RknnZeroCopyIo> zeroCopy_;
};

/// The contexts of a run; copies are destroyed before the context whose weights they share.
struct ContextList {
    std::vector<std::unique_ptr<Context>> list;
    ContextList() = default;
    ContextList(const ContextList&) = delete;
    ContextList& operator=(const ContextList&) = delete;
    ~ContextList() {
        while (!list.empty()) list.pop_back();
    }
    Context& operator[](size_t i) { return *list[i]; }
};

struct OutputBuffer {
    rknn::TensorAttr attr{};
    std::vector<uint8_t> data;  // batch x attr.size
};

/// Runs batch slice `slice` on `ctx`: inputs from their slice offsets, outputs into theirs. `whileHeld` runs between
/// rknn_outputs_get and rknn_outputs_release, where the perf queries are valid. Returns the timings. On the zero-copy
/// path the inputs are copied into the context's buffers and the outputs read from them instead.
RknnSliceRun runSlice(const RknnLibrary& lib, const Context& ctx, std::vector<RknnInputBuffer>& inputs,
                      std::vector<OutputBuffer>& outputs, int slice, Clock::time_point origin,
                      const std::function<void()>& whileHeld = {}) {
    std::vector<rknn::Input> in(inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
        RknnInputBuffer& b = inputs[i];
        in[i] = rknn::Input{static_cast<uint32_t>(i), b.data.data() + size_t(slice) * b.sliceBytes, b.sliceBytes, 0,
                            b.type, b.attr.fmt};
    }
    std::vector<rknn::Output> out(outputs.size());
    for (size_t k = 0; k < outputs.size(); ++k) {
        out[k].index = static_cast<uint32_t>(k);
        out[k].is_prealloc = 1;
        out[k].buf = outputs[k].data.data() + size_t(slice) * outputs[k].attr.size;
        out[k].size = outputs[k].attr.size;
    }
    RknnSliceRun r;
    r.slice = slice;
    const RknnZeroCopyIo* zeroCopy = ctx.zeroCopy();
    const auto t0 = Clock::now();
    if (zeroCopy)
        for (size_t i = 0; i < in.size(); ++i)
            zeroCopy->writeInput(i, static_cast<const uint8_t*>(in[i].buf), in[i].type);
    else
        ctx.check(lib.inputsSet(ctx.handle(), static_cast<uint32_t>(in.size()), in.data()),
                  "rknn_inputs_set (batch slice " + std::to_string(slice) + ")");
    const auto t1 = Clock::now();
    ctx.check(lib.run(ctx.handle(), nullptr), "rknn_run (batch slice " + std::to_string(slice) + ")");
    const auto t2 = Clock::now();
    if (zeroCopy)
        for (size_t k = 0; k < out.size(); ++k) zeroCopy->readOutput(k, static_cast<uint8_t*>(out[k].buf));
    else
        ctx.check(lib.outputsGet(ctx.handle(), static_cast<uint32_t>(out.size()), out.data(), nullptr),
                  "rknn_outputs_get (batch slice " + std::to_string(slice) + ")");
    const auto t3 = Clock::now();
    rknn::PerfRun perf{};
    if (ctx.query(rknn::kQueryPerfRun, perf) == rknn::kSucc && perf.run_duration >= 0)
        r.perfRunUs = static_cast<double>(perf.run_duration);  // valid until rknn_outputs_release
    if (whileHeld) whileHeld();
    if (!zeroCopy) lib.outputsRelease(ctx.handle(), static_cast<uint32_t>(out.size()), out.data());
    r.startUs = microsBetween(origin, t0);
    r.endUs = microsBetween(origin, t3);
    r.inputsSetUs = microsBetween(t0, t1);
    r.runUs = microsBetween(t1, t2);
    r.outputsGetUs = microsBetween(t2, t3);
    return r;
}

/// The per-layer pass: its own context with perf collection runs slice 0 `warmup` + 1 times and keeps the last run's
/// perf-detail text, or why there is none.
void perLayerPass(const RknnLibrary& lib, const std::string& model, std::string& blob, NpuCoreMask mask, int warmup,
                  std::vector<RknnInputBuffer>& inputs, std::vector<OutputBuffer> outputs, RknnRunResult& result) {
    result.perLayerAsked = true;
    if (lib.mini) {
        result.noPerfDetail = std::string("no per-layer rows: ") + kMiniRuntimeLacks;
        return;
    }
    Context ctx(lib, model);
    if (const int rc = ctx.init(blob, rknn::kFlagCollectPerfMask); rc != rknn::kSucc) {
        result.noPerfDetail = "no per-layer rows: rknn_init with RKNN_FLAG_COLLECT_PERF_MASK failed with RKNN error " +
                              std::to_string(rc);
        return;
    }
    if (mask != NpuCoreMask::Auto && lib.setCoreMask)
        ctx.check(lib.setCoreMask(ctx.handle(), rknnCoreMask(mask)),
                  std::string("rknn_set_core_mask(") + coreMaskName(mask) + ") on the per-layer context");
    // Slice 0 from the same inputs as the timed passes (its outputs go to this pass's own copies), after the same
    // number of warm-up runs, so the rows are not those of a cold first run.
    for (int w = 0; w < warmup; ++w) runSlice(lib, ctx, inputs, outputs, 0, Clock::now());
    int rc = rknn::kSucc;
    rknn::PerfDetail detail{};
    runSlice(lib, ctx, inputs, outputs, 0, Clock::now(), [&] {
        rc = ctx.query(rknn::kQueryPerfDetail, detail);
        if (rc == rknn::kSucc && detail.perf_data)
            result.perfDetail.assign(detail.perf_data,
                                     strnlen(detail.perf_data, detail.data_len ? detail.data_len : size_t{1} << 26));
    });
    if (rc != rknn::kSucc)
        result.noPerfDetail = "no per-layer rows: RKNN_QUERY_PERF_DETAIL failed with RKNN error " + std::to_string(rc);
    else if (result.perfDetail.empty())
        result.noPerfDetail = "no per-layer rows: the runtime answered RKNN_QUERY_PERF_DETAIL with an empty text";
}


}  // namespace

std::string rknnRuntimeLibrary(const std::string& library) {
    std::string why;
    if (auto lib = loadRknnLibrary(library, why)) return lib->path;
    if (!library.empty()) return library;
    if (const char* env = std::getenv("NPUWB_RKNNRT_LIBRARY"); env && *env) return env;
    return "librknnrt.so";
}

std::string rknnRuntimeUnavailableReason(const std::string& library) {
    std::string why;
    return loadRknnLibrary(library, why) ? std::string() : why;
}


RknnRunResult runRknnModel(const std::string& modelPath, const ModelRunOptions& options) {
    if (options.runs < 1) failInput("--runs must be at least 1");
    if (options.warmup < 0) failInput("--warmup must not be negative");
    const int contexts = contextCount(options);
    std::string why;
    auto lib = loadRknnLibrary(options.library, why);
    if (!lib) failUnsupported(why);
    RknnRunResult result;
    result.modelPath = modelPath;
    result.library = lib->path;
    result.miniRuntime = lib->mini;
    result.warmup = options.warmup;
    result.runs = options.runs;
    result.batch = options.batch;
    result.zeroCopyIo = lib->zeroCopyIo();
    result.ioPath = lib->ioPathName();
    if (lib->mini) result.notes.push_back(kMiniRuntimeLacks);
    if (contexts > 1 && !lib->dupContext)
        failUnsupported(modelPath + ": " + std::to_string(contexts) + " contexts need rknn_dup_context, which '" +
                        lib->path + "' lacks" + (lib->mini ? std::string(" (") + kMiniRuntimeLacks + ")" : ""));
    for (int c = 0; c < contexts; ++c)
        if (contextCoreMask(options, c) != NpuCoreMask::Auto && !lib->setCoreMask)
            failUnsupported(modelPath + ": core mask '" + coreMaskName(contextCoreMask(options, c)) +
                            "' needs rknn_set_core_mask, which '" + lib->path + "' lacks" +
                            (lib->mini ? std::string(" (") + kMiniRuntimeLacks + ")" : ""));

    std::string blob = readFile(modelPath);
    if (blob.empty()) failInput(modelPath + ": the .rknn model file is empty");
    ContextList ctxs;
    ctxs.list.push_back(std::make_unique<Context>(*lib, modelPath));
    ctxs[0].check(ctxs[0].init(blob, 0), "rknn_init (is this a .rknn model for this chip and runtime version?)");
    rknn::SdkVersion version{};
    if (ctxs[0].query(rknn::kQuerySdkVersion, version) == rknn::kSucc) {
        result.apiVersion = std::string(version.api_version, strnlen(version.api_version, sizeof version.api_version));
        result.driverVersion = std::string(version.drv_version, strnlen(version.drv_version, sizeof version.drv_version));
    }
    rknn::InputOutputNum io{};
    ctxs[0].check(ctxs[0].query(rknn::kQueryInOutNum, io), "rknn_query(RKNN_QUERY_IN_OUT_NUM)");
    std::vector<RknnInputBuffer> inputs(io.n_input);
    for (uint32_t i = 0; i < io.n_input; ++i) {
        inputs[i].attr.index = i;
        ctxs[0].check(ctxs[0].query(rknn::kQueryInputAttr, inputs[i].attr),
                       "rknn_query(RKNN_QUERY_INPUT_ATTR, " + std::to_string(i) + ")");
        result.inputs.push_back(describe(inputs[i].attr));
        inputs[i].name = result.inputs.back().name;
    }
    std::vector<OutputBuffer> outputs(io.n_output);
    for (uint32_t k = 0; k < io.n_output; ++k) {
        outputs[k].attr.index = k;
        ctxs[0].check(ctxs[0].query(rknn::kQueryOutputAttr, outputs[k].attr),
                       "rknn_query(RKNN_QUERY_OUTPUT_ATTR, " + std::to_string(k) + ")");
        outputs[k].data.assign(size_t(options.batch) * outputs[k].attr.size, 0);
        result.outputs.push_back(describe(outputs[k].attr));
    }
    prepareInputs(inputs, options, modelPath);

    // The timed contexts: copies share the first one's weights; each gets its core mask.
    for (int c = 1; c < contexts; ++c) {
        ctxs.list.push_back(std::make_unique<Context>(*lib, modelPath));
        ctxs[c].dupFrom(ctxs[0]);
    }
    result.contexts.resize(contexts);
    for (int c = 0; c < contexts; ++c) {
        RknnContextInfo& info = result.contexts[c];
        info.coreMask = contextCoreMask(options, c);
        for (int j = c; j < options.batch; j += contexts) ++info.slicesPerPass;
        if (info.coreMask != NpuCoreMask::Auto)
            if (const int rc = lib->setCoreMask(ctxs[c].handle(), rknnCoreMask(info.coreMask)); rc != rknn::kSucc)
                failInput(modelPath + ": rknn_set_core_mask(context " + std::to_string(c) + ", '" +
                          coreMaskName(info.coreMask) + "') failed with RKNN error " + std::to_string(rc) +
                          ": core masks other than auto need a multi-core NPU (RK3588: cores 0-2, RK3576: cores 0-1)");
        rknn::MemSize mem{};
        if (ctxs[c].query(rknn::kQueryMemSize, mem) == rknn::kSucc) {
            info.internalBytes = mem.total_internal_size;
            if (c == 0) {
                result.haveMemSize = true;
                result.weightBytes = mem.total_weight_size;  // once: the copies share these
                result.dmaBytes = static_cast<int64_t>(mem.total_dma_allocated_size);
                result.sramTotalBytes = mem.total_sram_size;
                result.sramFreeBytes = mem.free_sram_size;
            }
        }
    }
    if (!result.haveMemSize) result.notes.push_back("no memory figures: the runtime did not answer RKNN_QUERY_MEM_SIZE");
    if (const RknnZeroCopyIo* io = ctxs[0].zeroCopy())
        result.notes.push_back("inputs and outputs through zero-copy buffers: " + std::to_string(io->bufferBytes()) +
                               " bytes per context (rknn_create_mem, sizes with stride), not in the internal memory "
                               "figure (RKNN_QUERY_MEM_SIZE excludes inputs and outputs)");

    // The per-layer pass, once the timed contexts (and their core masks) are known to be accepted.
    if (options.perLayer) perLayerPass(*lib, modelPath, blob, contextCoreMask(options, 0), options.warmup, inputs, outputs,
                                       result);
    if (!result.noPerfDetail.empty()) result.notes.push_back(result.noPerfDetail);

    // The passes: one thread per context, all starting each pass together (a pass = one batch).
    const int passes = options.warmup + options.runs;
    std::vector<std::vector<RknnSliceRun>> perContext(contexts);
    std::barrier sync(contexts);
    std::atomic<bool> failed{false};
    std::exception_ptr firstError;
    std::mutex errorMutex;
    Clock::time_point origin{};
    auto worker = [&](int c) {
        int pass = 0;
        try {
            for (; pass < passes; ++pass) {
                sync.arrive_and_wait();
                if (pass == options.warmup && c == 0) origin = Clock::now();
                sync.arrive_and_wait();  // every context sees the origin before the first timed slice
                if (failed) continue;
                for (int j = c; j < options.batch; j += contexts) {
                    RknnSliceRun run = runSlice(*lib, ctxs[c], inputs, outputs, j, origin);
                    run.context = c;
                    run.pass = pass - options.warmup;
                    if (pass >= options.warmup) perContext[c].push_back(run);
                }
            }
        } catch (...) {
            {
                std::lock_guard lock(errorMutex);
                if (!firstError) firstError = std::current_exception();
            }
            failed = true;
            // Leave the barrier (arrive at the current phase, expected no more) so no context waits for this one.
            sync.arrive_and_drop();
        }
    };
    std::vector<std::thread> threads;
    for (int c = 1; c < contexts; ++c) threads.emplace_back(worker, c);
    worker(0);
    for (auto& t : threads) t.join();
    if (firstError) std::rethrow_exception(firstError);

    for (auto& runs : perContext) result.sliceRuns.insert(result.sliceRuns.end(), runs.begin(), runs.end());
    std::sort(result.sliceRuns.begin(), result.sliceRuns.end(), [](const auto& a, const auto& b) {
        return std::tie(a.pass, a.slice) < std::tie(b.pass, b.slice);
    });
    for (int p = 0; p < options.runs; ++p) {
        double start = 0, end = 0;
        bool any = false;
        for (const auto& r : result.sliceRuns)
            if (r.pass == p) {
                start = any ? std::min(start, r.startUs) : r.startUs;
                end = any ? std::max(end, r.endUs) : r.endUs;
                any = true;
            }
        result.passWallUs.push_back(end - start);
    }
    for (const auto& in : inputs) result.inputData.push_back(in.data);
    for (const auto& out : outputs) result.outputData.push_back(out.data);
    return result;
}

}  // namespace npuwb::rknpu
