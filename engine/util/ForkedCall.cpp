#include "util/ForkedCall.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <system_error>
#include <thread>

namespace npuwb {

namespace {

bool writeAll(int fd, const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

// Ends a complete result: the parent can take the result without waiting for the child to exit (tearing down a
// copy of a large parent's address space took about a millisecond).
constexpr char kDone[] = "\x7fnpuwb-forked-ok";
constexpr size_t kDoneSize = sizeof kDone - 1;

[[noreturn]] void childMain(const std::function<std::string()>& work, int fd) {
    int status = 1;
    try {
        status = writeAll(fd, work() + std::string(kDone, kDoneSize)) ? 0 : 1;
    } catch (...) {
    }
    ::close(fd);
    _exit(status);  // no atexit handlers or destructors of the parent's state in the child
}

}  // namespace

ForkedResult runForked(const std::function<std::string()>& work, int timeoutSeconds) {
    ForkedResult result;
    int fds[2];
    if (::pipe(fds) != 0) return result;
    pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return result;
    }
    if (pid == 0) {
        ::close(fds[0]);
        childMain(work, fds[1]);
    }
    ::close(fds[1]);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeoutSeconds);
    bool timedOut = false;
    char buf[65536];
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) { timedOut = true; break; }
        pollfd p{fds[0], POLLIN, 0};
        int r = ::poll(&p, 1, static_cast<int>(left.count()));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) { timedOut = r == 0; break; }
        ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        result.output.append(buf, static_cast<size_t>(n));
    }
    ::close(fds[0]);
    const bool complete = !timedOut && result.output.size() >= kDoneSize &&
                          result.output.compare(result.output.size() - kDoneSize, kDoneSize, kDone, kDoneSize) == 0;
    if (complete) {  // the child is done: reap it in the background instead of waiting for its exit
        result.output.resize(result.output.size() - kDoneSize);
        result.status = ForkedResult::Status::Ok;
        auto reap = [pid] {
            int ignored = 0;
            while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
            }
        };
        try {
            std::thread(reap).detach();
        } catch (const std::system_error&) {  // no thread to spare: wait here
            reap();
        }
        return result;
    }
    if (timedOut) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timedOut) result.status = ForkedResult::Status::TimedOut;
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) result.status = ForkedResult::Status::Crashed;
    else result.status = ForkedResult::Status::Ok;
    if (result.status != ForkedResult::Status::Ok) result.output.clear();
    return result;
}

}  // namespace npuwb
