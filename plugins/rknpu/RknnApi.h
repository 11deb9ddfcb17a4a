#pragma once
// The plugin's own transcription of the parts of Rockchip's public C API header rknn_api.h that it uses. The
// runtime (librknnrt.so; librknnmrt.so on RV1106/RV1103) is loaded with dlopen on boards that have it and is never
// needed to build, so its header is not either.
//
// Source: rknn_api.h as published in airockchip/rknn_model_zoo, 3rdparty/rknpu2/include/rknn_api.h at commit
// bad6c7334531becaf90a561988519b7bec34d0ab (the RKNPU2 2.x header: it has RKNN_TENSOR_BFLOAT16, RKNN_NPU_CORE_ALL
// and RKNN_FLAG_MODEL_BUFFER_ZERO_COPY); the declarations used here, except the zero-copy ones (rknn_tensor_mem,
// rknn_create_mem, rknn_set_io_mem, rknn_destroy_mem: checked against the 2.x header only), are unchanged from the
// RKNPU2 1.5 header (rockchip-linux/rknpu2, runtime/RK3588/Linux/librknn_api/include/rknn_api.h). The numbers in
// the static_asserts below were measured by compiling that header: gcc on x86_64 (aarch64 has the same LP64 layout)
// and clang --target=armv7-linux-gnueabihf (the armhf runtimes, where rknn_context is 32 bits). C enums are
// int-sized.
#include <cstddef>
#include <cstdint>

namespace npuwb::rknn {

#ifdef __arm__
using Context = uint32_t;  // rknn_context
#else
using Context = uint64_t;
#endif

inline constexpr uint32_t kFlagCollectPerfMask = 0x00000008;  // RKNN_FLAG_COLLECT_PERF_MASK
inline constexpr int kSucc = 0;                               // RKNN_SUCC
inline constexpr int kMaxDims = 16;                           // RKNN_MAX_DIMS
inline constexpr int kMaxNameLen = 256;                       // RKNN_MAX_NAME_LEN

enum QueryCmd : int32_t {  // rknn_query_cmd
    kQueryInOutNum = 0,    // RKNN_QUERY_IN_OUT_NUM
    kQueryInputAttr = 1,   // RKNN_QUERY_INPUT_ATTR
    kQueryOutputAttr = 2,  // RKNN_QUERY_OUTPUT_ATTR
    kQueryPerfDetail = 3,  // RKNN_QUERY_PERF_DETAIL (needs the collect-perf flag; valid after rknn_outputs_get)
    kQueryPerfRun = 4,     // RKNN_QUERY_PERF_RUN (valid after rknn_outputs_get)
    kQuerySdkVersion = 5,  // RKNN_QUERY_SDK_VERSION
    kQueryMemSize = 6,     // RKNN_QUERY_MEM_SIZE
    kQueryNativeInputAttr = 8,       // RKNN_QUERY_NATIVE_INPUT_ATTR (the zero-copy buffers' layout)
    kQueryNativeOutputAttr = 9,      // RKNN_QUERY_NATIVE_OUTPUT_ATTR
    kQueryNativeNhwcOutputAttr = 11,  // RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR
};

enum TensorFormat : int32_t {  // rknn_tensor_format
    kNCHW = 0, kNHWC = 1, kNC1HWC2 = 2, kFormatUndefined = 3,
};

enum QuantType : int32_t {  // rknn_tensor_qnt_type
    kQntNone = 0, kQntDfp = 1, kQntAffine = 2,
};

enum TensorType : int32_t {  // rknn_tensor_type
    kFloat32 = 0, kFloat16 = 1, kInt8 = 2, kUInt8 = 3, kInt16 = 4, kUInt16 = 5, kInt32 = 6, kUInt32 = 7, kInt64 = 8,
    kBool = 9, kInt4 = 10, kBFloat16 = 11,
};

enum CoreMask : int32_t {  // rknn_core_mask
    kCoreAuto = 0, kCore0 = 1, kCore1 = 2, kCore2 = 4, kCore01 = 3, kCore012 = 7, kCoreAll = 0xffff,
};

struct InputOutputNum {  // rknn_input_output_num
    uint32_t n_input;
    uint32_t n_output;
};

struct TensorAttr {  // rknn_tensor_attr
    uint32_t index;
    uint32_t n_dims;
    uint32_t dims[kMaxDims];
    char name[kMaxNameLen];
    uint32_t n_elems;
    uint32_t size;
    int32_t fmt;   // rknn_tensor_format
    int32_t type;  // rknn_tensor_type
    int32_t qnt_type;  // rknn_tensor_qnt_type
    int8_t fl;
    int32_t zp;
    float scale;
    uint32_t w_stride;
    uint32_t size_with_stride;
    uint8_t pass_through;
    uint32_t h_stride;
};

struct PerfDetail {  // rknn_perf_detail
    char* perf_data;  // owned by the runtime
    uint64_t data_len;
};

struct PerfRun {  // rknn_perf_run
    int64_t run_duration;  // microseconds
};

struct SdkVersion {  // rknn_sdk_version
    char api_version[256];
    char drv_version[256];
};

struct MemSize {  // rknn_mem_size
    uint32_t total_weight_size;
    uint32_t total_internal_size;  // excludes inputs and outputs
    uint64_t total_dma_allocated_size;
    uint32_t total_sram_size;
    uint32_t free_sram_size;
    uint32_t reserved[10];
};

struct Input {  // rknn_input
    uint32_t index;
    void* buf;
    uint32_t size;
    uint8_t pass_through;
    int32_t type;  // rknn_tensor_type
    int32_t fmt;   // rknn_tensor_format
};

struct Output {  // rknn_output
    uint8_t want_float;
    uint8_t is_prealloc;
    uint32_t index;
    void* buf;
    uint32_t size;
};

struct TensorMem {  // rknn_tensor_mem: a zero-copy buffer made by rknn_create_mem, owned by the runtime
    void* virt_addr;
    uint64_t phys_addr;
    int32_t fd;
    int32_t offset;
    uint32_t size;
    uint32_t flags;
    void* priv_data;
};

// The functions, resolved with dlsym by their C names. The extend arguments (rknn_init_extend*, rknn_run_extend*,
// rknn_output_extend*) are always passed null here, so they are plain pointers.
extern "C" {
using InitFn = int (*)(Context* context, void* model, uint32_t size, uint32_t flag, void* extend);  // rknn_init
using DupContextFn = int (*)(Context* context_in, Context* context_out);                           // rknn_dup_context
using DestroyFn = int (*)(Context context);                                                        // rknn_destroy
using QueryFn = int (*)(Context context, int32_t cmd, void* info, uint32_t size);                  // rknn_query
using SetCoreMaskFn = int (*)(Context context, int32_t core_mask);                             // rknn_set_core_mask
using InputsSetFn = int (*)(Context context, uint32_t n_inputs, Input inputs[]);               // rknn_inputs_set
using RunFn = int (*)(Context context, void* extend);                                          // rknn_run
using OutputsGetFn = int (*)(Context context, uint32_t n_outputs, Output outputs[], void* extend);  // rknn_outputs_get
using OutputsReleaseFn = int (*)(Context context, uint32_t n_outputs, Output outputs[]);  // rknn_outputs_release
using CreateMemFn = TensorMem* (*)(Context context, uint32_t size);                        // rknn_create_mem
using DestroyMemFn = int (*)(Context context, TensorMem* mem);                             // rknn_destroy_mem
using SetIoMemFn = int (*)(Context context, TensorMem* mem, TensorAttr* attr);             // rknn_set_io_mem
}

// Layout checks against the published header (see the top of this file for how the numbers were measured).
static_assert(sizeof(QueryCmd) == 4 && sizeof(TensorType) == 4 && sizeof(CoreMask) == 4);
static_assert(sizeof(InputOutputNum) == 8);
static_assert(sizeof(TensorAttr) == 376);
static_assert(offsetof(TensorAttr, dims) == 8 && offsetof(TensorAttr, name) == 72);
static_assert(offsetof(TensorAttr, n_elems) == 328 && offsetof(TensorAttr, size) == 332);
static_assert(offsetof(TensorAttr, fmt) == 336 && offsetof(TensorAttr, type) == 340);
static_assert(offsetof(TensorAttr, qnt_type) == 344 && offsetof(TensorAttr, fl) == 348);
static_assert(offsetof(TensorAttr, zp) == 352 && offsetof(TensorAttr, scale) == 356);
static_assert(offsetof(TensorAttr, w_stride) == 360 && offsetof(TensorAttr, size_with_stride) == 364);
static_assert(offsetof(TensorAttr, pass_through) == 368 && offsetof(TensorAttr, h_stride) == 372);
static_assert(sizeof(PerfDetail) == 16 && offsetof(PerfDetail, data_len) == 8);
static_assert(sizeof(PerfRun) == 8);
static_assert(sizeof(SdkVersion) == 512 && offsetof(SdkVersion, drv_version) == 256);
static_assert(sizeof(MemSize) == 64);
static_assert(offsetof(MemSize, total_internal_size) == 4 && offsetof(MemSize, total_dma_allocated_size) == 8);
static_assert(offsetof(MemSize, total_sram_size) == 16 && offsetof(MemSize, free_sram_size) == 20);
static_assert(offsetof(MemSize, reserved) == 24);
// rknn_tensor_mem measured alike on x86_64, aarch64 and armv7 hard-float (phys_addr is 8-aligned on all three).
static_assert(sizeof(TensorMem) == 40 && alignof(TensorMem) == 8 && offsetof(TensorMem, phys_addr) == 8);
static_assert(offsetof(TensorMem, fd) == 16 && offsetof(TensorMem, offset) == 20 && offsetof(TensorMem, size) == 24);
static_assert(offsetof(TensorMem, flags) == 28 && offsetof(TensorMem, priv_data) == 32);
static_assert(sizeof(TensorFormat) == 4 && sizeof(QuantType) == 4);
#if defined(__LP64__)  // x86_64, aarch64
static_assert(sizeof(Context) == 8);
static_assert(sizeof(Input) == 32 && offsetof(Input, buf) == 8 && offsetof(Input, size) == 16);
static_assert(offsetof(Input, pass_through) == 20 && offsetof(Input, type) == 24 && offsetof(Input, fmt) == 28);
static_assert(sizeof(Output) == 24 && offsetof(Output, is_prealloc) == 1 && offsetof(Output, index) == 4);
static_assert(offsetof(Output, buf) == 8 && offsetof(Output, size) == 16);
#elif defined(__arm__)  // armhf (RV1106/RV1103 and 32-bit user spaces)
static_assert(sizeof(Context) == 4);
static_assert(sizeof(Input) == 24 && offsetof(Input, buf) == 4 && offsetof(Input, size) == 8);
static_assert(offsetof(Input, pass_through) == 12 && offsetof(Input, type) == 16 && offsetof(Input, fmt) == 20);
static_assert(sizeof(Output) == 16 && offsetof(Output, index) == 4);
static_assert(offsetof(Output, buf) == 8 && offsetof(Output, size) == 12);
#endif
static_assert(kCore01 == (kCore0 | kCore1) && kCore012 == (kCore01 | kCore2));

}  // namespace npuwb::rknn
