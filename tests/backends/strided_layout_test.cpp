// Stride arithmetic of the oneDNN segment's zero-copy data movement (plugins/cpu-onednn/StridedLayout.h), checked
// against the element each index addresses.
#include <gtest/gtest.h>

#include <numeric>

#include "StridedLayout.h"

using namespace npuwb::onednn;

namespace {

/// Offsets of every element in row-major index order.
std::vector<int64_t> offsets(const Dims& dims, const Dims& strides) {
    std::vector<int64_t> out;
    Dims index(dims.size(), 0);
    const int64_t count = std::accumulate(dims.begin(), dims.end(), int64_t{1}, std::multiplies<>());
    for (int64_t e = 0; e < count; ++e) {
        int64_t off = 0;
        for (size_t i = 0; i < dims.size(); ++i) off += index[i] * strides[i];
        out.push_back(off);
        for (size_t i = dims.size(); i-- > 0;) {
            if (++index[i] < dims[i]) break;
            index[i] = 0;
        }
    }
    return out;
}

const Dims kNchw{1, 8, 3, 5};
const Dims kNhwcStrides{8 * 3 * 5, 1, 5 * 8, 8};  // acdb

}  // namespace

TEST(StridedLayout, ReshapeOfChannelsLastSplitsChannelsWithoutACopy) {
    const Dims to{1, 2, 4, 3, 5};  // ShuffleNet's (N, groups, C/groups, H, W)
    auto s = reshapedStrides(kNchw, kNhwcStrides, to);
    ASSERT_TRUE(s);
    EXPECT_EQ(offsets(to, *s), offsets(kNchw, kNhwcStrides));
}

TEST(StridedLayout, ReshapeMergingDimsStoredApartNeedsACopy) {
    // Channels and height are not adjacent in channels-last storage: C*H cannot be one dim.
    EXPECT_FALSE(reshapedStrides(kNchw, kNhwcStrides, Dims{1, 24, 5}));
    EXPECT_FALSE(reshapedStrides(kNchw, kNhwcStrides, Dims{1, 7, 3, 5}));  // element counts differ
}

TEST(StridedLayout, ReshapeOfPlainIsRowMajor) {
    const Dims plain{8 * 3 * 5, 3 * 5, 5, 1};
    auto s = reshapedStrides(kNchw, plain, Dims{2, 4, 15, 1});
    ASSERT_TRUE(s);
    EXPECT_EQ(offsets(Dims{2, 4, 15, 1}, *s), offsets(kNchw, plain));
}

TEST(StridedLayout, ChannelShuffleOfChannelsLastStaysChannelsLastAndMergesBack) {
    // (1, 2, 4, 3, 5) view of channels-last storage, transposed to (1, 4, 2, 3, 5), then merged to (1, 8, 3, 5).
    const Dims split{1, 2, 4, 3, 5};
    const Dims splitStrides = *reshapedStrides(kNchw, kNhwcStrides, split);
    const std::vector<size_t> perm{0, 2, 1, 3, 4};
    const Dims shuffled{1, 4, 2, 3, 5};
    const Dims out = denseStrides(shuffled, transposedOrder(storageOrder(split, splitStrides), perm));
    auto merged = reshapedStrides(shuffled, out, kNchw);
    ASSERT_TRUE(merged) << "the shuffled output must merge back without a copy";
    for (size_t i = 1; i < kNchw.size(); ++i)  // the batch dim has size 1: its stride addresses nothing
        EXPECT_EQ((*merged)[i], kNhwcStrides[i]) << "and be channels-last again, dim " << i;
    EXPECT_EQ(storageOrder(kNchw, *merged), storageOrder(kNchw, kNhwcStrides));
}

TEST(StridedLayout, TransposeOfPlainGivesPlain) {
    const std::vector<size_t> plainOrder{0, 1, 2, 3};
    EXPECT_EQ(transposedOrder(plainOrder, {0, 2, 3, 1}), plainOrder);
    EXPECT_EQ(denseStrides(Dims{2, 3, 4}, {0, 1, 2}), (Dims{12, 4, 1}));
}

TEST(StridedLayout, StorageOrderPutsSize1DimsFirstThenSortsByStride) {
    EXPECT_EQ(storageOrder(kNchw, kNhwcStrides), (std::vector<size_t>{0, 2, 3, 1}));
    EXPECT_EQ(storageOrder(kNchw, Dims{1, 1, 40, 8}), (std::vector<size_t>{0, 2, 3, 1})) << "any stride for N";
    EXPECT_EQ(storageOrder(Dims{2, 2, 3}, Dims{3, 3, 1}), (std::vector<size_t>{0, 1, 2})) << "ties in dim order";
}
