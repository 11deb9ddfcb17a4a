// A test double of Rockchip's librknnrt.so: the C functions the rknpu runner loads with dlopen, answering with a
// recorded perf-detail text (a real published log from tests/data/rknn-logs, path in $FAKE_RKNNRT_PERF_DETAIL) and
// fixed perf-run / memory figures. It exercises the dlopen, query and mapping code; it is not board evidence.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "RknnApi.h"

namespace {
using namespace npuwb::rknn;
std::string g_detail;
int g_runs = 0;
bool g_inited = false;
bool g_outputsHeld = false;

extern "C" {
__attribute__((visibility("default"))) int rknn_init(Context* ctx, void* model, uint32_t size, uint32_t flag, void*) {
    if (!ctx || !model || size == 0) return -5;        // RKNN_ERR_PARAM_INVALID
    if (std::memcmp(model, "RKNN", 4) != 0) return -6;  // RKNN_ERR_MODEL_INVALID
    if (!(flag & kFlagCollectPerfMask)) return -5;      // the runner must ask for perf collection
    const char* path = std::getenv("FAKE_RKNNRT_PERF_DETAIL");
    if (!path) return -1;
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    g_detail = ss.str();
    *ctx = 42;
    g_inited = true;
    g_runs = 0;
    return 0;
}
__attribute__((visibility("default"))) int rknn_destroy(Context ctx) {
    g_inited = false;
    return ctx == 42 ? 0 : -7;
}
__attribute__((visibility("default"))) int rknn_query(Context ctx, int32_t cmd, void* info, uint32_t size) {
    if (ctx != 42 || !g_inited) return -7;
    switch (cmd) {
    case kQueryInOutNum: {
        if (size != sizeof(InputOutputNum)) return -5;
        *static_cast<InputOutputNum*>(info) = {1, 1};
        return 0;
    }
    case kQueryInputAttr:
    case kQueryOutputAttr: {
        if (size != sizeof(TensorAttr)) return -5;
        auto* a = static_cast<TensorAttr*>(info);
        if (a->index != 0) return -5;
        const bool in = cmd == kQueryInputAttr;
        a->n_dims = 4;
        const uint32_t dims[4] = {1, in ? 1088u : 64u, in ? 1920u : 240u, in ? 3u : 136u};
        std::memcpy(a->dims, dims, sizeof dims);
        std::strcpy(a->name, in ? "images" : "322");
        a->n_elems = dims[0] * dims[1] * dims[2] * dims[3];
        a->type = in ? 3 : 2;  // uint8 in, int8 out
        a->fmt = 1;            // NHWC
        a->size = a->n_elems;
        return 0;
    }
    case kQueryPerfDetail: {
        if (size != sizeof(PerfDetail) || !g_outputsHeld) return -5;  // valid after rknn_outputs_get
        auto* d = static_cast<PerfDetail*>(info);
        d->perf_data = g_detail.data();
        d->data_len = g_detail.size();
        return 0;
    }
    case kQueryPerfRun: {
        if (size != sizeof(PerfRun) || !g_outputsHeld) return -5;  // valid after rknn_outputs_get
        static_cast<PerfRun*>(info)->run_duration = 96000 + 100 * g_runs;
        return 0;
    }
    case kQuerySdkVersion: {
        auto* v = static_cast<SdkVersion*>(info);
        std::strcpy(v->api_version, "fake 0.0.0 (test double)");
        std::strcpy(v->drv_version, "0.0.0");
        return 0;
    }
    case kQueryMemSize: {
        if (size != sizeof(MemSize)) return -5;
        auto* m = static_cast<MemSize*>(info);
        *m = MemSize{};
        m->total_weight_size = 3457024;
        m->total_internal_size = 12582912;
        m->total_dma_allocated_size = 22020096;
        return 0;
    }
    default: return -5;
    }
}
__attribute__((visibility("default"))) int rknn_inputs_set(Context ctx, uint32_t n, Input inputs[]) {
    if (ctx != 42 || n != 1 || !inputs[0].buf || inputs[0].size != 1088u * 1920u * 3u) return -8;
    return 0;
}
__attribute__((visibility("default"))) int rknn_run(Context ctx, void*) {
    if (ctx != 42) return -7;
    ++g_runs;
    return 0;
}
__attribute__((visibility("default"))) int rknn_outputs_get(Context ctx, uint32_t n, Output outputs[], void*) {
    if (ctx != 42 || n != 1 || g_runs == 0) return -9;
    static int8_t buffer[64 * 240 * 136];
    outputs[0].buf = buffer;
    outputs[0].size = sizeof buffer;
    g_outputsHeld = true;
    return 0;
}
__attribute__((visibility("default"))) int rknn_outputs_release(Context ctx, uint32_t, Output[]) {
    g_outputsHeld = false;
    return ctx == 42 ? 0 : -7;
}
}
}  // namespace
