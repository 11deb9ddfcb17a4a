#pragma once
// Where plugins are found and how they are named, shared by the backend and the model-runtime loaders:
// lib<kind-prefix><name>.so (libnpuwb-backend-cpu-onednn.so, libnpuwb-runtime-rknpu.so) in $NPUWB_PLUGIN_PATH
// (colon-separated), then `npuwb/plugins` and `plugins` next to the engine library (installed, build tree).
#include <filesystem>
#include <string>
#include <vector>

namespace npuwb {

struct PluginKind {
    std::string what;        // "backend", "model runtime": for messages
    std::string filePrefix;  // "libnpuwb-backend-"
};

inline const PluginKind kBackendPlugin{"backend", "libnpuwb-backend-"};
inline const PluginKind kRuntimePlugin{"model runtime", "libnpuwb-runtime-"};

std::vector<std::filesystem::path> pluginFolders();

/// dlopen()s plugin `name` of `kind` from the first folder that has it and returns the handle (never closed: objects,
/// threads and atexit handlers of the plugin's libraries may outlive any one object it made). Throws
/// Error(Unsupported) for a name that is not letters, digits, '-' and '_', naming every folder searched when no
/// folder has it, and with dlerror() when it does not load. `file` receives the path loaded.
void* openPlugin(const PluginKind& kind, const std::string& name, std::string& file);

/// Names of the plugins of `kind` in every folder, sorted, without duplicates.
std::vector<std::string> listPlugins(const PluginKind& kind);

}  // namespace npuwb
