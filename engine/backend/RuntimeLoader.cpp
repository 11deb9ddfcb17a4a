// Loads whole-model runtime plugins (libnpuwb-runtime-<name>.so, npuwb/sdk/ModelRuntime.h) with dlopen and runs
// model files with them (npuwb/ModelRuntimes.h).
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>

#include "backend/PluginFolders.h"
#include "npuwb/Error.h"
#include "npuwb/ModelRuntimes.h"

namespace npuwb {

namespace {

std::unique_ptr<ModelRuntime> loadModelRuntime(const std::string& name) {
    std::string file;
    void* handle = openPlugin(kRuntimePlugin, name, file);
    using VersionFn = int (*)();
    using CreateFn = ModelRuntime* (*)();
    auto version = reinterpret_cast<VersionFn>(dlsym(handle, "npuwb_runtime_api_version"));
    auto create = reinterpret_cast<CreateFn>(dlsym(handle, "npuwb_create_runtime"));
    if (!version || !create)
        failUnsupported("model runtime '" + name + "': " + file +
                        " is not an NPU Workbench runtime plugin (missing npuwb_runtime_api_version or "
                        "npuwb_create_runtime)");
    const int got = version();
    if (got != kModelRuntimeApiVersion)
        failUnsupported("model runtime '" + name + "': " + file + " was built for runtime interface version " +
                        std::to_string(got) + ", this engine needs version " +
                        std::to_string(kModelRuntimeApiVersion) + "; rebuild the plugin");
    ModelRuntime* runtime = create();
    if (!runtime) failUnsupported("model runtime '" + name + "': " + file + " returned no runtime");
    return std::unique_ptr<ModelRuntime>(runtime);
}

}  // namespace

std::vector<std::string> availableModelRuntimes() { return listPlugins(kRuntimePlugin); }

std::string modelRuntimeForFile(const std::string& modelPath) {
    std::string ext = std::filesystem::path(modelPath).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    if (ext.empty()) return "";
    for (const auto& name : availableModelRuntimes()) {
        try {
            const auto extensions = loadModelRuntime(name)->modelExtensions();
            if (std::find(extensions.begin(), extensions.end(), ext) != extensions.end()) return name;
        } catch (const std::exception&) {
            // a plugin that does not load claims nothing
        }
    }
    return "";
}

std::string modelRuntimeUnavailableReason(const std::string& name, const ModelRunOptions& options) {
    try {
        return loadModelRuntime(name)->unavailableReason(options);
    } catch (const std::exception& e) {
        return e.what();
    }
}

Report runModelFile(const std::string& name, const std::string& modelPath, const ModelRunOptions& options) {
    if (options.runs < 1) failInput(modelPath + ": the number of runs must be at least 1");
    if (options.warmup < 0) failInput(modelPath + ": the number of warm-up runs cannot be negative");
    return loadModelRuntime(name)->profile(modelPath, options);
}

}  // namespace npuwb
