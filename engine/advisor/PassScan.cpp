#include "advisor/PassScan.h"

#include <algorithm>

#include "advisor/RuleSupport.h"

namespace npuwb::advisor {

std::vector<PassHit> scanPasses(const AdviceContext& context) {
    passes::PassConfig config;
    config.channelAlign = adviceRates(context).convOutputChannelAlign;
    config.opset = context.model.opset("") > 0 ? context.model.opset("") : 13;
    std::vector<PassHit> hits;
    for (auto& pass : passes::PassRegistry::instance().createAll()) {
        pass->configure(config);
        for (auto& m : pass->findMatches(context.model.graph))
            hits.push_back(PassHit{pass->name(), pass->guideSection(), pass->description(), pass->runsByDefault(),
                                   std::move(m)});
    }
    return hits;
}

const PassHit* passFixing(const std::vector<PassHit>& hits, const std::string& id, const std::string& onlyPass) {
    for (const PassHit& h : hits) {
        if (!h.match.applicable()) continue;
        if (onlyPass.empty() ? !h.runsByDefault : h.pass != onlyPass) continue;
        if (std::find(h.match.nodes.begin(), h.match.nodes.end(), id) != h.match.nodes.end()) return &h;
    }
    return nullptr;
}

}  // namespace npuwb::advisor
