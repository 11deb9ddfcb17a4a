#pragma once
// Loading Rockchip's NPU runtime with dlopen: librknnrt.so (RK3588, RK3576, RK3566/68, RK3562), or the mini runtime
// librknnmrt.so of RV1106/RV1103, which has a smaller API (no rknn_dup_context, no per-layer perf detail, one NPU
// core). Private to the plugin.
#include <memory>
#include <string>

#include "RknnApi.h"

namespace npuwb::rknpu {

/// The runtime's entry points. The optional ones are null when the library lacks them (the mini runtime).
struct RknnLibrary {
    std::string path;          // as given to dlopen
    bool mini = false;         // librknnmrt.so
    rknn::InitFn init = nullptr;
    rknn::DestroyFn destroy = nullptr;
    rknn::QueryFn query = nullptr;
    rknn::InputsSetFn inputsSet = nullptr;
    rknn::RunFn run = nullptr;
    rknn::OutputsGetFn outputsGet = nullptr;
    rknn::OutputsReleaseFn outputsRelease = nullptr;
    rknn::DupContextFn dupContext = nullptr;    // optional: absent from librknnmrt.so
    rknn::SetCoreMaskFn setCoreMask = nullptr;  // optional: absent from librknnmrt.so
};

/// The runtime at `path` ("" = $NPUWB_RKNNRT_LIBRARY, else librknnrt.so, else librknnmrt.so), or null with `why`
/// naming every library tried. The handle is never closed: the runtime keeps driver threads and atexit handlers that
/// may outlive one profile.
std::unique_ptr<RknnLibrary> loadRknnLibrary(const std::string& path, std::string& why);

/// What the mini runtime lacks, said once in errors and report notes.
inline constexpr const char* kMiniRuntimeLacks =
    "librknnmrt.so is the RV1106/RV1103 mini runtime: it has no rknn_dup_context (one context only), no per-layer "
    "perf detail (RKNN_QUERY_PERF_DETAIL) and one NPU core (core mask auto only)";

}  // namespace npuwb::rknpu
