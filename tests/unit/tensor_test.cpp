#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "npuwb/ir/Tensor.h"
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

TEST(Tensor, AdoptTakesTheBytesWithoutCopying) {
    std::string bytes(4 * sizeof(float), '\0');
    const float values[4] = {1.f, -2.f, 3.5f, 0.25f};
    std::memcpy(bytes.data(), values, sizeof values);
    const char* where = bytes.data();
    Tensor t = Tensor::adopt(DType::F32, {2, 2}, std::move(bytes));
    EXPECT_EQ(static_cast<const void*>(t.data<float>()), static_cast<const void*>(where));
    EXPECT_EQ(t.values<float>()[2], 3.5f);
    Tensor copy = t.clone();  // clones are ordinary tensors
    EXPECT_NE(copy.raw(), t.raw());
    EXPECT_EQ(copy.values<float>()[3], 0.25f);
    EXPECT_THROW(Tensor::adopt(DType::F32, {3}, std::string(8, '\0')), Error);
    EXPECT_THROW(Tensor::adopt(DType::String, {1}, std::string()), Error);
}

TEST(Tensor, DeferredDataIsMadeOnceOnFirstAccess) {
    int made = 0;
    Tensor t = Tensor::deferred(DType::F32, {2, 3}, [&made] {
        ++made;
        return Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
    });
    Tensor shared = t.reshaped({6});
    EXPECT_TRUE(t.isDeferred());
    EXPECT_EQ(t.numel(), 6);  // type and shape need no data
    EXPECT_EQ(made, 0);
    EXPECT_EQ(shared.values<float>()[4], 5.f);
    EXPECT_EQ(t.values<float>()[1], 2.f);
    EXPECT_EQ(made, 1);
    EXPECT_FALSE(t.isDeferred());
    Tensor wrong = Tensor::deferred(DType::F32, {4}, [] { return Tensor(DType::F32, {5}); });
    EXPECT_THROW(wrong.raw(), Error);
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
