// Loads backend plugins (libnpuwb-backend-<name>.so) with dlopen; see PluginFolders.h for the search order.
#include "backend/BackendLoader.h"

#include <dlfcn.h>

#include "backend/PluginFolders.h"
#include "npuwb/Error.h"
#include "npuwb/Session.h"

namespace npuwb {

std::shared_ptr<Backend> loadBackend(const std::string& name) {
    // OpenMP's wait policy (oneDNN's idle workers spin, then sleep) is the user's OMP_WAIT_POLICY: it cannot be set
    // from here, since Qt's libb2 loads libgomp, which reads it, before main(). Spinning gives the lowest latency on
    // free cores; PASSIVE suits shared ones (the test presets set it).
    std::string file;
    void* handle = openPlugin(kBackendPlugin, name, file);
    using VersionFn = int (*)();
    using CreateFn = Backend* (*)();
    auto version = reinterpret_cast<VersionFn>(dlsym(handle, "npuwb_backend_api_version"));
    auto create = reinterpret_cast<CreateFn>(dlsym(handle, "npuwb_create_backend"));
    if (!version || !create)
        failUnsupported("backend '" + name + "': " + file +
                        " is not an NPU Workbench backend plugin (missing npuwb_backend_api_version or "
                        "npuwb_create_backend)");
    const int got = version();
    if (got != kBackendApiVersion)
        failUnsupported("backend '" + name + "': " + file + " was built for backend interface version " +
                        std::to_string(got) + ", this engine needs version " + std::to_string(kBackendApiVersion) +
                        "; rebuild the plugin");
    Backend* backend = create();
    if (!backend) failUnsupported("backend '" + name + "': " + file + " returned no backend");
    return std::shared_ptr<Backend>(backend);
}

std::vector<std::string> availableBackends() { return listPlugins(kBackendPlugin); }

std::string usableBackendName(const std::string& requested, std::string& warning) {
    warning.clear();
    const std::string name = resolveBackendName(requested);
    if (name == "reference") return name;
    try {
        loadBackend(name);
        return name;
    } catch (const Error& e) {
        warning = std::string(e.what()) + "; running on the reference executor";
        return "reference";
    }
}

}  // namespace npuwb
