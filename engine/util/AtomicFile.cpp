#include "npuwb/AtomicFile.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "npuwb/Error.h"
#include "npuwb/Limits.h"

namespace npuwb {

namespace {

// Temporary files being written, for the signal handler: fixed slots whose name mkstemp writes in place, so a
// signal at any moment sees either no file yet or its full name; the handler only reads flags and names and calls
// unlink (async-signal-safe).
struct TemporarySlot {
    std::atomic<bool> used{false};
    char path[PATH_MAX]{};
};
std::array<TemporarySlot, 32> pendingTemporaries{};

/// Creates the temporary file from `tmpl` (mkstemp), registered for the signal handler before it exists.
int makeTemporary(std::string& tmpl, size_t& slot) {
    slot = pendingTemporaries.size();
    for (size_t i = 0; i < pendingTemporaries.size() && tmpl.size() < PATH_MAX; ++i) {
        bool expected = false;
        if (!pendingTemporaries[i].used.compare_exchange_strong(expected, true)) continue;
        slot = i;
        break;
    }
    if (slot == pendingTemporaries.size()) return mkstemp(tmpl.data());  // all slots busy: not cleaned on a signal
    char* path = pendingTemporaries[slot].path;
    std::memcpy(path, tmpl.c_str(), tmpl.size() + 1);
    const int fd = mkstemp(path);
    tmpl = path;
    return fd;
}

void forgetTemporary(size_t slot) {
    if (slot < pendingTemporaries.size()) pendingTemporaries[slot].used.store(false);
}

extern "C" void removeTemporariesAndExit(int signal) {
    for (auto& slot : pendingTemporaries)
        if (slot.used.load()) ::unlink(slot.path);
    struct sigaction sa {};
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(signal, &sa, nullptr);
    ::raise(signal);
}

// guardInputsAgainstOverwrite: files read and written, by device and inode, with the path first seen.
struct FileIdentity {
    dev_t device;
    ino_t inode;
    auto operator<=>(const FileIdentity&) const = default;
};
std::atomic<bool> guardOn{false};
std::mutex guardMutex;
std::map<FileIdentity, std::string> inputsRead, outputsWritten;

void remember(const struct stat& st, const std::string& path) {
    if (!guardOn.load(std::memory_order_relaxed)) return;
    std::lock_guard lock(guardMutex);
    inputsRead.emplace(FileIdentity{st.st_dev, st.st_ino}, path);
}

std::string describeFileType(mode_t mode) {
    if (S_ISDIR(mode)) return "a folder";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

/// Refuses a target that must not be replaced: not a regular file, or (guard on) an input or an earlier output.
/// `updatingInput`: the file is read and rewritten on purpose (updateFileAtomically).
void checkTarget(const std::string& path, bool updatingInput) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return;  // a new file (or a dangling link, which rename replaces)
    if (!S_ISREG(st.st_mode))
        failInput("cannot write '" + path + "': it is " + describeFileType(st.st_mode) +
                  ", not a regular file (it would be replaced by one)");
    if (!guardOn.load(std::memory_order_relaxed)) return;
    std::lock_guard lock(guardMutex);
    const FileIdentity id{st.st_dev, st.st_ino};
    if (auto it = inputsRead.find(id); it != inputsRead.end() && !updatingInput)
        failInput("cannot write '" + path + "': it is an input of this command ('" + it->second +
                  "'); writing it would destroy that input, choose another output");
    if (auto it = outputsWritten.find(id); it != outputsWritten.end())
        failInput("cannot write '" + path + "': this command already wrote another output there ('" + it->second +
                  "'); give each output its own file");
}

void rememberOutput(const std::string& path) {
    if (!guardOn.load(std::memory_order_relaxed)) return;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return;
    std::lock_guard lock(guardMutex);
    outputsWritten.emplace(FileIdentity{st.st_dev, st.st_ino}, path);
}

}  // namespace

void guardInputsAgainstOverwrite() { guardOn.store(true); }

void rememberInputFile(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) remember(st, path);
}

namespace {
void writeAtomically(const std::string& path, std::string_view contents, bool updatingInput) {
    checkTarget(path, updatingInput);
    std::filesystem::path target(path);
    std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    std::string tmpName = ".";  // built by appending: GCC 12 warns falsely (-Wrestrict) on "." + std::string
    tmpName += target.filename().string();
    tmpName += ".tmp-XXXXXX";
    std::string tmpl = (dir / tmpName).string();
    size_t slot = 0;
    int fd = makeTemporary(tmpl, slot);
    if (fd < 0) {
        const int err = errno;
        forgetTemporary(slot);
        fail(ErrorKind::Io, "cannot write '" + path + "': " + std::strerror(err));
    }
    auto failAndClean = [&](const std::string& what, int err) {
        ::unlink(tmpl.c_str());
        forgetTemporary(slot);
        fail(ErrorKind::Io, what + " '" + path + "': " + std::strerror(err));
    };
    size_t written = 0;
    while (written < contents.size()) {
        ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int err = n == 0 ? ENOSPC : errno;
            ::close(fd);
            failAndClean("cannot write", err);
        }
        written += static_cast<size_t>(n);
    }
    ::fchmod(fd, 0644);
    if (::fsync(fd) != 0) {
        int err = errno;
        ::close(fd);
        failAndClean("cannot write", err);
    }
    if (::close(fd) != 0) failAndClean("cannot write", errno);
    if (::rename(tmpl.c_str(), path.c_str()) != 0) failAndClean("cannot replace", errno);
    forgetTemporary(slot);
    rememberOutput(path);
}
}  // namespace

void writeFileAtomically(const std::string& path, std::string_view contents) {
    writeAtomically(path, contents, false);
}

void updateFileAtomically(const std::string& path, std::string_view contents) {
    writeAtomically(path, contents, true);
}

int openRegularFile(const std::string& path, uint64_t& size) {
    // O_NONBLOCK: opening a FIFO without a writer would block; it is refused below instead.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) fail(ErrorKind::Io, "cannot open '" + path + "': " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        fail(ErrorKind::Io, "cannot read '" + path + "': " + std::strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        fail(ErrorKind::Io, "'" + path + "' is " + describeFileType(st.st_mode) + ", not a regular file");
    }
    remember(st, path);
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    size = static_cast<uint64_t>(st.st_size);
    return fd;
}

std::string readFile(const std::string& path, uint64_t maxBytes) {
    uint64_t size = 0;
    const int fd = openRegularFile(path, size);
    const uint64_t limit = maxBytes ? maxBytes : memoryBudgetBytes();
    if (size > limit) {
        ::close(fd);
        fail(ErrorKind::Io, "'" + path + "' has " + formatBytes(size) + ", more than the " + formatBytes(limit) +
                                " this reader takes");
    }
    // Read straight into the result: a stringstream would hold a second copy of a 100 MB model.
    std::string bytes(static_cast<size_t>(size), '\0');
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            ::close(fd);
            fail(ErrorKind::Io, "cannot read '" + path + "': " + std::strerror(err));
        }
        if (n == 0) break;  // the file shrank while being read
        done += static_cast<size_t>(n);
    }
    ::close(fd);
    bytes.resize(done);
    return bytes;
}

void removeTemporaryFilesOnSignals() {
    struct sigaction sa {};
    sa.sa_handler = removeTemporariesAndExit;
    sigemptyset(&sa.sa_mask);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction old {};
        sigaction(s, nullptr, &old);
        if (old.sa_handler == SIG_IGN) continue;  // nohup'ed or backgrounded: stay ignored
        sigaction(s, &sa, nullptr);
    }
}

}  // namespace npuwb
