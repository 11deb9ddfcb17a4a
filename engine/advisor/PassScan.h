#pragma once
// Every registered pass's match predicate run on the advised model, configured for the chip (channel alignment)
// and the model's opset, so rules can point at the pass that fixes what they found.
#include <string>
#include <vector>

#include "advisor/Rule.h"
#include "passes/Pass.h"

namespace npuwb::advisor {

struct PassHit {
    std::string pass;
    std::string guideSection;
    std::string description;
    bool runsByDefault = true;
    passes::Match match;
};

/// Matches and near misses of all registered passes, in pass-name order.
std::vector<PassHit> scanPasses(const AdviceContext& context);

/// The first applicable match (of a default pass, or of `onlyPass` when given) that involves node `id`.
const PassHit* passFixing(const std::vector<PassHit>& hits, const std::string& id, const std::string& onlyPass = "");

}  // namespace npuwb::advisor
