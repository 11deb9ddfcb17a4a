#pragma once
// Threads for the reference kernels' fast paths (data movement, float elementwise). The Session sets the count for
// the runs it makes (KernelThreadsScope); kernels split big loops with parallelFor. OpenMP is the runtime, the one
// cpu-onednn's oneDNN uses, so its threads serve both instead of two pools taking turns on the cores.
#include <cstdint>
#include <functional>

namespace npuwb {

/// Threads a kernel on this thread may use (1 unless a KernelThreadsScope says otherwise).
int kernelThreads();

/// Sets kernelThreads() on this thread for its lifetime.
class KernelThreadsScope {
public:
    explicit KernelThreadsScope(int threads);
    ~KernelThreadsScope();
    KernelThreadsScope(const KernelThreadsScope&) = delete;
    KernelThreadsScope& operator=(const KernelThreadsScope&) = delete;

private:
    int previous_;
};

/// Calls body(begin, end) on disjoint ranges covering [0, count), on up to kernelThreads() threads when the work
/// (count * costPerItem, in elements touched) is worth it. The first exception a range throws is rethrown.
void parallelFor(int64_t count, int64_t costPerItem, const std::function<void(int64_t, int64_t)>& body);

}  // namespace npuwb
