#pragma once
// The vendor C API that the STAND-IN librknnrt.so implements (tests only, never shipped): the types, constants and
// functions of Rockchip's public rknn_api.h that the stand-in answers, transcribed by hand from
//   repository airockchip/rknn_model_zoo, path 3rdparty/rknpu2/include/rknn_api.h,
//   commit bad6c7334531becaf90a561988519b7bec34d0ab (the RKNPU2 runtime header of the 2.x series: it has
//   RKNN_FLAG_MODEL_BUFFER_ZERO_COPY and RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR = 17, and the zero-copy API
//   rknn_create_mem / rknn_set_io_mem / rknn_destroy_mem with rknn_tensor_mem).
// Only what the stand-in uses is here; names and values are the vendor's so that code written against rknn_api.h
// reads the same. The rknpu plugin never includes this header (it has its own declarations), and this header
// includes nothing of the plugin's: both sides are checked against the published numbers independently.
//
// ABI checks at the end: every size, alignment and member offset below was measured by compiling the published
// header with gcc for x86_64 and checked with aarch64-linux-gnu-gcc (both LP64, same numbers); enum values are the
// published ones.
#include <stdint.h>

#ifdef __cplusplus
#include <cstddef>
extern "C" {
#else
#include <stddef.h>
#endif

/* rknn_init flags */
#define RKNN_FLAG_PRIOR_HIGH 0x00000000
#define RKNN_FLAG_PRIOR_MEDIUM 0x00000001
#define RKNN_FLAG_PRIOR_LOW 0x00000002
#define RKNN_FLAG_ASYNC_MASK 0x00000004
#define RKNN_FLAG_COLLECT_PERF_MASK 0x00000008
#define RKNN_FLAG_MEM_ALLOC_OUTSIDE 0x00000010
#define RKNN_FLAG_SHARE_WEIGHT_MEM 0x00000020
#define RKNN_FLAG_COLLECT_MODEL_INFO_ONLY 0x00000100

/* error codes */
#define RKNN_SUCC 0
#define RKNN_ERR_FAIL -1
#define RKNN_ERR_TIMEOUT -2
#define RKNN_ERR_DEVICE_UNAVAILABLE -3
#define RKNN_ERR_MALLOC_FAIL -4
#define RKNN_ERR_PARAM_INVALID -5
#define RKNN_ERR_MODEL_INVALID -6
#define RKNN_ERR_CTX_INVALID -7
#define RKNN_ERR_INPUT_INVALID -8
#define RKNN_ERR_OUTPUT_INVALID -9
#define RKNN_ERR_DEVICE_UNMATCH -10
#define RKNN_ERR_TARGET_PLATFORM_UNMATCH -13

#define RKNN_MAX_DIMS 16
#define RKNN_MAX_NAME_LEN 256

#ifdef __arm__
typedef uint32_t rknn_context;
#else
typedef uint64_t rknn_context;
#endif

typedef enum _rknn_query_cmd {
    RKNN_QUERY_IN_OUT_NUM = 0,
    RKNN_QUERY_INPUT_ATTR = 1,
    RKNN_QUERY_OUTPUT_ATTR = 2,
    RKNN_QUERY_PERF_DETAIL = 3,
    RKNN_QUERY_PERF_RUN = 4,
    RKNN_QUERY_SDK_VERSION = 5,
    RKNN_QUERY_MEM_SIZE = 6,
    RKNN_QUERY_CUSTOM_STRING = 7,
    RKNN_QUERY_NATIVE_INPUT_ATTR = 8,
    RKNN_QUERY_NATIVE_OUTPUT_ATTR = 9,
    RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR = 10,
    RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR = 11,
    RKNN_QUERY_DEVICE_MEM_INFO = 12,
    RKNN_QUERY_INPUT_DYNAMIC_RANGE = 13,
    RKNN_QUERY_CURRENT_INPUT_ATTR = 14,
    RKNN_QUERY_CURRENT_OUTPUT_ATTR = 15,
    RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR = 16,
    RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR = 17,
    RKNN_QUERY_CMD_MAX
} rknn_query_cmd;

typedef enum _rknn_tensor_type {
    RKNN_TENSOR_FLOAT32 = 0,
    RKNN_TENSOR_FLOAT16,
    RKNN_TENSOR_INT8,
    RKNN_TENSOR_UINT8,
    RKNN_TENSOR_INT16,
    RKNN_TENSOR_UINT16,
    RKNN_TENSOR_INT32,
    RKNN_TENSOR_UINT32,
    RKNN_TENSOR_INT64,
    RKNN_TENSOR_BOOL,
    RKNN_TENSOR_INT4,
    RKNN_TENSOR_BFLOAT16,
    RKNN_TENSOR_TYPE_MAX
} rknn_tensor_type;

typedef enum _rknn_tensor_qnt_type {
    RKNN_TENSOR_QNT_NONE = 0,
    RKNN_TENSOR_QNT_DFP,
    RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC,
    RKNN_TENSOR_QNT_MAX
} rknn_tensor_qnt_type;

typedef enum _rknn_tensor_format {
    RKNN_TENSOR_NCHW = 0,
    RKNN_TENSOR_NHWC,
    RKNN_TENSOR_NC1HWC2,
    RKNN_TENSOR_UNDEFINED,
    RKNN_TENSOR_FORMAT_MAX
} rknn_tensor_format;

typedef enum _rknn_core_mask {
    RKNN_NPU_CORE_AUTO = 0,
    RKNN_NPU_CORE_0 = 1,
    RKNN_NPU_CORE_1 = 2,
    RKNN_NPU_CORE_2 = 4,
    RKNN_NPU_CORE_0_1 = RKNN_NPU_CORE_0 | RKNN_NPU_CORE_1,
    RKNN_NPU_CORE_0_1_2 = RKNN_NPU_CORE_0_1 | RKNN_NPU_CORE_2,
    RKNN_NPU_CORE_ALL = 0xffff,
    RKNN_NPU_CORE_UNDEFINED,
} rknn_core_mask;

typedef struct _rknn_input_output_num {
    uint32_t n_input;
    uint32_t n_output;
} rknn_input_output_num;

typedef struct _rknn_tensor_attr {
    uint32_t index;  /* set by the caller before rknn_query */
    uint32_t n_dims;
    uint32_t dims[RKNN_MAX_DIMS];
    char name[RKNN_MAX_NAME_LEN];
    uint32_t n_elems;
    uint32_t size;  /* bytes */
    rknn_tensor_format fmt;
    rknn_tensor_type type;
    rknn_tensor_qnt_type qnt_type;
    int8_t fl;
    int32_t zp;
    float scale;
    uint32_t w_stride;
    uint32_t size_with_stride;
    uint8_t pass_through;
    uint32_t h_stride;
} rknn_tensor_attr;

typedef struct _rknn_perf_detail {
    char* perf_data;  /* owned by the runtime */
    uint64_t data_len;
} rknn_perf_detail;

typedef struct _rknn_perf_run {
    int64_t run_duration;  /* microseconds */
} rknn_perf_run;

typedef struct _rknn_sdk_version {
    char api_version[256];
    char drv_version[256];
} rknn_sdk_version;

typedef struct _rknn_mem_size {
    uint32_t total_weight_size;
    uint32_t total_internal_size;  /* without inputs and outputs */
    uint64_t total_dma_allocated_size;
    uint32_t total_sram_size;
    uint32_t free_sram_size;
    uint32_t reserved[10];
} rknn_mem_size;

typedef enum _rknn_tensor_mem_flags {
    RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE = 1,
    RKNN_TENSOR_MEMORY_FLAGS_FROM_FD = 2,
    RKNN_TENSOR_MEMORY_FLAGS_FROM_PHYS = 3,
    RKNN_TENSOR_MEMORY_FLAGS_UNKNOWN
} rknn_tensor_mem_flags;

typedef struct _rknn_tensor_memory {
    void* virt_addr;
    uint64_t phys_addr;
    int32_t fd;
    int32_t offset;
    uint32_t size;
    uint32_t flags;
    void* priv_data;
} rknn_tensor_mem;

typedef struct _rknn_input {
    uint32_t index;
    void* buf;
    uint32_t size;
    uint8_t pass_through;
    rknn_tensor_type type;
    rknn_tensor_format fmt;
} rknn_input;

typedef struct _rknn_output {
    uint8_t want_float;
    uint8_t is_prealloc;
    uint32_t index;
    void* buf;
    uint32_t size;
} rknn_output;

typedef struct _rknn_init_extend {
    rknn_context ctx;
    int32_t real_model_offset;
    uint32_t real_model_size;
    int32_t model_buffer_fd;
    uint32_t model_buffer_flags;
    uint8_t reserved[112];
} rknn_init_extend;

typedef struct _rknn_run_extend {
    uint64_t frame_id;
    int32_t non_block;
    int32_t timeout_ms;
    int32_t fence_fd;
} rknn_run_extend;

typedef struct _rknn_output_extend {
    uint64_t frame_id;
} rknn_output_extend;

int rknn_init(rknn_context* context, void* model, uint32_t size, uint32_t flag, rknn_init_extend* extend);
int rknn_dup_context(rknn_context* context_in, rknn_context* context_out);
int rknn_destroy(rknn_context context);
int rknn_query(rknn_context context, rknn_query_cmd cmd, void* info, uint32_t size);
int rknn_inputs_set(rknn_context context, uint32_t n_inputs, rknn_input inputs[]);
int rknn_set_batch_core_num(rknn_context context, int core_num);
int rknn_set_core_mask(rknn_context context, rknn_core_mask core_mask);
int rknn_run(rknn_context context, rknn_run_extend* extend);
int rknn_outputs_get(rknn_context context, uint32_t n_outputs, rknn_output outputs[], rknn_output_extend* extend);
int rknn_outputs_release(rknn_context context, uint32_t n_outputs, rknn_output outputs[]);
rknn_tensor_mem* rknn_create_mem(rknn_context ctx, uint32_t size);
int rknn_destroy_mem(rknn_context ctx, rknn_tensor_mem* mem);
int rknn_set_io_mem(rknn_context ctx, rknn_tensor_mem* mem, rknn_tensor_attr* attr);

/* Not in rknn_api.h: the stand-in's test-only counter of the model weight bytes it has loaded since the library was
   loaded (rknn_init adds the model's initializer bytes; rknn_dup_context adds nothing because the copy shares them). */
uint64_t npuwb_standin_weight_bytes_allocated(void);
/* Not in rknn_api.h: the stand-in's test-only count of buffers made by rknn_create_mem and not yet destroyed. */
uint64_t npuwb_standin_live_mems(void);

#ifdef __cplusplus
}  // extern "C"

// ABI checks against the published header (source above). Layouts are the LP64 ones (x86_64 and aarch64 measured
// alike); 32-bit ARM has a 4-byte rknn_context and pointers, so the layout checks apply to LP64 builds only.
static_assert(RKNN_QUERY_IN_OUT_NUM == 0 && RKNN_QUERY_INPUT_ATTR == 1 && RKNN_QUERY_OUTPUT_ATTR == 2 &&
              RKNN_QUERY_PERF_DETAIL == 3 && RKNN_QUERY_PERF_RUN == 4 && RKNN_QUERY_SDK_VERSION == 5 &&
              RKNN_QUERY_MEM_SIZE == 6 && RKNN_QUERY_CUSTOM_STRING == 7 && RKNN_QUERY_NATIVE_INPUT_ATTR == 8 &&
              RKNN_QUERY_NATIVE_OUTPUT_ATTR == 9 && RKNN_QUERY_NATIVE_NHWC_INPUT_ATTR == 10 &&
              RKNN_QUERY_NATIVE_NHWC_OUTPUT_ATTR == 11 && RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR == 17 &&
              RKNN_QUERY_CMD_MAX == 18);
static_assert(RKNN_TENSOR_FLOAT32 == 0 && RKNN_TENSOR_FLOAT16 == 1 && RKNN_TENSOR_INT8 == 2 && RKNN_TENSOR_UINT8 == 3 &&
              RKNN_TENSOR_INT16 == 4 && RKNN_TENSOR_UINT16 == 5 && RKNN_TENSOR_INT32 == 6 &&
              RKNN_TENSOR_UINT32 == 7 && RKNN_TENSOR_INT64 == 8 && RKNN_TENSOR_BOOL == 9 && RKNN_TENSOR_INT4 == 10 &&
              RKNN_TENSOR_BFLOAT16 == 11 && RKNN_TENSOR_TYPE_MAX == 12);
static_assert(RKNN_TENSOR_QNT_NONE == 0 && RKNN_TENSOR_QNT_DFP == 1 && RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC == 2);
static_assert(RKNN_TENSOR_NCHW == 0 && RKNN_TENSOR_NHWC == 1 && RKNN_TENSOR_NC1HWC2 == 2 &&
              RKNN_TENSOR_UNDEFINED == 3);
static_assert(RKNN_NPU_CORE_AUTO == 0 && RKNN_NPU_CORE_0 == 1 && RKNN_NPU_CORE_1 == 2 && RKNN_NPU_CORE_2 == 4 &&
              RKNN_NPU_CORE_0_1 == 3 && RKNN_NPU_CORE_0_1_2 == 7 && RKNN_NPU_CORE_ALL == 0xffff &&
              RKNN_NPU_CORE_UNDEFINED == 0x10000);
static_assert(RKNN_FLAG_COLLECT_PERF_MASK == 0x8 && RKNN_FLAG_ASYNC_MASK == 0x4 && RKNN_FLAG_SHARE_WEIGHT_MEM == 0x20 &&
              RKNN_FLAG_COLLECT_MODEL_INFO_ONLY == 0x100);
static_assert(RKNN_SUCC == 0 && RKNN_ERR_FAIL == -1 && RKNN_ERR_PARAM_INVALID == -5 && RKNN_ERR_MODEL_INVALID == -6 &&
              RKNN_ERR_CTX_INVALID == -7 && RKNN_ERR_INPUT_INVALID == -8 && RKNN_ERR_OUTPUT_INVALID == -9 &&
              RKNN_ERR_DEVICE_UNMATCH == -10 && RKNN_ERR_TARGET_PLATFORM_UNMATCH == -13);
static_assert(RKNN_MAX_DIMS == 16 && RKNN_MAX_NAME_LEN == 256);
static_assert(RKNN_TENSOR_MEMORY_FLAGS_ALLOC_INSIDE == 1 && RKNN_TENSOR_MEMORY_FLAGS_FROM_FD == 2 &&
              RKNN_TENSOR_MEMORY_FLAGS_FROM_PHYS == 3);

#if defined(__LP64__)
#define NPUWB_STANDIN_ABI(T, SIZE, ALIGN) static_assert(sizeof(T) == (SIZE) && alignof(T) == (ALIGN), #T " layout")
#define NPUWB_STANDIN_AT(T, M, OFFSET) static_assert(offsetof(T, M) == (OFFSET), #T "::" #M " offset")
NPUWB_STANDIN_ABI(rknn_context, 8, 8);
NPUWB_STANDIN_ABI(rknn_query_cmd, 4, 4);
NPUWB_STANDIN_ABI(rknn_tensor_type, 4, 4);
NPUWB_STANDIN_ABI(rknn_tensor_format, 4, 4);
NPUWB_STANDIN_ABI(rknn_core_mask, 4, 4);
NPUWB_STANDIN_ABI(rknn_input_output_num, 8, 4);
NPUWB_STANDIN_AT(rknn_input_output_num, n_input, 0);
NPUWB_STANDIN_AT(rknn_input_output_num, n_output, 4);
NPUWB_STANDIN_ABI(rknn_tensor_attr, 376, 4);
NPUWB_STANDIN_AT(rknn_tensor_attr, index, 0);
NPUWB_STANDIN_AT(rknn_tensor_attr, n_dims, 4);
NPUWB_STANDIN_AT(rknn_tensor_attr, dims, 8);
NPUWB_STANDIN_AT(rknn_tensor_attr, name, 72);
NPUWB_STANDIN_AT(rknn_tensor_attr, n_elems, 328);
NPUWB_STANDIN_AT(rknn_tensor_attr, size, 332);
NPUWB_STANDIN_AT(rknn_tensor_attr, fmt, 336);
NPUWB_STANDIN_AT(rknn_tensor_attr, type, 340);
NPUWB_STANDIN_AT(rknn_tensor_attr, qnt_type, 344);
NPUWB_STANDIN_AT(rknn_tensor_attr, fl, 348);
NPUWB_STANDIN_AT(rknn_tensor_attr, zp, 352);
NPUWB_STANDIN_AT(rknn_tensor_attr, scale, 356);
NPUWB_STANDIN_AT(rknn_tensor_attr, w_stride, 360);
NPUWB_STANDIN_AT(rknn_tensor_attr, size_with_stride, 364);
NPUWB_STANDIN_AT(rknn_tensor_attr, pass_through, 368);
NPUWB_STANDIN_AT(rknn_tensor_attr, h_stride, 372);
NPUWB_STANDIN_ABI(rknn_perf_detail, 16, 8);
NPUWB_STANDIN_AT(rknn_perf_detail, perf_data, 0);
NPUWB_STANDIN_AT(rknn_perf_detail, data_len, 8);
NPUWB_STANDIN_ABI(rknn_perf_run, 8, 8);
NPUWB_STANDIN_AT(rknn_perf_run, run_duration, 0);
NPUWB_STANDIN_ABI(rknn_sdk_version, 512, 1);
NPUWB_STANDIN_AT(rknn_sdk_version, api_version, 0);
NPUWB_STANDIN_AT(rknn_sdk_version, drv_version, 256);
NPUWB_STANDIN_ABI(rknn_mem_size, 64, 8);
NPUWB_STANDIN_AT(rknn_mem_size, total_weight_size, 0);
NPUWB_STANDIN_AT(rknn_mem_size, total_internal_size, 4);
NPUWB_STANDIN_AT(rknn_mem_size, total_dma_allocated_size, 8);
NPUWB_STANDIN_AT(rknn_mem_size, total_sram_size, 16);
NPUWB_STANDIN_AT(rknn_mem_size, free_sram_size, 20);
NPUWB_STANDIN_AT(rknn_mem_size, reserved, 24);
NPUWB_STANDIN_ABI(rknn_input, 32, 8);
NPUWB_STANDIN_AT(rknn_input, index, 0);
NPUWB_STANDIN_AT(rknn_input, buf, 8);
NPUWB_STANDIN_AT(rknn_input, size, 16);
NPUWB_STANDIN_AT(rknn_input, pass_through, 20);
NPUWB_STANDIN_AT(rknn_input, type, 24);
NPUWB_STANDIN_AT(rknn_input, fmt, 28);
NPUWB_STANDIN_ABI(rknn_output, 24, 8);
NPUWB_STANDIN_AT(rknn_output, want_float, 0);
NPUWB_STANDIN_AT(rknn_output, is_prealloc, 1);
NPUWB_STANDIN_AT(rknn_output, index, 4);
NPUWB_STANDIN_AT(rknn_output, buf, 8);
NPUWB_STANDIN_AT(rknn_output, size, 16);
NPUWB_STANDIN_ABI(rknn_init_extend, 136, 8);
NPUWB_STANDIN_AT(rknn_init_extend, ctx, 0);
NPUWB_STANDIN_AT(rknn_init_extend, real_model_offset, 8);
NPUWB_STANDIN_AT(rknn_init_extend, real_model_size, 12);
NPUWB_STANDIN_AT(rknn_init_extend, model_buffer_fd, 16);
NPUWB_STANDIN_AT(rknn_init_extend, model_buffer_flags, 20);
NPUWB_STANDIN_AT(rknn_init_extend, reserved, 24);
NPUWB_STANDIN_ABI(rknn_run_extend, 24, 8);
NPUWB_STANDIN_AT(rknn_run_extend, frame_id, 0);
NPUWB_STANDIN_AT(rknn_run_extend, non_block, 8);
NPUWB_STANDIN_AT(rknn_run_extend, timeout_ms, 12);
NPUWB_STANDIN_AT(rknn_run_extend, fence_fd, 16);
NPUWB_STANDIN_ABI(rknn_output_extend, 8, 8);
NPUWB_STANDIN_AT(rknn_output_extend, frame_id, 0);
NPUWB_STANDIN_ABI(rknn_tensor_mem, 40, 8);
NPUWB_STANDIN_AT(rknn_tensor_mem, virt_addr, 0);
NPUWB_STANDIN_AT(rknn_tensor_mem, phys_addr, 8);
NPUWB_STANDIN_AT(rknn_tensor_mem, fd, 16);
NPUWB_STANDIN_AT(rknn_tensor_mem, offset, 20);
NPUWB_STANDIN_AT(rknn_tensor_mem, size, 24);
NPUWB_STANDIN_AT(rknn_tensor_mem, flags, 28);
NPUWB_STANDIN_AT(rknn_tensor_mem, priv_data, 32);
#undef NPUWB_STANDIN_ABI
#undef NPUWB_STANDIN_AT
#endif  // __LP64__
#endif  // __cplusplus
