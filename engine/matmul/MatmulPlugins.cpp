// Loads matmul kernel providers from backend plugins: the same library as the backend, two more C symbols.
#include "matmul/MatmulPlugins.h"

#include <dlfcn.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "backend/PluginFolders.h"
#include "npuwb/Error.h"
#include "npuwb/Matmul.h"
#include "npuwb/Session.h"

namespace npuwb {

std::shared_ptr<MatmulKernelProvider> loadMatmulKernelProvider(const std::string& name) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<MatmulKernelProvider>> loaded;
    std::lock_guard lock(mutex);
    if (auto it = loaded.find(name); it != loaded.end()) return it->second;
    std::string file;
    // A backend's CPU kernels, else a model runtime's device kernels (rknpu: the vendor's matmul calls).
    const auto has = [&](const PluginKind& kind) {
        const auto names = listPlugins(kind);
        return std::find(names.begin(), names.end(), name) != names.end();
    };
    const bool runtime = !has(kBackendPlugin) && has(kRuntimePlugin);
    void* handle = openPlugin(runtime ? kRuntimePlugin : kBackendPlugin, name, file);  // throws naming the folders
    auto version = reinterpret_cast<int (*)()>(dlsym(handle, "npuwb_matmul_kernel_api_version"));
    auto create = reinterpret_cast<MatmulKernelProvider* (*)()>(dlsym(handle, "npuwb_create_matmul_kernels"));
    const std::string what = runtime ? "runtime '" : "backend '";
    if (!version || !create) failUnsupported(what + name + "' (" + file + ") provides no matmul kernels");
    if (version() != kMatmulKernelApiVersion)
        failUnsupported(what + name + "': " + file + " was built for matmul kernel interface version " +
                        std::to_string(version()) + ", this engine needs version " +
                        std::to_string(kMatmulKernelApiVersion) + "; rebuild the plugin");
    std::shared_ptr<MatmulKernelProvider> provider(create());
    if (!provider) failUnsupported(what + name + "': " + file + " returned no matmul kernels");
    loaded[name] = provider;
    return provider;
}

std::vector<std::string> availableMatmulBackends() {
    std::vector<std::string> names;
    for (const auto& backend : availableBackends()) {
        try {
            loadMatmulKernelProvider(backend);
            names.push_back(backend);
        } catch (const Error&) {
            // a backend without matmul kernels (or an unloadable one) is simply not listed
        }
    }
    return names;
}

}  // namespace npuwb
