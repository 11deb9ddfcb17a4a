#include <gtest/gtest.h>

#include <cmath>

#include "ir/Tensor.h"
#include "ops/KernelUtil.h"

using namespace npuwb;

TEST(Tensor, AllocatesZeroedAndReshapes) {
    Tensor t(DType::F32, {2, 3});
    EXPECT_EQ(t.numel(), 6);
    EXPECT_EQ(t.byteSize(), 24u);
    for (float v : t.values<float>()) EXPECT_EQ(v, 0.0f);
    Tensor r = t.reshaped({3, 2});
    r.data<float>()[5] = 7.0f;
    EXPECT_EQ(t.data<float>()[5], 7.0f);  // views share storage
    EXPECT_THROW(t.reshaped({4, 2}), Error);
}

TEST(Tensor, RefusesImpossibleSizes) {
    EXPECT_THROW(Tensor(DType::F32, {int64_t(1) << 40}), Error);
    EXPECT_THROW(Tensor(DType::F32, {INT64_MAX, 4}), Error);
    EXPECT_THROW(Tensor(DType::F32, {-1}), Error);
}

TEST(Tensor, WrongTypedAccessThrows) {
    Tensor t(DType::I64, {1});
    EXPECT_THROW(t.data<float>(), Error);
}

TEST(Half, RoundTripsAndRounds) {
    EXPECT_EQ(static_cast<float>(Float16(1.0f)), 1.0f);
    EXPECT_EQ(static_cast<float>(Float16(65504.0f)), 65504.0f);
    EXPECT_TRUE(std::isinf(static_cast<float>(Float16(1e6f))));
    EXPECT_EQ(static_cast<float>(Float16(5.960464477539063e-08f)), 5.960464477539063e-08f);  // smallest subnormal
    EXPECT_EQ(static_cast<float>(BFloat16(1.0f)), 1.0f);
    EXPECT_NEAR(static_cast<float>(BFloat16(3.14159f)), 3.140625f, 1e-6);
}

TEST(Broadcast, ShapesAndIndices) {
    EXPECT_EQ(broadcastShapes({{2, 1, 3}, {4, 1}}), (Shape{2, 4, 3}));
    EXPECT_THROW(broadcastShapes({{2, 3}, {4}}), Error);
    BroadcastIndex idx({2, 3}, {3});
    EXPECT_EQ(idx(4), 1);
    auto all = BroadcastIndex({2, 3}, {2, 1}).all();
    EXPECT_EQ(all, (std::vector<int64_t>{0, 0, 0, 1, 1, 1}));
}
