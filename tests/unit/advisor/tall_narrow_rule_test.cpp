// tall-narrow: H much larger than a small W.
#include "AdvisorTestUtil.h"

using namespace npuwb;
using namespace npuwb::advisor;
using namespace npuwb::advisor::testing;

TEST(TallNarrowRule, FlagsTallNarrowFeatureMaps) {
    auto f = findings("tall-narrow", singleConv(32, 32, 128, 8));
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].nodes.front(), "y");
    ASSERT_TRUE(evidenceOf(f[0], "H/W"));
    EXPECT_DOUBLE_EQ(evidenceOf(f[0], "H/W")->value, 16.0);
    EXPECT_EQ(f[0].guideSection, "5.2.5.1");
}

TEST(TallNarrowRule, SilentOnSquareAndWideMaps) {
    EXPECT_TRUE(findings("tall-narrow", singleConv(32, 32, 32, 32)).empty());
    EXPECT_TRUE(findings("tall-narrow", singleConv(32, 32, 8, 128)).empty());
}
