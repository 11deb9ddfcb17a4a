#include <gtest/gtest.h>

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
