// advise(): every rule registered, findings sorted by gain, the report form of a finding.
#include "AdvisorTestUtil.h"

#include <algorithm>

#include "npuwb/Error.h"

using namespace npuwb;
using namespace npuwb::advisor;
using namespace npuwb::advisor::testing;

TEST(Advisor, EveryRuleFamilyIsRegistered) {
    auto names = RuleRegistry::instance().names();
    for (const char* rule : {"bandwidth-bound", "channel-alignment", "conv-utilization", "cpu-fallback", "graph-rewrite",
                             "hw-alignment", "low-mac-utilization", "near-miss", "quantize", "tall-narrow"})
        EXPECT_NE(std::find(names.begin(), names.end(), rule), names.end()) << rule;
    EXPECT_THROW(runRule("no-such-rule", singleConv(8, 8, 8, 8), chip("rk3588")), Error);
}

TEST(Advisor, FindingsAreSortedByGainAndBecomeSuggestions) {
    ModelBuilder b;
    b.input("x", {1, 64, 20, 20}).output("y");
    conv(b, "x", "a", 64, 48, 3);
    b.node("Relu", {"a"}, {"r"}, "relu");
    conv(b, "r", "c", 48, 8, 3);
    b.node("Exp", {"c"}, {"y"}, "exp");
    Advice advice = adviseWithEstimate(b.build(), chip("rk3588"));
    ASSERT_GE(advice.findings.size(), 4u);
    for (size_t i = 1; i < advice.findings.size(); ++i)
        EXPECT_GE(advice.findings[i - 1].estimatedGainUs, advice.findings[i].estimatedGainUs);
    EXPECT_EQ(advice.estimate.kind, "estimate");
    ASSERT_EQ(advice.estimate.suggestions.size(), advice.findings.size());
    const Finding& top = advice.findings.front();
    const Suggestion& s = advice.estimate.suggestions.front();
    EXPECT_EQ(s.rule, top.rule);
    EXPECT_EQ(s.nodes, top.nodes);
    EXPECT_EQ(s.pass, top.pass);
    EXPECT_DOUBLE_EQ(s.estimatedGainUs, top.estimatedGainUs);
    EXPECT_EQ(s.hazard.rfind("[" + top.severity + "] " + top.hazard, 0), 0u);
    EXPECT_NE(s.hazard.find(top.evidence.front().label), std::string::npos);
    EXPECT_EQ(advise(b.build(), chip("rk3588")).size(), advice.findings.size());
}
