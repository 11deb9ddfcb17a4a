#include "chips/ProfileFolders.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "npuwb/Error.h"

namespace npuwb {

namespace fs = std::filesystem;

std::vector<std::string> profileNamesIn(const std::vector<std::string>& folders) {
    std::vector<std::string> names;
    for (const auto& dir : folders) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(dir, ec))
            if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

std::string findProfileFile(const std::vector<std::string>& folders, const std::string& name, const std::string& kind,
                            const std::string& envVar) {
    std::string fileName = name;
    std::transform(fileName.begin(), fileName.end(), fileName.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    fileName += ".json";
    for (const auto& dir : folders) {
        const fs::path candidate = fs::path(dir) / fileName;
        std::error_code ec;
        if (fs::is_regular_file(candidate, ec)) return candidate.string();
    }
    std::string known, searched;
    for (const auto& n : profileNamesIn(folders)) known += (known.empty() ? "" : ", ") + n;
    for (const auto& d : folders) searched += (searched.empty() ? "" : ", ") + d;
    failInput("unknown " + kind + " '" + name + "' (profiles: " + (known.empty() ? "none found" : known) +
              "; searched: " + (searched.empty() ? "nothing" : searched) + "; set " + envVar + ")");
}

}  // namespace npuwb
