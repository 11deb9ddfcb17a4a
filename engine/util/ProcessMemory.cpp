#include "util/ProcessMemory.h"

#include <cstdlib>  // defines __GLIBC__ on glibc systems

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

}  // namespace npuwb
