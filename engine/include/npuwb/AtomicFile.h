#pragma once
// Writes a file so that readers see either the old content or the complete new one, never a torn write:
// data goes to a temporary file in the same folder, is fsync'ed, then renamed over the target. Reads only regular
// files: a FIFO would block forever, a device (/dev/zero) never ends.
#include <cstdint>
#include <string>
#include <string_view>

namespace npuwb {

/// Throws Error(Io) naming the path on failure; the target is untouched then, and no temporary file is left.
void writeFileAtomically(const std::string& path, std::string_view contents);
/// Reads a whole regular file; throws Error(Io) naming the path when it is missing, not a regular file (folder,
/// FIFO, device, socket) or larger than `maxBytes` (0: the memory budget, npuwb/Limits.h).
std::string readFile(const std::string& path, uint64_t maxBytes = 0);
/// Opens a regular file for reading without ever blocking (a FIFO is refused, not waited on); returns the file
/// descriptor, which the caller closes, and its size. Throws Error(Io) naming the path.
int openRegularFile(const std::string& path, uint64_t& size);
/// Unlinks the temporary files of writes under way when SIGINT, SIGTERM or SIGHUP ends the process, then lets the
/// signal end it as before. For executables' main(); harmless to call twice.
void removeTemporaryFilesOnSignals();

}  // namespace npuwb
