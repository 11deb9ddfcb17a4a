#include "npuwb/ProcessMemory.h"

#include <cstdlib>  // defines __GLIBC__ on glibc systems
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace npuwb {

void returnLargeFreedBlocksToSystem() {
#if defined(__GLIBC__)
    // Setting the threshold explicitly also turns off glibc's dynamic adjustment of it.
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
}

namespace {
std::mutex reuseMutex;
int reuseActive = 0;  // overlapping loops restore the policy when the last one ends
}  // namespace

ReuseFreedBlocks::ReuseFreedBlocks() {
#if defined(__GLIBC__)
    std::lock_guard lock(reuseMutex);
    if (reuseActive++ == 0) {
        mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
    }
#endif
}

ReuseFreedBlocks::~ReuseFreedBlocks() {
#if defined(__GLIBC__)
    std::lock_guard lock(reuseMutex);
    if (--reuseActive == 0) {
        mallopt(M_TRIM_THRESHOLD, 128 << 10);  // glibc's default
        returnLargeFreedBlocksToSystem();
        malloc_trim(0);
    }
#endif
}

}  // namespace npuwb
