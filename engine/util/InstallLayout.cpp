#include "util/InstallLayout.h"

#include <dlfcn.h>

#include <string>

namespace npuwb::install {

namespace fs = std::filesystem;

fs::path engineLibraryFolder() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&engineLibraryFolder), &info) == 0 || !info.dli_fname) return {};
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::path(info.dli_fname), ec);
    return ec ? fs::path(info.dli_fname).parent_path() : p.parent_path();
}

std::vector<fs::path> pluginFolders() {
    const fs::path lib = engineLibraryFolder();
    if (lib.empty()) return {};
    return {lib / NPUWB_PLUGINS_FROM_LIBDIR, lib / "plugins"};
}

std::vector<fs::path> dataFolders(const std::string& sub) {
    std::vector<fs::path> folders;
    const fs::path lib = engineLibraryFolder();
    if (lib.empty()) return folders;
    std::error_code ec;
    folders.push_back((lib / NPUWB_DATA_FROM_LIBDIR / sub).lexically_normal());
    for (fs::path p = lib; !p.empty() && p != p.root_path(); p = p.parent_path()) {
        if (fs::is_directory(p / "resources" / sub, ec)) {
            folders.push_back(p / "resources" / sub);
            break;
        }
    }
    return folders;
}

}  // namespace npuwb::install
