// Loading librknnrt.so / librknnmrt.so (see RknnLibrary.h).
#include "RknnLibrary.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <type_traits>
#include <vector>

namespace npuwb::rknpu {

namespace {

std::unique_ptr<RknnLibrary> loadOne(const std::string& path, std::string& why) {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* err = dlerror();
        why = "cannot load '" + path + "' (" + (err ? err : "unknown") + ")";
        return nullptr;
    }
    auto lib = std::make_unique<RknnLibrary>();
    lib->path = path;
    lib->handle = handle;
    lib->mini = std::filesystem::path(path).filename().string().find("rknnmrt") != std::string::npos;
    auto resolve = [&](auto& fn, const char* name, std::string& missing) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
        if (!fn) missing += (missing.empty() ? "" : ", ") + std::string(name);
    };
    std::string missing, optional, noInputsSet, noZeroCopy;
    resolve(lib->init, "rknn_init", missing);
    resolve(lib->destroy, "rknn_destroy", missing);
    resolve(lib->query, "rknn_query", missing);
    resolve(lib->run, "rknn_run", missing);
    resolve(lib->dupContext, "rknn_dup_context", optional);
    resolve(lib->setCoreMask, "rknn_set_core_mask", optional);
    // Either I/O path will do: rknn_inputs_set first, the zero-copy buffers (all the mini runtime has) otherwise.
    resolve(lib->inputsSet, "rknn_inputs_set", noInputsSet);
    resolve(lib->outputsGet, "rknn_outputs_get", noInputsSet);
    resolve(lib->outputsRelease, "rknn_outputs_release", noInputsSet);
    resolve(lib->createMem, "rknn_create_mem", noZeroCopy);
    resolve(lib->destroyMem, "rknn_destroy_mem", noZeroCopy);
    resolve(lib->setIoMem, "rknn_set_io_mem", noZeroCopy);
    if (!noInputsSet.empty()) lib->inputsSet = nullptr, lib->outputsGet = nullptr, lib->outputsRelease = nullptr;
    if (!noInputsSet.empty() && !noZeroCopy.empty())
        missing += (missing.empty() ? "" : ", ") + noInputsSet + " (the rknn_inputs_set I/O path) and " + noZeroCopy +
                   " (the zero-copy I/O path)";
    if (!missing.empty()) {
        why = "'" + path + "' lacks " + missing;
        return nullptr;
    }
    return lib;
}

}  // namespace

std::unique_ptr<RknnLibrary> loadRknnLibrary(const std::string& path, std::string& why) {
    std::vector<std::string> candidates;
    if (!path.empty())
        candidates = {path};
    else if (const char* env = std::getenv("NPUWB_RKNNRT_LIBRARY"); env && *env)
        candidates = {env};
    else
        candidates = {"librknnrt.so", "librknnmrt.so"};  // the full runtime first; RV1106/RV1103 ship only the mini one
    std::string reasons;
    for (const auto& candidate : candidates) {
        std::string reason;
        if (auto lib = loadOne(candidate, reason)) return lib;
        reasons += (reasons.empty() ? "" : "; ") + reason;
    }
    why = "librknnrt.so not available on this board: " + reasons +
          "; install Rockchip's RKNPU2 runtime or set NPUWB_RKNNRT_LIBRARY to its path";
    return nullptr;
}

}  // namespace npuwb::rknpu
