// Finds and loads backend plugins (libnpuwb-backend-<name>.so) with dlopen; see Backend.h for the search order.
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "backend/BackendLoader.h"
#include "npuwb/Session.h"
#include "npuwb/Error.h"

namespace npuwb {

namespace {

namespace fs = std::filesystem;

const std::string kPrefix = "libnpuwb-backend-";
const std::string kSuffix = ".so";

/// Folder holding libnpuwb-engine.so, found from the address of a function inside it.
fs::path engineLibraryFolder() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&engineLibraryFolder), &info) == 0 || !info.dli_fname) return {};
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::path(info.dli_fname), ec);
    return ec ? fs::path(info.dli_fname).parent_path() : p.parent_path();
}

std::vector<fs::path> pluginFolders() {
    std::vector<fs::path> folders;
    if (const char* env = std::getenv("NPUWB_PLUGIN_PATH")) {
        std::stringstream ss(env);
        for (std::string part; std::getline(ss, part, ':');)
            if (!part.empty()) folders.emplace_back(part);
    }
    fs::path lib = engineLibraryFolder();
    if (!lib.empty()) {
        folders.push_back(lib / "npuwb" / "plugins");  // installed: <prefix>/lib/npuwb/plugins
        folders.push_back(lib / "plugins");            // build tree: <build>/lib/plugins
    }
    return folders;
}

std::string listFolders(const std::vector<fs::path>& folders) {
    std::string out;
    for (const auto& f : folders) out += (out.empty() ? "" : ", ") + f.string();
    return out.empty() ? "(none)" : out;
}

bool validName(const std::string& name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
    });
}

}  // namespace

std::shared_ptr<Backend> loadBackend(const std::string& name) {
    if (!validName(name)) failUnsupported("backend name '" + name + "' is not valid (letters, digits, '-', '_')");
    const std::vector<fs::path> folders = pluginFolders();
    const std::string fileName = kPrefix + name + kSuffix;
    for (const auto& folder : folders) {
        fs::path file = folder / fileName;
        std::error_code ec;
        if (!fs::is_regular_file(file, ec)) continue;
        // The handle is never closed: prepared segments, thread pools and atexit handlers of the backend's
        // libraries (OpenMP) may outlive any one Backend object.
        // OpenMP's wait policy (oneDNN's idle workers spin, then sleep) is the user's OMP_WAIT_POLICY: it cannot be
        // set from here, since Qt's libb2 loads libgomp, which reads it, before main(). Spinning gives the lowest
        // latency on free cores; PASSIVE suits shared ones (the test presets set it).
        void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) failUnsupported("backend '" + name + "': cannot load " + file.string() + ": " + dlerror());
        using VersionFn = int (*)();
        using CreateFn = Backend* (*)();
        auto version = reinterpret_cast<VersionFn>(dlsym(handle, "npuwb_backend_api_version"));
        auto create = reinterpret_cast<CreateFn>(dlsym(handle, "npuwb_create_backend"));
        if (!version || !create)
            failUnsupported("backend '" + name + "': " + file.string() +
                            " is not an NPU Workbench backend plugin (missing npuwb_backend_api_version or "
                            "npuwb_create_backend)");
        const int got = version();
        if (got != kBackendApiVersion)
            failUnsupported("backend '" + name + "': " + file.string() + " was built for backend interface version " +
                            std::to_string(got) + ", this engine needs version " +
                            std::to_string(kBackendApiVersion) + "; rebuild the plugin");
        Backend* backend = create();
        if (!backend) failUnsupported("backend '" + name + "': " + file.string() + " returned no backend");
        return std::shared_ptr<Backend>(backend);
    }
    failUnsupported("backend '" + name + "' not found: no " + fileName + " in " + listFolders(folders) +
                    " (set NPUWB_PLUGIN_PATH to add folders)");
}

std::string findBackendPlugin(const std::string& name, std::string* searched) {
    const std::vector<fs::path> folders = pluginFolders();
    if (searched) *searched = listFolders(folders);
    if (!validName(name)) return {};
    for (const auto& folder : folders) {
        const fs::path file = folder / (kPrefix + name + kSuffix);
        std::error_code ec;
        if (fs::is_regular_file(file, ec)) return file.string();
    }
    return {};
}

std::vector<std::string> availableBackends() {
    std::vector<std::string> names;
    for (const auto& folder : pluginFolders()) {
        std::error_code ec;
        for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string f = it->path().filename().string();
            if (f.size() <= kPrefix.size() + kSuffix.size() || f.rfind(kPrefix, 0) != 0 ||
                f.compare(f.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
                continue;
            std::string n = f.substr(kPrefix.size(), f.size() - kPrefix.size() - kSuffix.size());
            if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

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
