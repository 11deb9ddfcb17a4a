// Plugin folders and dlopen, shared by the backend and model-runtime loaders (see PluginFolders.h).
#include "backend/PluginFolders.h"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "npuwb/Error.h"
#include "util/InstallLayout.h"

namespace npuwb {

namespace {

namespace fs = std::filesystem;

const std::string kSuffix = ".so";

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

std::vector<fs::path> pluginFolders() {
    std::vector<fs::path> folders;
    if (const char* env = std::getenv("NPUWB_PLUGIN_PATH")) {
        std::stringstream ss(env);
        for (std::string part; std::getline(ss, part, ':');)
            if (!part.empty()) folders.emplace_back(part);
    }
    for (const fs::path& folder : install::pluginFolders()) folders.push_back(folder);
    return folders;
}

void* openPlugin(const PluginKind& kind, const std::string& name, std::string& file) {
    if (!validName(name))
        failUnsupported(kind.what + " name '" + name + "' is not valid (letters, digits, '-', '_')");
    const std::vector<fs::path> folders = pluginFolders();
    const std::string fileName = kind.filePrefix + name + kSuffix;
    for (const auto& folder : folders) {
        const fs::path candidate = folder / fileName;
        std::error_code ec;
        if (!fs::is_regular_file(candidate, ec)) continue;
        file = candidate.string();
        void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) failUnsupported(kind.what + " '" + name + "': cannot load " + file + ": " + dlerror());
        return handle;
    }
    failUnsupported(kind.what + " '" + name + "' not found: no " + fileName + " in " + listFolders(folders) +
                    " (set NPUWB_PLUGIN_PATH to add folders)");
}

std::vector<std::string> listPlugins(const PluginKind& kind) {
    std::vector<std::string> names;
    const std::string& prefix = kind.filePrefix;
    for (const auto& folder : pluginFolders()) {
        std::error_code ec;
        for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string f = it->path().filename().string();
            if (f.size() <= prefix.size() + kSuffix.size() || f.rfind(prefix, 0) != 0 ||
                f.compare(f.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
                continue;
            std::string n = f.substr(prefix.size(), f.size() - prefix.size() - kSuffix.size());
            if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace npuwb
