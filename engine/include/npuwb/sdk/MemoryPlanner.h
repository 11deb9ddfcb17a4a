#pragma once
// Assigns arena offsets to intermediate tensors from their lifetimes (greedy best-fit by size, largest first),
// and reports the planned arena size next to the lower bound (the most bytes live at any one step).
#include <vector>

#include "npuwb/Report.h"

namespace npuwb {

struct MemoryPlan {
    std::vector<TensorLifetime> tensors;  // offsets filled in
    int64_t arenaBytes = 0;
    int64_t lowerBoundBytes = 0;
};

/// `tensors` need name, bytes, firstStep and lastStep; offsets are aligned to `alignment` bytes.
MemoryPlan planMemory(std::vector<TensorLifetime> tensors, int64_t alignment = 64);

}  // namespace npuwb
