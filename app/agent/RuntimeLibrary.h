#pragma once
// Finds Rockchip's NPU runtime (librknnrt.so) in the usual library folders and reads the version string compiled
// into it, without loading it (loading and rknn_query are the rknpu plugin's job).
#include <optional>
#include <string>

#include "BoardFiles.h"

namespace npuwb::agent {

struct RuntimeLibrary {
    std::string path;                   // as on the board (without the sysfs root)
    std::optional<std::string> version; // "2.3.0 (c949ad889d@2024-11-07T11:35:33)"
};

std::optional<RuntimeLibrary> findRknnRuntime(const BoardFiles& files);
/// The text after "librknnrt version: " in a binary file, up to the next non-printable byte.
std::optional<std::string> scanVersionString(const std::string& file, const std::string& marker);

}  // namespace npuwb::agent
