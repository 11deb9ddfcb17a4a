#pragma once
// The vendor matmul C API that the STAND-IN librknnrt.so implements (tests only, never shipped): the types and
// functions of Rockchip's public rknn_matmul_api.h that the stand-in answers, transcribed by hand from
//   repository airockchip/rknn_model_zoo, path 3rdparty/rknpu2/include/rknn_matmul_api.h,
//   commit c918ec6579494947e4e3b13816ae427d4270085f.
// Names and values are the vendor's. The rknpu plugin never includes this header (RknnMatmulApi.h is its own), and
// this header includes nothing of the plugin's: both are checked against the published numbers independently.
//
// ABI checks at the end: sizes and member offsets measured by compiling the published declarations with gcc for
// x86_64, clang for aarch64-linux-gnu (LP64, same numbers) and clang for armv7-linux-gnueabihf (the 32-bit numbers
// of rknn_quant_params; the other structs hold no pointers and are the same there).
#include "standin_rknn_api.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef rknn_context rknn_matmul_ctx;

typedef enum _rknn_matmul_type {
    RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 = 1,
    RKNN_INT8_MM_INT8_TO_INT32 = 2,
    RKNN_INT8_MM_INT8_TO_INT8 = 3,
    RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16 = 4,
    RKNN_FLOAT16_MM_INT8_TO_FLOAT32 = 5,
    RKNN_FLOAT16_MM_INT8_TO_FLOAT16 = 6,
    RKNN_FLOAT16_MM_INT4_TO_FLOAT32 = 7,
    RKNN_FLOAT16_MM_INT4_TO_FLOAT16 = 8,
    RKNN_INT8_MM_INT8_TO_FLOAT32 = 9,
    RKNN_INT4_MM_INT4_TO_INT16 = 10,
    RKNN_INT8_MM_INT4_TO_INT32 = 11,
    RKNN_FLOAT16_MM_INT4_TO_BFLOAT16 = 12,
} rknn_matmul_type;

typedef enum { RKNN_MM_LAYOUT_NORM = 0, RKNN_MM_LAYOUT_NATIVE = 1, RKNN_MM_LAYOUT_TP_NORM = 2 } rknn_matmul_layout;

typedef struct _rknn_quant_params {
    char name[RKNN_MAX_NAME_LEN];  /* the io_attr name of A, B or C */
    float* scale;
    int32_t scale_len;
    int32_t* zp;
    int32_t zp_len;
} rknn_quant_params;

typedef struct _rknn_matmul_tensor_attr {
    char name[RKNN_MAX_NAME_LEN];
    uint32_t n_dims;
    uint32_t dims[RKNN_MAX_DIMS];
    uint32_t size;
    rknn_tensor_type type;
} rknn_matmul_tensor_attr;

typedef struct _rknn_matmul_io_attr {
    rknn_matmul_tensor_attr A;
    rknn_matmul_tensor_attr B;
    rknn_matmul_tensor_attr C;
} rknn_matmul_io_attr;

typedef struct _rknn_matmul_shape {
    int32_t M;
    int32_t K;
    int32_t N;
} rknn_matmul_shape;

typedef struct rknn_matmul_info_t {
    int32_t M;
    int32_t K;
    int32_t N;
    rknn_matmul_type type;
    int16_t B_layout;       /* rknn_matmul_layout */
    int16_t B_quant_type;   /* 0 per layer, 1 per channel, 2 per group */
    int16_t AC_layout;      /* rknn_matmul_layout: norm or native */
    int16_t AC_quant_type;  /* per layer only */
    int32_t iommu_domain_id;
    int16_t group_size;
    int8_t reserved[34];
} rknn_matmul_info;

int rknn_matmul_create(rknn_matmul_ctx* ctx, rknn_matmul_info* info, rknn_matmul_io_attr* io_attr);
int rknn_matmul_create_dynamic_shape(rknn_matmul_ctx* ctx, rknn_matmul_info* info, int shape_num,
                                     rknn_matmul_shape dynamic_shapes[], rknn_matmul_io_attr io_attrs[]);
int rknn_matmul_set_io_mem(rknn_matmul_ctx ctx, rknn_tensor_mem* mem, rknn_matmul_tensor_attr* attr);
int rknn_matmul_set_core_mask(rknn_matmul_ctx context, rknn_core_mask core_mask);
int rknn_matmul_set_quant_params(rknn_matmul_ctx context, rknn_quant_params* params);
int rknn_matmul_set_dynamic_shape(rknn_matmul_ctx ctx, rknn_matmul_shape* shape);
int rknn_matmul_run(rknn_matmul_ctx ctx);
int rknn_matmul_destroy(rknn_matmul_ctx ctx);
int rknn_B_normal_layout_to_native_layout(void* B_input, void* B_output, int K, int N, rknn_matmul_info* info);

#ifdef __cplusplus
}  // extern "C"

static_assert(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 == 1 && RKNN_INT8_MM_INT8_TO_INT32 == 2 &&
              RKNN_INT4_MM_INT4_TO_INT16 == 10 && RKNN_FLOAT16_MM_INT4_TO_BFLOAT16 == 12);
static_assert(RKNN_MM_LAYOUT_NORM == 0 && RKNN_MM_LAYOUT_NATIVE == 1 && RKNN_MM_LAYOUT_TP_NORM == 2);
static_assert(sizeof(rknn_matmul_type) == 4);
static_assert(sizeof(rknn_matmul_tensor_attr) == 332 && offsetof(rknn_matmul_tensor_attr, n_dims) == 256 &&
              offsetof(rknn_matmul_tensor_attr, dims) == 260 && offsetof(rknn_matmul_tensor_attr, size) == 324 &&
              offsetof(rknn_matmul_tensor_attr, type) == 328);
static_assert(sizeof(rknn_matmul_io_attr) == 996 && offsetof(rknn_matmul_io_attr, B) == 332 &&
              offsetof(rknn_matmul_io_attr, C) == 664);
static_assert(sizeof(rknn_matmul_shape) == 12 && offsetof(rknn_matmul_shape, K) == 4);
static_assert(sizeof(rknn_matmul_info) == 64 && offsetof(rknn_matmul_info, type) == 12 &&
              offsetof(rknn_matmul_info, B_layout) == 16 && offsetof(rknn_matmul_info, B_quant_type) == 18 &&
              offsetof(rknn_matmul_info, AC_layout) == 20 && offsetof(rknn_matmul_info, AC_quant_type) == 22 &&
              offsetof(rknn_matmul_info, iommu_domain_id) == 24 && offsetof(rknn_matmul_info, group_size) == 28 &&
              offsetof(rknn_matmul_info, reserved) == 30);
#if defined(__LP64__)
static_assert(sizeof(rknn_quant_params) == 288 && offsetof(rknn_quant_params, scale) == 256 &&
              offsetof(rknn_quant_params, scale_len) == 264 && offsetof(rknn_quant_params, zp) == 272 &&
              offsetof(rknn_quant_params, zp_len) == 280);
#elif defined(__arm__)
static_assert(sizeof(rknn_quant_params) == 272 && offsetof(rknn_quant_params, scale) == 256 &&
              offsetof(rknn_quant_params, scale_len) == 260 && offsetof(rknn_quant_params, zp) == 264 &&
              offsetof(rknn_quant_params, zp_len) == 268);
#endif
#endif  // __cplusplus
