#pragma once
// Writes a file so that readers see either the old content or the complete new one, never a torn write:
// data goes to a temporary file in the same folder, is fsync'ed, then renamed over the target.
#include <string>
#include <string_view>

namespace npuwb {

/// Throws Error(Io) naming the path on failure; the target is untouched then.
void writeFileAtomically(const std::string& path, std::string_view contents);
/// Reads a whole file; throws Error(Io) naming the path.
std::string readFile(const std::string& path);

}  // namespace npuwb
