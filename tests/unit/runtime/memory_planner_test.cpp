#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "npuwb/sdk/MemoryPlanner.h"

using namespace npuwb;

namespace {
bool overlaps(const TensorLifetime& a, const TensorLifetime& b) {
    bool timeOverlap = a.firstStep <= b.lastStep && b.firstStep <= a.lastStep;
    bool spaceOverlap = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
    return timeOverlap && spaceOverlap;
}
}  // namespace

TEST(MemoryPlanner, ChainReusesMemory) {
    // a -> b -> c -> d: only two tensors are ever live at once.
    MemoryPlan plan = planMemory({{"a", 1000, 0, 0, 1}, {"b", 1000, 0, 1, 2}, {"c", 1000, 0, 2, 3}, {"d", 1000, 0, 3, 4}});
    EXPECT_EQ(plan.lowerBoundBytes, 2000);
    EXPECT_EQ(plan.arenaBytes, 2 * 1024);  // 1000 rounded up to 64-byte alignment, twice
}

TEST(MemoryPlanner, NoLiveTensorsShareBytes) {
    std::vector<TensorLifetime> ts;
    for (int i = 0; i < 40; ++i) {
        std::string name = "t";
        name += std::to_string(i);
        ts.push_back({name, 100 + (i * 37) % 500, 0, i % 7, i % 7 + i % 5});
    }
    MemoryPlan plan = planMemory(ts);
    for (size_t i = 0; i < plan.tensors.size(); ++i)
        for (size_t j = i + 1; j < plan.tensors.size(); ++j)
            EXPECT_FALSE(overlaps(plan.tensors[i], plan.tensors[j])) << plan.tensors[i].name << " " << plan.tensors[j].name;
    EXPECT_GE(plan.arenaBytes, plan.lowerBoundBytes);
    for (const auto& t : plan.tensors) EXPECT_EQ(t.offset % 64, 0);
}

TEST(MemoryPlanner, SameOffsetsAsTheAllPairsGreedyOnSeededRandomLifetimes) {
    // The oracle: greedy by size against every placed tensor (what the windowed search must reproduce exactly).
    auto allPairs = [](std::vector<TensorLifetime> ts) {
        auto aligned = [](int64_t b) { return (b + 63) / 64 * 64; };
        std::vector<size_t> order(ts.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ts[a].bytes > ts[b].bytes; });
        std::vector<size_t> placed;
        for (size_t idx : order) {
            std::vector<std::pair<int64_t, int64_t>> busy;
            for (size_t p : placed)
                if (ts[p].firstStep <= ts[idx].lastStep && ts[idx].firstStep <= ts[p].lastStep)
                    busy.emplace_back(ts[p].offset, ts[p].offset + aligned(ts[p].bytes));
            std::sort(busy.begin(), busy.end());
            int64_t offset = 0;
            for (const auto& [start, end] : busy) {
                if (offset + aligned(ts[idx].bytes) <= start) break;
                offset = std::max(offset, end);
            }
            ts[idx].offset = offset;
            placed.push_back(idx);
        }
        return ts;
    };
    for (uint32_t seed = 1; seed <= 20; ++seed) {
        std::mt19937 rng(seed);
        std::vector<TensorLifetime> ts;
        const int steps = 5 + static_cast<int>(rng() % 200);
        for (int i = 0; i < 300; ++i) {
            const int64_t first = rng() % steps;
            const int64_t length = rng() % 4 == 0 ? rng() % steps : rng() % 3;  // mostly short, some long-lived
            std::string name = "t";  // appended, not "t" + ...: GCC 12 warns falsely (-Wrestrict) on the latter
            name += std::to_string(i);
            ts.push_back({name, 1 + static_cast<int64_t>(rng() % 5000), 0, first, first + length});
        }
        const MemoryPlan plan = planMemory(ts);
        const auto expected = allPairs(ts);
        ASSERT_EQ(plan.tensors.size(), expected.size());
        for (size_t i = 0; i < expected.size(); ++i)
            ASSERT_EQ(plan.tensors[i].offset, expected[i].offset) << "seed " << seed << ", " << expected[i].name;
    }
}
