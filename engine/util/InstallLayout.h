// Where the engine finds what it loads at run time (plugins, chip profiles), from the folder of libnpuwb-engine.so
// itself, so any program linking the engine finds them: installed (<prefix>/lib), in a build tree (<build>/lib)
// or in an agent bundle on a board (<cache>/lib).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace npuwb::install {

/// Folder holding libnpuwb-engine.so (empty if it cannot be told).
std::filesystem::path engineLibraryFolder();

/// Plugin folders next to the engine: the installed one (<lib>/npuwb/plugins), then the build tree's (<lib>/plugins).
std::vector<std::filesystem::path> pluginFolders();

/// Folders holding the data `sub` (e.g. "chips"): the installed <prefix>/share/npuwb/<sub> (listed even when
/// missing, so error messages can name it), then, for build trees inside the source tree, the first
/// resources/<sub> found walking up from the engine's folder.
std::vector<std::filesystem::path> dataFolders(const std::string& sub);

}  // namespace npuwb::install
