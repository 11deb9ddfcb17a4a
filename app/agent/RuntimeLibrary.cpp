#include "RuntimeLibrary.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

namespace npuwb::agent {

std::optional<std::string> scanVersionString(const std::string& file, const std::string& marker) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    // Read in chunks that overlap by the marker's length so a match across a chunk border is still found.
    const size_t chunk = 1 << 20;
    const size_t keep = marker.size() + 256;
    std::string window;
    std::vector<char> buf(chunk);
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(chunk));
        window.append(buf.data(), static_cast<size_t>(in.gcount()));
        size_t at = window.find(marker);
        if (at != std::string::npos) {
            size_t start = at + marker.size();
            // The version may continue past this chunk: read a little more when needed.
            if (window.size() - start < 256 && in) {
                in.read(buf.data(), 256);
                window.append(buf.data(), static_cast<size_t>(in.gcount()));
            }
            std::string version;
            for (size_t i = start; i < window.size() && version.size() < 200; ++i) {
                unsigned char c = static_cast<unsigned char>(window[i]);
                if (c < 0x20 || c > 0x7e) break;
                version += static_cast<char>(c);
            }
            while (!version.empty() && version.back() == ' ') version.pop_back();
            if (!version.empty()) return version;
        }
        if (window.size() > keep) window.erase(0, window.size() - keep);
    }
    return std::nullopt;
}

std::optional<RuntimeLibrary> findRknnRuntime(const BoardFiles& files) {
    std::vector<std::string> folders;
    if (const char* env = std::getenv("LD_LIBRARY_PATH")) {
        std::stringstream ss(env);
        for (std::string part; std::getline(ss, part, ':');)
            if (!part.empty()) folders.push_back(part);
    }
    // Debian/Ubuntu board images, Buildroot (/oem), Android vendor partitions.
    for (const char* f : {"/usr/lib", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/local/lib", "/lib",
                          "/lib64", "/oem/usr/lib", "/vendor/lib64", "/vendor/lib", "/system/lib64"})
        folders.emplace_back(f);
    for (const auto& folder : folders) {
        const std::string path = folder + "/librknnrt.so";
        if (!files.exists(path)) continue;
        return RuntimeLibrary{.path = path, .version = scanVersionString(files.resolve(path), "librknnrt version: ")};
    }
    return std::nullopt;
}

}  // namespace npuwb::agent
