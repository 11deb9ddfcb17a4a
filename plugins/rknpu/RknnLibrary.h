#pragma once
// Loading Rockchip's NPU runtime with dlopen: librknnrt.so (RK3588, RK3576, RK3566/68, RK3562), or the mini runtime
// librknnmrt.so of RV1106/RV1103, which has a smaller API (no rknn_dup_context, no per-layer perf detail, one NPU
// core, and only the zero-copy I/O of RknnZeroCopy.h). Private to the plugin.
#include <memory>
#include <string>

#include "RknnApi.h"
#include "npuwb/sdk/ModelRuntime.h"

namespace npuwb::rknpu {

/// The runtime's entry points. The optional ones are null when the library lacks them (the mini runtime). Of the two
/// I/O paths one is complete: rknn_inputs_set / rknn_outputs_get when the library has them (null when it lacks any of
/// the three), else the zero-copy buffers.
struct RknnLibrary {
    std::string path;          // as given to dlopen
    void* handle = nullptr;    // dlopen's, for the optional APIs (RknnMatmul.cpp)
    bool mini = false;         // librknnmrt.so
    rknn::InitFn init = nullptr;
    rknn::DestroyFn destroy = nullptr;
    rknn::QueryFn query = nullptr;
    rknn::RunFn run = nullptr;
    rknn::InputsSetFn inputsSet = nullptr;            // the inputs_set path: absent from librknnmrt.so
    rknn::OutputsGetFn outputsGet = nullptr;
    rknn::OutputsReleaseFn outputsRelease = nullptr;
    rknn::CreateMemFn createMem = nullptr;            // the zero-copy path (RknnZeroCopy.h)
    rknn::DestroyMemFn destroyMem = nullptr;
    rknn::SetIoMemFn setIoMem = nullptr;
    rknn::DupContextFn dupContext = nullptr;    // optional: absent from librknnmrt.so
    rknn::SetCoreMaskFn setCoreMask = nullptr;  // optional: absent from librknnmrt.so

    /// The I/O path a run takes: zero-copy buffers when the library has no rknn_inputs_set path.
    bool zeroCopyIo() const { return inputsSet == nullptr; }
    const char* ioPathName() const {
        return zeroCopyIo() ? "zero-copy (rknn_create_mem + rknn_set_io_mem buffers)"
                            : "rknn_inputs_set / rknn_outputs_get";
    }
};

/// The runtime at `path` ("" = $NPUWB_RKNNRT_LIBRARY, else librknnrt.so, else librknnmrt.so), or null with `why`
/// naming every library tried. The handle is never closed: the runtime keeps driver threads and atexit handlers that
/// may outlive one profile.
std::unique_ptr<RknnLibrary> loadRknnLibrary(const std::string& path, std::string& why);

/// The runtime's rknn_core_mask value of a core mask.
inline int32_t rknnCoreMask(NpuCoreMask mask) {
    switch (mask) {
    case NpuCoreMask::Auto: return rknn::kCoreAuto;
    case NpuCoreMask::Core0: return rknn::kCore0;
    case NpuCoreMask::Core1: return rknn::kCore1;
    case NpuCoreMask::Core2: return rknn::kCore2;
    case NpuCoreMask::Cores01: return rknn::kCore01;
    case NpuCoreMask::Cores012: return rknn::kCore012;
    case NpuCoreMask::All: return rknn::kCoreAll;
    }
    return rknn::kCoreAuto;
}

/// What the mini runtime lacks, said once in errors and report notes.
inline constexpr const char* kMiniRuntimeLacks =
    "librknnmrt.so is the RV1106/RV1103 mini runtime: it has no rknn_dup_context (one context only), no per-layer "
    "perf detail (RKNN_QUERY_PERF_DETAIL), one NPU core (core mask auto only) and no rknn_inputs_set / "
    "rknn_outputs_get (inputs and outputs go through zero-copy buffers in the runtime's native layout)";

}  // namespace npuwb::rknpu
