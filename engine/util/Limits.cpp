#include "npuwb/Limits.h"

#include <unistd.h>

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>

#include "npuwb/Error.h"

namespace npuwb {

namespace {

std::atomic<uint64_t> overrideBudget{0};
std::atomic<uint64_t> liveBytes{0};

uint64_t availableMemoryBytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024;
    const long pages = sysconf(_SC_AVPHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
    if (pages <= 0 || pageSize <= 0) return uint64_t(1) << 40;
    return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
}

uint64_t defaultBudget() {
    static const uint64_t budget = [] {
        if (const char* env = std::getenv("NPUWB_MEMORY_BUDGET"); env && *env) {
            try {
                return parseByteSize(env, "NPUWB_MEMORY_BUDGET");
            } catch (const Error&) {
            }  // a malformed variable falls back to the default rather than stopping every program
        }
        return availableMemoryBytes() / 5 * 4;
    }();
    return budget;
}

thread_local const RunLimitsScope* currentScope = nullptr;
std::mutex processDeadlineMutex;
std::optional<std::chrono::steady_clock::time_point> processDeadline;
std::atomic<bool> haveProcessDeadline{false};
double processTimeoutSeconds = 0;

std::string secondsText(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

}  // namespace

// Tensor storage reports its owned bytes here (ir/Tensor.cpp).
void addLiveTensorBytes(uint64_t bytes) { liveBytes.fetch_add(bytes, std::memory_order_relaxed); }
void removeLiveTensorBytes(uint64_t bytes) { liveBytes.fetch_sub(bytes, std::memory_order_relaxed); }

uint64_t memoryBudgetBytes() {
    const uint64_t set = overrideBudget.load(std::memory_order_relaxed);
    return set ? set : defaultBudget();
}

void setMemoryBudgetBytes(uint64_t bytes) { overrideBudget.store(bytes, std::memory_order_relaxed); }

uint64_t liveTensorBytes() { return liveBytes.load(std::memory_order_relaxed); }

uint64_t parseByteSize(const std::string& text, const std::string& what) {
    uint64_t value = 0;
    const char* begin = text.data();
    const char* end = begin + text.size();
    auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr == begin) failInput(what + ": '" + text + "' is not a size (e.g. 4G, 512M, 1000000)");
    uint64_t scale = 1;
    std::string suffix(ptr, end);
    if (!suffix.empty() && (suffix.back() == 'B' || suffix.back() == 'b')) suffix.pop_back();
    if (suffix.size() == 1) {
        switch (std::toupper(static_cast<unsigned char>(suffix[0]))) {
            case 'K': scale = uint64_t(1) << 10; break;
            case 'M': scale = uint64_t(1) << 20; break;
            case 'G': scale = uint64_t(1) << 30; break;
            case 'T': scale = uint64_t(1) << 40; break;
            default: failInput(what + ": '" + text + "' has an unknown unit (K, M, G or T)");
        }
    } else if (!suffix.empty()) {
        failInput(what + ": '" + text + "' has an unknown unit (K, M, G or T)");
    }
    if (value == 0 || value > UINT64_MAX / scale) failInput(what + ": '" + text + "' is not a usable size");
    return value * scale;
}

std::string formatBytes(uint64_t bytes) {
    const char* units[] = {"bytes", "KB", "MB", "GB", "TB", "PB", "EB"};
    double v = static_cast<double>(bytes);
    size_t u = 0;
    while (v >= 1000 && u + 1 < std::size(units)) {
        v /= 1000;
        ++u;
    }
    char buf[48];
    if (u == 0) std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
    else std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
    return buf;
}

bool withinMemoryBudget(uint64_t bytes) {
    const uint64_t budget = memoryBudgetBytes();
    return bytes <= budget && liveTensorBytes() <= budget - bytes;
}

void checkMemoryBudget(uint64_t bytes, const std::string& what) {
    const uint64_t budget = memoryBudgetBytes();
    const uint64_t live = liveTensorBytes();
    if (!withinMemoryBudget(bytes))
        failInput(what + " needs " + formatBytes(bytes) + ", over the memory budget of " + formatBytes(budget) + " (" +
                  formatBytes(live) + " already in use; set another with --memory-budget or NPUWB_MEMORY_BUDGET)");
}

RunLimitsScope::RunLimitsScope(RunLimits limits) : limits_(std::move(limits)), outer_(currentScope) {
    currentScope = this;
}

RunLimitsScope::~RunLimitsScope() { currentScope = outer_; }

void setProcessDeadline(std::optional<std::chrono::steady_clock::time_point> deadline, double timeoutSeconds) {
    std::lock_guard lock(processDeadlineMutex);
    processDeadline = deadline;
    processTimeoutSeconds = timeoutSeconds;
    haveProcessDeadline.store(deadline.has_value(), std::memory_order_release);
}

double processTimeLimitSeconds() {
    std::lock_guard lock(processDeadlineMutex);
    return processDeadline ? processTimeoutSeconds : 0.0;
}

void checkRunLimits() {
    std::optional<std::chrono::steady_clock::time_point> now;
    auto timeNow = [&] {
        if (!now) now = std::chrono::steady_clock::now();
        return *now;
    };
    for (const RunLimitsScope* s = currentScope; s; s = s->outer_) {
        if (s->limits_.cancel && s->limits_.cancel->load(std::memory_order_relaxed))
            fail(ErrorKind::Cancelled, "run cancelled");
        if (s->limits_.deadline && timeNow() >= *s->limits_.deadline)
            fail(ErrorKind::Cancelled, "stopped: the time limit of " + secondsText(s->limits_.timeoutSeconds) +
                                           " s ran out");
    }
    if (haveProcessDeadline.load(std::memory_order_acquire)) {
        std::lock_guard lock(processDeadlineMutex);
        if (processDeadline && timeNow() >= *processDeadline)
            fail(ErrorKind::Cancelled, "stopped: the time limit of " + secondsText(processTimeoutSeconds) +
                                           " s ran out");
    }
}

void countLoopIteration(const std::string& node) {
    checkRunLimits();
    for (const RunLimitsScope* s = currentScope; s; s = s->outer_) {
        if (s->limits_.maxLoopIterations <= 0) continue;
        auto* scope = const_cast<RunLimitsScope*>(s);
        if (++scope->loopIterations_ > s->limits_.maxLoopIterations)
            failInput("node " + node + ": runs more than " + std::to_string(s->limits_.maxLoopIterations) +
                      " loop iterations; " + s->limits_.loopCapReason);
        break;
    }
}

}  // namespace npuwb
