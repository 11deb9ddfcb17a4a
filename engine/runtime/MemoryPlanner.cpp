#include "npuwb/sdk/MemoryPlanner.h"

#include <algorithm>
#include <map>

namespace npuwb {

MemoryPlan planMemory(std::vector<TensorLifetime> tensors, int64_t alignment) {
    MemoryPlan plan;
    auto aligned = [&](int64_t b) { return (b + alignment - 1) / alignment * alignment; };

    // Lower bound: the most bytes simultaneously live at any step (sweep over lifetime events).
    std::map<int64_t, int64_t> delta;
    for (const auto& t : tensors) {
        delta[t.firstStep] += t.bytes;
        delta[t.lastStep + 1] -= t.bytes;
    }
    int64_t live = 0;
    for (const auto& [step, d] : delta) {
        live += d;
        plan.lowerBoundBytes = std::max(plan.lowerBoundBytes, live);
    }

    // Greedy by size: place each tensor at the lowest offset that does not overlap a placed tensor whose
    // lifetime intersects its own (the classic TFLite-style "greedy by size" planner).
    std::vector<size_t> order(tensors.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return tensors[a].bytes > tensors[b].bytes; });
    // Placed tensors by first step: the ones whose lifetime can meet [first, last] start in
    // [first - longest placed lifetime, last], so a long chain of short lifetimes is not a quadratic scan.
    std::multimap<int64_t, size_t> placedByFirst;
    int64_t longestLifetime = 0;
    for (size_t idx : order) {
        TensorLifetime& t = tensors[idx];
        std::vector<std::pair<int64_t, int64_t>> busy;  // [offset, end) of conflicting placed tensors
        const auto end = placedByFirst.upper_bound(t.lastStep);
        for (auto it = placedByFirst.lower_bound(t.firstStep - longestLifetime); it != end; ++it) {
            const auto& o = tensors[it->second];
            if (o.firstStep <= t.lastStep && t.firstStep <= o.lastStep) busy.emplace_back(o.offset, o.offset + aligned(o.bytes));
        }
        std::sort(busy.begin(), busy.end());
        int64_t offset = 0;
        for (const auto& [start, stop] : busy) {
            if (offset + aligned(t.bytes) <= start) break;
            offset = std::max(offset, stop);
        }
        t.offset = offset;
        plan.arenaBytes = std::max(plan.arenaBytes, offset + aligned(t.bytes));
        placedByFirst.emplace(t.firstStep, idx);
        longestLifetime = std::max(longestLifetime, t.lastStep - t.firstStep);
    }
    plan.tensors = std::move(tensors);
    return plan;
}

}  // namespace npuwb
