#pragma once
// The few declarations of Rockchip's rknn_api.h (RKNPU2 runtime, librknnrt.so) this runner uses, written out here
// because the runtime is loaded with dlopen on boards that have it and is never needed to build. Values and layouts
// follow rknn_api.h of RKNPU2 1.5 - 2.x; C enums are int-sized.
#include <cstdint>

namespace npuwb::rknn {

#ifdef __arm__
using Context = uint32_t;
#else
using Context = uint64_t;
#endif

inline constexpr uint32_t kFlagCollectPerfMask = 0x00000008;  // RKNN_FLAG_COLLECT_PERF_MASK
inline constexpr int kMaxDims = 16;
inline constexpr int kMaxNameLen = 256;

enum QueryCmd : int32_t {
    kQueryInOutNum = 0,    // RKNN_QUERY_IN_OUT_NUM
    kQueryInputAttr = 1,   // RKNN_QUERY_INPUT_ATTR
    kQueryOutputAttr = 2,  // RKNN_QUERY_OUTPUT_ATTR
    kQueryPerfDetail = 3,  // RKNN_QUERY_PERF_DETAIL (valid after rknn_outputs_get)
    kQueryPerfRun = 4,     // RKNN_QUERY_PERF_RUN (valid after rknn_outputs_get)
    kQuerySdkVersion = 5,  // RKNN_QUERY_SDK_VERSION
    kQueryMemSize = 6,     // RKNN_QUERY_MEM_SIZE
};

struct InputOutputNum {
    uint32_t n_input;
    uint32_t n_output;
};

struct TensorAttr {
    uint32_t index;
    uint32_t n_dims;
    uint32_t dims[kMaxDims];
    char name[kMaxNameLen];
    uint32_t n_elems;
    uint32_t size;
    int32_t fmt;   // rknn_tensor_format: NCHW 0, NHWC 1, NC1HWC2 2, UNDEFINED 3
    int32_t type;  // rknn_tensor_type: FLOAT32 0, FLOAT16 1, INT8 2, UINT8 3, INT16 4, ...
    int32_t qnt_type;
    int8_t fl;
    int32_t zp;
    float scale;
    uint32_t w_stride;
    uint32_t size_with_stride;
    uint8_t pass_through;
    uint32_t h_stride;
};

struct PerfDetail {
    char* perf_data;  // owned by the runtime
    uint64_t data_len;
};

struct PerfRun {
    int64_t run_duration;  // microseconds
};

struct SdkVersion {
    char api_version[256];
    char drv_version[256];
};

struct MemSize {
    uint32_t total_weight_size;
    uint32_t total_internal_size;
    uint64_t total_dma_allocated_size;
    uint32_t total_sram_size;
    uint32_t free_sram_size;
    uint32_t reserved[10];
};

struct Input {
    uint32_t index;
    void* buf;
    uint32_t size;
    uint8_t pass_through;
    int32_t type;
    int32_t fmt;
};

struct Output {
    uint8_t want_float;
    uint8_t is_prealloc;
    uint32_t index;
    void* buf;
    uint32_t size;
};

extern "C" {
using InitFn = int (*)(Context* context, void* model, uint32_t size, uint32_t flag, void* extend);
using DestroyFn = int (*)(Context context);
using QueryFn = int (*)(Context context, int32_t cmd, void* info, uint32_t size);
using InputsSetFn = int (*)(Context context, uint32_t n_inputs, Input inputs[]);
using RunFn = int (*)(Context context, void* extend);
using OutputsGetFn = int (*)(Context context, uint32_t n_outputs, Output outputs[], void* extend);
using OutputsReleaseFn = int (*)(Context context, uint32_t n_outputs, Output outputs[]);
}

}  // namespace npuwb::rknn
