#pragma once
// Shared by the libFuzzer targets: any crash, sanitizer report, leak or hang is a finding; npuwb::Error (and the
// JSON library's own parse errors, which the readers wrap) are the expected outcome for bad bytes.
#include <cstddef>
#include <cstdint>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "npuwb/AtomicFile.h"
#include "npuwb/Limits.h"

namespace npuwb::fuzz {

inline std::string bytesOf(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

/// A small memory budget so a hostile size is refused quickly, as it would be on a small board.
inline void limitMemory() {
    static const bool once = [] {
        setMemoryBudgetBytes(uint64_t(256) << 20);
        return true;
    }();
    (void)once;
}

/// A private folder for this fuzzer process (made once).
inline const std::string& scratchFolder() {
    static const std::string dir = [] {
        std::string tmpl = (std::filesystem::temp_directory_path() / "npuwb-fuzz-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) __builtin_trap();
        return tmpl;
    }();
    return dir;
}

/// Writes the input to `name` in the scratch folder, for readers that take a path: they are fuzzed as users call them.
inline std::string scratchFile(const std::string& name, const uint8_t* data, size_t size) {
    const std::string path = scratchFolder() + "/" + name;
    writeFileAtomically(path, bytesOf(data, size));
    return path;
}

}  // namespace npuwb::fuzz
