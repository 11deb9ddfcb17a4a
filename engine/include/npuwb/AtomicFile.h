#pragma once
// Writes a file so that readers see either the old content or the complete new one, never a torn write:
// data goes to a temporary file in the same folder, is fsync'ed, then renamed over the target. Reads only regular
// files: a FIFO would block forever, a device (/dev/zero) never ends.
#include <cstdint>
#include <string>
#include <string_view>

namespace npuwb {

/// Throws Error(Io) naming the path on failure; the target is untouched then, and no temporary file is left.
/// An existing target that is not a regular file (a device, FIFO or folder) is refused (InvalidInput), never
/// replaced.
void writeFileAtomically(const std::string& path, std::string_view contents);
/// The same for a file the command reads and rewrites on purpose (a known_hosts gaining a line): its being an input
/// is expected, not refused (guardInputsAgainstOverwrite).
void updateFileAtomically(const std::string& path, std::string_view contents);
/// Reads a whole regular file; throws Error(Io) naming the path when it is missing, not a regular file (folder,
/// FIFO, device, socket) or larger than `maxBytes` (0: the memory budget, npuwb/Limits.h).
std::string readFile(const std::string& path, uint64_t maxBytes = 0);
/// Opens a regular file for reading without ever blocking (a FIFO is refused, not waited on); returns the file
/// descriptor, which the caller closes, and its size. Throws Error(Io) naming the path.
int openRegularFile(const std::string& path, uint64_t& size);
/// For command-line programs (opt-in, once at start): every file the engine's readers open (models, external data,
/// .npy inputs, data set lists, reports, logs) is remembered, and writeFileAtomically onto one of them, by any path,
/// symlink or hard link, fails (InvalidInput) instead of destroying the input; so does a second write to a file
/// this process already wrote (two outputs of one command named alike).
void guardInputsAgainstOverwrite();
/// Remembers a file read outside the engine's readers (decoded images) as an input, when the guard is on.
void rememberInputFile(const std::string& path);
/// Unlinks the temporary files of writes under way when SIGINT, SIGTERM or SIGHUP ends the process, then lets the
/// signal end it as before. For executables' main(); harmless to call twice.
void removeTemporaryFilesOnSignals();

}  // namespace npuwb
