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
    lib->mini = std::filesystem::path(path).filename().string().find("rknnmrt") != std::string::npos;
    std::string missing;
    auto resolve = [&](auto& fn, const char* name, bool required) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, name));
        if (!fn && required) missing += (missing.empty() ? "" : ", ") + std::string(name);
    };
    resolve(lib->init, "rknn_init", true);
    resolve(lib->destroy, "rknn_destroy", true);
    resolve(lib->query, "rknn_query", true);
    resolve(lib->inputsSet, "rknn_inputs_set", true);
    resolve(lib->run, "rknn_run", true);
    resolve(lib->outputsGet, "rknn_outputs_get", true);
    resolve(lib->outputsRelease, "rknn_outputs_release", true);
    resolve(lib->dupContext, "rknn_dup_context", false);
    resolve(lib->setCoreMask, "rknn_set_core_mask", false);
    if (!missing.empty()) {
        why = "'" + path + "' lacks " + missing +
              (lib->mini ? " (this plugin feeds inputs with rknn_inputs_set; the mini runtime's zero-copy "
                           "rknn_set_io_mem path is not implemented)"
                         : "");
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
