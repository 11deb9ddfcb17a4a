#include "npuwb/AtomicFile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "npuwb/Error.h"

namespace npuwb {

void writeFileAtomically(const std::string& path, std::string_view contents) {
    std::filesystem::path target(path);
    std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    std::string tmpName = ".";  // built by appending: GCC 12 warns falsely (-Wrestrict) on "." + std::string
    tmpName += target.filename().string();
    tmpName += ".tmp-XXXXXX";
    std::string tmpl = (dir / tmpName).string();
    int fd = mkstemp(tmpl.data());
    if (fd < 0) fail(ErrorKind::Io, "cannot write '" + path + "': " + std::strerror(errno));
    size_t written = 0;
    while (written < contents.size()) {
        ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int err = errno;
            ::close(fd);
            ::unlink(tmpl.c_str());
            fail(ErrorKind::Io, "cannot write '" + path + "': " + std::strerror(err));
        }
        written += static_cast<size_t>(n);
    }
    ::fchmod(fd, 0644);
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        int err = errno;
        ::unlink(tmpl.c_str());
        fail(ErrorKind::Io, "cannot write '" + path + "': " + std::strerror(err));
    }
    if (::rename(tmpl.c_str(), path.c_str()) != 0) {
        int err = errno;
        ::unlink(tmpl.c_str());
        fail(ErrorKind::Io, "cannot replace '" + path + "': " + std::strerror(err));
    }
}

std::string readFile(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) fail(ErrorKind::Io, "'" + path + "' is a folder, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(ErrorKind::Io, "cannot open '" + path + "': " + std::strerror(errno));
    // Read straight into the result: a stringstream would hold a second copy of a 100 MB model.
    std::string bytes;
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec) {
        bytes.resize(static_cast<size_t>(size));
        in.read(bytes.data(), static_cast<std::streamsize>(size));
        bytes.resize(static_cast<size_t>(in.gcount()));
    }
    char chunk[65536];  // whatever is left (a file that grew, or a pipe without a size)
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) bytes.append(chunk, static_cast<size_t>(in.gcount()));
    if (in.bad()) fail(ErrorKind::Io, "cannot read '" + path + "'");
    return bytes;
}

}  // namespace npuwb
