#include "npuwb/Optimizer.h"
#include "passes/Pass.h"
#include "passes/Proof.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <set>

#include "npuwb/ModelIO.h"
#include "passes/GraphEdit.h"
#include "npuwb/Profiler.h"
#include "npuwb/Session.h"
#include "npuwb/Error.h"

namespace npuwb::passes {

namespace {
using InputSets = std::vector<std::map<std::string, Tensor>>;

void say(const OptimizerOptions& o, const std::string& line) {
    if (o.log) o.log(line);
}

/// After a rewrite: drop what nothing reads, restore file order and re-infer value types through a real
/// ONNX round trip, which also rejects rewrites that produce an invalid model.
Model finalize(const Model& m) {
    Model copy = m;
    pruneUnused(copy.graph);
    sortTopologically(copy.graph);
    copy.graph.valueInfo.clear();
    Model back = loadModelFromBytes(serializeModel(copy), ".", m.sourcePath.empty() ? "optimized" : m.sourcePath);
    back.sourcePath = m.sourcePath;
    return back;
}

constexpr const char* kUpgradePass = "upgrade_opset";

std::vector<std::unique_ptr<Pass>> selectPasses(const OptimizerOptions& o, const PassConfig& config) {
    std::vector<std::unique_ptr<Pass>> out;
    if (o.passes.empty()) {
        for (auto& p : PassRegistry::instance().createAll())
            if (p->runsByDefault()) out.push_back(std::move(p));
    } else {
        for (const auto& n : o.passes)
            if (n != kUpgradePass) out.push_back(PassRegistry::instance().create(n));  // it runs apart, first
    }
    // Canonical clean-ups first so the seed passes see folded constants and no identities.
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
        return a->guideSection().empty() && !b->guideSection().empty();
    });
    for (auto& p : out) p->configure(config);
    return out;
}

/// OptimizerOptions::onlyAt: does the caller want `m` rewritten?
bool chosen(const std::set<std::string>& anchors, const Match& m) {
    return anchors.empty() || (!m.nodes.empty() && anchors.count(m.nodes.front()));
}

/// The newest opset a selected pass needs for sites it would rewrite in `graph` at that opset; 0 when none.
int64_t opsetDemand(const std::vector<std::unique_ptr<Pass>>& passes, const Graph& graph, const PassConfig& config,
                    const std::set<std::string>& anchors) {
    int64_t demand = 0;
    for (const auto& p : passes) {
        int64_t need = p->requiredOpset();
        if (need <= config.opset || need <= demand) continue;
        auto probe = PassRegistry::instance().create(p->name());
        PassConfig at = config;
        at.opset = need;
        probe->configure(at);
        for (const auto& m : probe->findMatches(graph))
            if (m.applicable() && chosen(anchors, m)) {
                demand = need;
                break;
            }
    }
    return demand;
}

int64_t newestRequiredOpset() {
    int64_t newest = 0;
    for (const auto& p : PassRegistry::instance().createAll()) newest = std::max(newest, p->requiredOpset());
    return newest;
}

std::string matchKey(const std::string& pass, const Match& m) {
    std::string k = pass;
    for (const auto& n : m.nodes) k += "|" + n;
    return k;
}
}  // namespace

std::map<std::string, int> opHistogram(const Graph& graph) {
    std::map<std::string, int> h;
    for (const auto& n : graph.nodes) ++h[n.opType];
    return h;
}

InputSets proofInputs(const Model& model, const ProofOptions& options) {
    auto shared = std::make_shared<const Model>(model);
    SessionOptions inputsOnly;  // only makes inputs: no backend plugin to load, no rewrites to run
    inputsOnly.executor.backend = kReferenceBackend;
    inputsOnly.exactRewrites = false;
    Session session(shared, inputsOnly);
    InputSets sets;
    for (int k = 0; k < options.randomInputSets; ++k) {
        uint64_t seed = options.seed + static_cast<uint64_t>(k);
        std::map<std::string, Tensor> set;
        std::mt19937_64 rng(seed * 7919 + 17);
        std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
        bool needGenerated = false;
        for (const auto& in : session.inputs()) {
            auto it = options.inputShapes.find(in.name);
            if (it == options.inputShapes.end()) {
                needGenerated = true;
                continue;
            }
            Tensor t(in.type.dtype, it->second);
            if (t.dtype() == DType::F32)
                for (auto& v : t.values<float>()) v = uniform(rng);
            set[in.name] = t;
        }
        if (needGenerated)
            for (auto& [name, t] : makeInputs(session, seed, options.symbolicDimValue))
                if (!set.count(name)) set[name] = t;
        sets.push_back(std::move(set));
    }
    for (const auto& c : options.calibrationSets) sets.push_back(c);
    return sets;
}

InputSets runOnSets(const Model& model, const InputSets& sets, const ExecutorOptions& executor) {
    // The model as it stands: the Session's own exact rewrites would otherwise make both sides of a proof alike.
    SessionOptions asGiven;
    asGiven.executor = executor;
    asGiven.exactRewrites = false;
    Session session(std::make_shared<const Model>(model), asGiven);
    InputSets outs;
    for (const auto& s : sets) outs.push_back(session.runTensors(s));
    return outs;
}

Proof compareOutputs(const InputSets& reference, const InputSets& candidate, double tolerance) {
    Proof p;
    p.inputSets = static_cast<int>(reference.size());
    for (size_t s = 0; s < reference.size() && p.failure.empty(); ++s) {
        for (const auto& [name, ref] : reference[s]) {
            auto it = candidate[s].find(name);
            if (it == candidate[s].end()) {
                p.failure = "output '" + name + "' is missing";
                break;
            }
            const Tensor& got = it->second;
            if (got.shape() != ref.shape() || got.dtype() != ref.dtype()) {
                p.failure = "output '" + name + "' changed from " + shapeToString(ref.shape()) + " to " +
                            shapeToString(got.shape());
                break;
            }
            for (int64_t i = 0; i < ref.numel(); ++i) {
                double a = ref.elementAsDouble(i), b = got.elementAsDouble(i);
                if (std::isnan(a) != std::isnan(b)) {
                    p.failure = "output '" + name + "' has a NaN where the original has none (or the reverse)";
                    break;
                }
                if (std::isnan(a)) continue;
                p.refMaxAbs = std::max(p.refMaxAbs, std::fabs(a));
                double d = std::fabs(a - b);
                if (!(d <= p.maxAbsDiff)) p.maxAbsDiff = std::isfinite(d) ? d : (a == b ? 0.0 : HUGE_VAL);
            }
            if (!p.failure.empty()) break;
        }
    }
    p.maxRelDiff = p.refMaxAbs > 0 ? p.maxAbsDiff / p.refMaxAbs : p.maxAbsDiff;
    double limit = tolerance * std::max(1.0, p.refMaxAbs);
    if (p.failure.empty() && p.maxAbsDiff > limit)
        p.failure = "max abs difference " + std::to_string(p.maxAbsDiff) + " exceeds the tolerance " +
                    std::to_string(limit);
    p.passed = p.failure.empty();
    return p;
}

OptimizeResult optimize(const Model& model, const OptimizerOptions& options) {
    PassConfig config = options.config;
    config.opset = model.opset("") > 0 ? model.opset("") : 13;
    config.inputShapes = options.proof.inputShapes;
    config.executor = options.proof.executor;
    config.symbolicDimValue = options.proof.symbolicDimValue;
    auto passes = selectPasses(options, config);
    // upgrade_opset runs first in a round: when asked for, or when a selected pass needs a newer opset.
    const bool upgradeAsked =
        std::find(options.passes.begin(), options.passes.end(), kUpgradePass) != options.passes.end();
    auto upgrade = PassRegistry::instance().create(kUpgradePass);
    const std::set<std::string> anchors(options.onlyAt.begin(), options.onlyAt.end());
    OptimizeResult r;
    Model cur = model;
    nameAllNodes(cur.graph);
    // cur's index, shared by the passes until a rewrite replaces cur (it points into cur's nodes).
    std::optional<GraphIndex> curIndex;
    auto indexOfCur = [&]() -> const GraphIndex& {
        if (!curIndex) curIndex.emplace(cur.graph);
        return *curIndex;
    };
    auto replaceCur = [&](Model&& next) {
        curIndex.reset();
        cur = std::move(next);
    };
    r.nodesBefore = cur.graph.nodes.size();
    r.opsBefore = opHistogram(cur.graph);
    InputSets sets = proofInputs(cur, options.proof);
    InputSets original;
    try {
        original = runOnSets(cur, sets, options.proof.executor);
    } catch (const Error& e) {
        failInput(std::string("the original model does not run on the proof inputs, nothing can be proven: ") + e.what());
    }
    InputSets refCur = original;
    std::set<std::string> rejected;

    // Tries `matches` on `base`; on success `out` and `outputs` hold the rewritten model and its results.
    auto attempt = [&](const Pass& pass, const Model& base, const std::vector<Match>& matches, Model& out,
                       InputSets& outputs, std::vector<Match>& done) -> Proof {
        Proof p;
        out = base;
        done.clear();
        try {
            done = matches;  // a rewrite that throws is reported and rolled back, not silently dropped
            done = pass.applyAll(out, matches);
            if (done.empty()) return p;
            out = finalize(out);
            outputs = runOnSets(out, sets, options.proof.executor);
            p = compareOutputs(refCur, outputs, options.proof.tolerance);
        } catch (const Error& e) {
            p.passed = false;
            p.failure = std::string("the rewritten model is invalid: ") + e.what();
        }
        return p;
    };

    // Runs one pass on `cur` (its matches as one proven batch, culprits rolled back one by one); true if it changed.
    auto runPass = [&](const Pass& pass) -> bool {
        bool changed = false;
        std::vector<Match> matches;
        const bool restricted = pass.name() != kUpgradePass;  // the opset upgrade serves the chosen sites
        for (auto& m : pass.findMatchesIndexed(cur.graph, indexOfCur()))
            if (m.applicable() && (!restricted || chosen(anchors, m)) && !rejected.count(matchKey(pass.name(), m)))
                matches.push_back(std::move(m));
        if (matches.empty()) return false;
        Model next;
        InputSets outputs;
        std::vector<Match> done;
        Proof p = attempt(pass, cur, matches, next, outputs, done);
        if (done.empty()) return false;
        if (p.passed) {
            for (const auto& m : done)
                r.applied.push_back({pass.name(), pass.guideSection(), m, p, static_cast<int>(done.size()), ""});
            say(options, pass.name() + ": " + std::to_string(done.size()) + " rewrite(s), max abs diff " +
                             std::to_string(p.maxAbsDiff));
            replaceCur(std::move(next));
            refCur = std::move(outputs);
            return true;
        }
        // The batch failed: retry one by one so only the culprits are rolled back.
        std::vector<Match> batch = done;
        for (const auto& m : batch) {
            Proof one = attempt(pass, cur, {m}, next, outputs, done);
            if (done.empty()) continue;
            if (one.passed) {
                r.applied.push_back({pass.name(), pass.guideSection(), m, one, 1, ""});
                replaceCur(std::move(next));
                refCur = std::move(outputs);
                changed = true;
            } else {
                rejected.insert(matchKey(pass.name(), m));
                std::string err = "pass '" + pass.name() + "' at node '" + m.nodes.front() + "' rolled back: " +
                                  one.failure;
                r.rolledBack.push_back({pass.name(), pass.guideSection(), m, one, 1, err});
                say(options, "error: " + err);
            }
        }
        return changed;
    };

    for (r.rounds = 1; r.rounds <= options.maxRounds; ++r.rounds) {
        bool changed = false;
        config.targetOpset = upgradeAsked ? newestRequiredOpset() : opsetDemand(passes, cur.graph, config, anchors);
        upgrade->configure(config);
        if (runPass(*upgrade)) {
            changed = true;
            config.opset = cur.opset("");
            for (auto& pass : passes) pass->configure(config);  // attribute-vs-input forms follow the new opset
        }
        for (const auto& pass : passes) changed = runPass(*pass) || changed;
        if (!changed) break;
    }
    for (const auto& pass : passes)
        for (auto& m : pass->findMatchesIndexed(cur.graph, indexOfCur()))
            if (!m.applicable()) r.nearMisses.push_back({pass->name(), std::move(m)});
    // refCur holds cur's outputs on the proof inputs (each accepted rewrite replaced both together).
    r.endToEnd = compareOutputs(original, refCur, options.proof.tolerance);
    r.nodesAfter = cur.graph.nodes.size();
    r.opsAfter = opHistogram(cur.graph);
    r.model = std::move(cur);
    return r;
}

}  // namespace npuwb::passes
