#pragma once
// The plugin's own transcription of the parts of Rockchip's public matmul header rknn_matmul_api.h that it uses:
// the matmul API of librknnrt.so (C = A x B without a model; RKNN SDK user guide V2.5.0, 4.1.1), loaded with dlopen
// like the rest of the runtime (RknnApi.h), so the header is never needed to build.
//
// Source: rknn_matmul_api.h as published in airockchip/rknn_model_zoo, 3rdparty/rknpu2/include/rknn_matmul_api.h
// at commit c918ec6579494947e4e3b13816ae427d4270085f. The numbers in the static_asserts below were measured by
// compiling that header's declarations: gcc on x86_64, clang --target=aarch64-linux-gnu (LP64) and
// clang --target=armv7-linux-gnueabihf (32-bit ARM, where the pointers of rknn_quant_params are 4 bytes).
// C enums are int-sized. The type numbers are npuwb::MatmulType's (MatmulTypes.h lists the same vendor values).
#include <cstddef>
#include <cstdint>

#include "RknnApi.h"

namespace npuwb::rknn {

enum MatmulLayoutCode : int16_t {  // rknn_matmul_layout (stored in int16 fields of rknn_matmul_info)
    kMmLayoutNorm = 0, kMmLayoutNative = 1, kMmLayoutTpNorm = 2,
};

enum MatmulQuantCode : int16_t {  // rknn_matmul_info::B_quant_type
    kMmQuantPerLayer = 0, kMmQuantPerChannel = 1, kMmQuantPerGroup = 2,
};

struct MatmulTensorAttr {  // rknn_matmul_tensor_attr
    char name[kMaxNameLen];
    uint32_t n_dims;
    uint32_t dims[kMaxDims];
    uint32_t size;  // bytes
    int32_t type;   // rknn_tensor_type
};

struct MatmulIoAttr {  // rknn_matmul_io_attr
    MatmulTensorAttr A;
    MatmulTensorAttr B;
    MatmulTensorAttr C;
};

struct MatmulShape {  // rknn_matmul_shape
    int32_t M;
    int32_t K;
    int32_t N;
};

struct MatmulInfo {  // rknn_matmul_info
    int32_t M;
    int32_t K;
    int32_t N;
    int32_t type;  // rknn_matmul_type
    int16_t B_layout;
    int16_t B_quant_type;
    int16_t AC_layout;
    int16_t AC_quant_type;  // per layer only
    int32_t iommu_domain_id;
    int16_t group_size;  // B_quant_type per group
    int8_t reserved[34];
};

struct QuantParams {  // rknn_quant_params: which operand by its io_attr name
    char name[kMaxNameLen];
    float* scale;
    int32_t scale_len;
    int32_t* zp;
    int32_t zp_len;
};

extern "C" {
using MatmulCreateFn = int (*)(Context* ctx, MatmulInfo* info, MatmulIoAttr* io_attr);  // rknn_matmul_create
using MatmulCreateDynamicFn = int (*)(Context* ctx, MatmulInfo* info, int shape_num, MatmulShape shapes[],
                                      MatmulIoAttr io_attrs[]);  // rknn_matmul_create_dynamic_shape
using MatmulSetIoMemFn = int (*)(Context ctx, TensorMem* mem, MatmulTensorAttr* attr);  // rknn_matmul_set_io_mem
using MatmulSetCoreMaskFn = int (*)(Context ctx, int32_t core_mask);          // rknn_matmul_set_core_mask
using MatmulSetQuantParamsFn = int (*)(Context ctx, QuantParams* params);     // rknn_matmul_set_quant_params
using MatmulSetDynamicShapeFn = int (*)(Context ctx, MatmulShape* shape);     // rknn_matmul_set_dynamic_shape
using MatmulRunFn = int (*)(Context ctx);                                     // rknn_matmul_run
using MatmulDestroyFn = int (*)(Context ctx);                                 // rknn_matmul_destroy
using BNormalToNativeFn = int (*)(void* b_input, void* b_output, int K, int N,
                                  MatmulInfo* info);  // rknn_B_normal_layout_to_native_layout
}

// Layout checks against the published header (see the top of this file for how the numbers were measured).
static_assert(sizeof(MatmulLayoutCode) == 2 && kMmLayoutNative == 1 && kMmLayoutTpNorm == 2);
static_assert(kMmQuantPerChannel == 1 && kMmQuantPerGroup == 2);
static_assert(sizeof(MatmulTensorAttr) == 332 && alignof(MatmulTensorAttr) == 4);
static_assert(offsetof(MatmulTensorAttr, n_dims) == 256 && offsetof(MatmulTensorAttr, dims) == 260);
static_assert(offsetof(MatmulTensorAttr, size) == 324 && offsetof(MatmulTensorAttr, type) == 328);
static_assert(sizeof(MatmulIoAttr) == 996 && offsetof(MatmulIoAttr, B) == 332 && offsetof(MatmulIoAttr, C) == 664);
static_assert(sizeof(MatmulShape) == 12 && offsetof(MatmulShape, N) == 8);
static_assert(sizeof(MatmulInfo) == 64 && offsetof(MatmulInfo, type) == 12 && offsetof(MatmulInfo, B_layout) == 16);
static_assert(offsetof(MatmulInfo, B_quant_type) == 18 && offsetof(MatmulInfo, AC_layout) == 20);
static_assert(offsetof(MatmulInfo, AC_quant_type) == 22 && offsetof(MatmulInfo, iommu_domain_id) == 24);
static_assert(offsetof(MatmulInfo, group_size) == 28 && offsetof(MatmulInfo, reserved) == 30);
#if defined(__LP64__)
static_assert(sizeof(QuantParams) == 288 && offsetof(QuantParams, scale) == 256);
static_assert(offsetof(QuantParams, scale_len) == 264 && offsetof(QuantParams, zp) == 272);
static_assert(offsetof(QuantParams, zp_len) == 280);
#elif defined(__arm__)
static_assert(sizeof(QuantParams) == 272 && offsetof(QuantParams, scale) == 256);
static_assert(offsetof(QuantParams, scale_len) == 260 && offsetof(QuantParams, zp) == 264);
static_assert(offsetof(QuantParams, zp_len) == 268);
#endif

}  // namespace npuwb::rknn
