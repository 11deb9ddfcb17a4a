#pragma once
// Shared by the libFuzzer targets: any crash, sanitizer report, leak or hang is a finding; npuwb::Error (and the
// JSON library's own parse errors, which the readers wrap) are the expected outcome for bad bytes.
#include <cstddef>
#include <cstdint>
#include <string>

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

}  // namespace npuwb::fuzz
