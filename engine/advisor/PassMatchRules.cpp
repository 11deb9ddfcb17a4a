// Every pass predicate as advice (RKNN SDK user guide V2.5.0, 5.2.4; 5.2.5.3):
//   graph-rewrite  an applicable match of a default pass: "Apply" runs that pass with its proof;
//   near-miss      a pattern that almost matches and what breaks it (seed: "check deviating connections").
// The gain: the estimated time of the layers the match touches minus one layer as costly as the largest of
// them on the NPU (what the rewrite leaves at most). Matches on nodes the converter folds anyway gain nothing.
// pad_channels (optional) is advised by channel-alignment instead.
#include <algorithm>
#include <set>

#include "advisor/PassScan.h"
#include "advisor/RuleSupport.h"

namespace npuwb::advisor {
namespace {

std::set<size_t> touchedLayers(const AdviceContext& c, const passes::Match& m) {
    std::set<size_t> touched;
    for (const auto& id : m.nodes)
        if (auto layer = layerOfNode(c, id)) touched.insert(*layer);
    return touched;
}

size_t layersTouched(const AdviceContext& c, const passes::Match& m) { return touchedLayers(c, m).size(); }

double rewriteGainUs(const AdviceContext& c, const passes::Match& m) {
    std::set<size_t> touched = touchedLayers(c, m);
    if (touched.empty()) return 0.0;
    double sum = 0.0, largestOnNpu = 0.0;
    for (size_t i : touched) {
        sum += c.estimate.layers[i].timeUs;
        largestOnNpu = std::max(largestOnNpu, npuTimeUs(c, i));
    }
    return std::max(0.0, sum - largestOnNpu);
}

std::string nodeList(const std::vector<std::string>& nodes) {
    std::string s;
    for (size_t i = 0; i < nodes.size() && i < 4; ++i) s += (i ? ", '" : "'") + nodes[i] + "'";
    if (nodes.size() > 4) s += " +" + std::to_string(nodes.size() - 4);
    return s;
}

std::vector<Finding> passFindings(const AdviceContext& c, bool nearMisses) {
    std::vector<Finding> out;
    for (const PassHit& h : scanPasses(c)) {
        if (!h.runsByDefault || h.match.applicable() == nearMisses) continue;
        Finding f;
        f.nodes = h.match.nodes;
        f.estimatedGainUs = rewriteGainUs(c, h.match);
        f.guideSection = h.guideSection;
        f.evidence = {evidence("nodes", double(h.match.nodes.size())), evidence("layers touched", double(layersTouched(c, h.match)))};
        if (!nearMisses) {
            f.hazard = h.pass + " applies at " + nodeList(f.nodes) + ": " + h.match.explanation;
            f.mitigation = "Apply " + h.pass + " (" + h.description + "); the optimizer proves the rewrite numerically.";
            f.pass = h.pass;
            f.passAnchor = h.match.nodes.front();
            f.severity = maxSeverity("low", severityForGain(f.estimatedGainUs, totalUs(c)));
        } else {
            f.hazard = nodeList(f.nodes) + " almost match " + h.pass + " (" + h.match.explanation +
                       "): " + h.match.nearMissReason;
            f.mitigation = "Check the deviating connection: " + h.match.nearMissReason + ". Once the pattern is "
                           "clean, " + h.pass + " applies.";
            f.severity = "low";
        }
        out.push_back(std::move(f));
    }
    return out;
}

class GraphRewriteRule final : public Rule {
public:
    std::string name() const override { return "graph-rewrite"; }
    std::string description() const override {
        return "Places where a graph optimization pass applies (fusion, layout-to-conv, chain merging, ...)";
    }
    std::vector<Finding> check(const AdviceContext& c) const override { return passFindings(c, false); }
};

class NearMissRule final : public Rule {
public:
    std::string name() const override { return "near-miss"; }
    std::string description() const override {
        return "Patterns that almost match a pass, with the connection that breaks the match";
    }
    std::vector<Finding> check(const AdviceContext& c) const override { return passFindings(c, true); }
};

NPUWB_RULE(GraphRewriteRule);
NPUWB_RULE(NearMissRule);

}  // namespace
}  // namespace npuwb::advisor
