#include "ops/Parallel.h"

#include <algorithm>
#include <exception>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace npuwb {

namespace {
thread_local int t_kernelThreads = 1;
// Below this many elements touched a loop stays on one thread: waking the team costs more than it saves.
constexpr int64_t kMinParallelWork = 1 << 15;
}  // namespace

int kernelThreads() { return t_kernelThreads; }

KernelThreadsScope::KernelThreadsScope(int threads) : previous_(t_kernelThreads) {
    t_kernelThreads = std::max(1, threads);
}

KernelThreadsScope::~KernelThreadsScope() { t_kernelThreads = previous_; }

void parallelFor(int64_t count, int64_t costPerItem, const std::function<void(int64_t, int64_t)>& body) {
    if (count <= 0) return;
    const int64_t work = count * std::max<int64_t>(1, costPerItem);
    const int threads = static_cast<int>(std::min<int64_t>({t_kernelThreads, count, work / kMinParallelWork}));
    if (threads <= 1) {
        body(0, count);
        return;
    }
#ifdef _OPENMP
    std::exception_ptr firstError;  // an exception must not leave an OpenMP region: the first one is rethrown
#pragma omp parallel num_threads(threads)
    {
        const int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
        const int64_t begin = count * t / n, end = count * (t + 1) / n;
        try {
            if (begin < end) body(begin, end);
        } catch (...) {
#pragma omp critical(npuwb_parallel_for_error)
            if (!firstError) firstError = std::current_exception();
        }
    }
    if (firstError) std::rethrow_exception(firstError);
#else
    body(0, count);
#endif
}

}  // namespace npuwb
