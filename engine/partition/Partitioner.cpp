#include "partition/Partitioner.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "npuwb/Error.h"
#include "partition/Schedule.h"

namespace npuwb::partition {

namespace {

std::string us(double v) {
    char buf[64];
    if (v >= 1000) std::snprintf(buf, sizeof buf, "%.2f ms", v / 1000);
    else std::snprintf(buf, sizeof buf, "%.0f us", v);
    return buf;
}

/// Value ids, producers and consumers, built once so a placement evaluates in one pass over the nodes.
class Evaluator {
public:
    Evaluator(const WorkGraph& work, const TransferCost& transfer) : work_(work), transfer_(transfer) {
        for (const auto& [name, v] : work.values) {
            ids_[name] = static_cast<int>(names_.size());
            names_.push_back(name);
            bytes_.push_back(v.bytes);
            producer_.push_back(v.producer);
            graphOutput_.push_back(v.graphOutput);
        }
        consumers_.resize(names_.size());
        inputsOf_.resize(work.nodes.size());
        outputsOf_.resize(work.nodes.size());
        for (size_t n = 0; n < work.nodes.size(); ++n) {
            for (const auto& in : work.nodes[n].inputs) {
                auto it = ids_.find(in);
                if (it == ids_.end()) continue;  // an outer-scope or unknown value: nothing to hand over
                if (std::find(inputsOf_[n].begin(), inputsOf_[n].end(), it->second) != inputsOf_[n].end()) continue;
                inputsOf_[n].push_back(it->second);
                consumers_[it->second].push_back(static_cast<int>(n));
            }
            for (const auto& out : work.nodes[n].outputs) outputsOf_[n].push_back(ids_.at(out));
        }
    }

    /// Loads of a placement; with `detail`, also its stages and cuts.
    StagePlan evaluate(const std::vector<int>& unitOf, bool detail) const {
        const size_t units = work_.units.size();
        StagePlan plan;
        plan.unitLoadUs.assign(units, 0.0);
        std::vector<int> stageOf(work_.nodes.size(), 0);
        std::vector<uint64_t> deliveredTo(names_.size(), 0);  // bit u: value already on unit u
        int stage = -1, stageUnit = -1;
        Stage current;
        auto closeStage = [&] {
            if (stage >= 0 && detail) plan.stages.push_back(std::move(current));
            current = Stage{};
        };
        for (size_t n = 0; n < work_.nodes.size(); ++n) {
            const int u = unitOf[n];
            if (u != stageUnit) {
                closeStage();
                ++stage;
                current.unit = u;
                if (stage > 0) {
                    // Hand-off into the new stage: one sync, plus every value it will read from other units.
                    double handoff = transfer_.syncUs;
                    int64_t handoffBytes = 0;
                    for (size_t m = n; m < work_.nodes.size() && unitOf[m] == u; ++m)
                        for (int v : inputsOf_[m]) {
                            int p = producer_[v];
                            if (p < 0 || unitOf[p] == u || (deliveredTo[v] >> u & 1)) continue;
                            deliveredTo[v] |= uint64_t(1) << u;
                            handoffBytes += bytes_[v];
                            if (detail)
                                plan.cuts.push_back({.value = names_[v], .bytes = bytes_[v], .fromStage = stageOf[p],
                                                     .toStage = stage, .fromUnit = unitOf[p], .toUnit = u});
                        }
                    handoff += transferUs(handoffBytes, transfer_);
                    current.handoffBytes = handoffBytes;
                    current.handoffUs = handoff;
                    plan.linkLoadUs[{std::min(stageUnit, u), std::max(stageUnit, u)}] += handoff;
                    plan.serialUs += handoff;
                    // Every stage after the first costs its unit a little more (launch, layout at the cut).
                    const double entry = u < int(work_.stageOverheadUs.size()) ? work_.stageOverheadUs[size_t(u)] : 0;
                    current.computeUs += entry;
                    plan.unitLoadUs[size_t(u)] += entry;
                    plan.serialUs += entry;
                }
                stageUnit = u;
            }
            stageOf[n] = stage;
            const double cost = work_.nodes[n].costUs[u];
            plan.unitLoadUs[u] += cost;
            plan.serialUs += cost;
            current.computeUs += cost;
            if (detail) current.nodes.push_back(static_cast<int>(n));
        }
        closeStage();
        plan.boundUs = 0;
        for (double l : plan.unitLoadUs) plan.boundUs = std::max(plan.boundUs, l);
        for (const auto& [link, l] : plan.linkLoadUs) plan.boundUs = std::max(plan.boundUs, l);
        if (detail) fillStageValues(plan, stageOf);
        return plan;
    }

    const WorkGraph& work() const { return work_; }

private:
    void fillStageValues(StagePlan& plan, const std::vector<int>& stageOf) const {
        for (size_t s = 0; s < plan.stages.size(); ++s) {
            Stage& st = plan.stages[s];
            std::set<int> seen;
            for (int n : st.nodes) {
                for (int v : inputsOf_[n]) {
                    int p = producer_[v];
                    if ((p < 0 || stageOf[p] != int(s)) && seen.insert(v).second) st.inputs.push_back(names_[v]);
                }
                for (int v : outputsOf_[n]) {
                    bool later = graphOutput_[v];
                    for (int c : consumers_[v]) later = later || stageOf[c] > int(s);
                    if (later) st.outputs.push_back(names_[v]);
                }
            }
        }
    }

    const WorkGraph& work_;
    const TransferCost& transfer_;
    std::map<std::string, int> ids_;
    std::vector<std::string> names_;
    std::vector<int64_t> bytes_;
    std::vector<int> producer_;
    std::vector<bool> graphOutput_;
    std::vector<std::vector<int>> consumers_, inputsOf_, outputsOf_;
};

struct Run {
    int unit = 0;
    size_t begin = 0, end = 0;  // node range [begin, end)
};

std::vector<Run> runsOf(const std::vector<int>& unitOf) {
    std::vector<Run> runs;
    for (size_t n = 0; n < unitOf.size(); ++n) {
        if (runs.empty() || runs.back().unit != unitOf[n]) runs.push_back({unitOf[n], n, n});
        runs.back().end = n + 1;
    }
    return runs;
}

bool canRun(const WorkGraph& work, size_t begin, size_t end, int unit) {
    for (size_t n = begin; n < end; ++n)
        if (std::isinf(work.nodes[n].costUs[unit])) return false;
    return true;
}

double computeOn(const WorkGraph& work, size_t begin, size_t end, int unit) {
    double sum = 0;
    for (size_t n = begin; n < end; ++n) sum += work.nodes[n].costUs[unit];
    return sum;
}

std::string rangeLabel(const WorkGraph& work, size_t begin, size_t end) {
    if (end - begin == 1) return "'" + work.nodes[begin].name + "'";
    return "'" + work.nodes[begin].name + "'..'" + work.nodes[end - 1].name + "' (" + std::to_string(end - begin) +
           " nodes)";
}

void affinityStep(const WorkGraph& work, Placement& p) {
    const size_t units = work.units.size();
    for (size_t n = 0; n < work.nodes.size(); ++n) {
        const WorkNode& node = work.nodes[n];
        std::vector<int> runnable;
        for (size_t u = 0; u < units; ++u)
            if (!std::isinf(node.costUs[u])) runnable.push_back(int(u));
        if (runnable.empty()) {
            std::string why;
            for (size_t u = 0; u < units; ++u) why += (why.empty() ? "" : "; ") + node.costNote[u];
            failInput("node '" + node.name + "' (" + node.opType + "): no unit can run it (" + why + ")");
        }
        double best = kCannotRun;
        for (int u : runnable) best = std::min(best, node.costUs[u]);
        std::vector<int> cheapest;
        for (int u : runnable)
            if (node.costUs[u] <= best * (1 + 1e-12)) cheapest.push_back(u);
        int chosen = cheapest.front();
        // Equal costs (constants, folded ops): stay with the unit that makes the node's first input.
        if (cheapest.size() > 1 && !node.inputs.empty()) {
            auto it = work.values.find(node.inputs.front());
            if (it != work.values.end() && it->second.producer >= 0) {
                int producerUnit = p.unitOf[size_t(it->second.producer)];
                if (std::find(cheapest.begin(), cheapest.end(), producerUnit) != cheapest.end()) chosen = producerUnit;
            }
        }
        p.unitOf[n] = chosen;
        if (runnable.size() == 1) {
            p.step[n] = PlanStep::Only;
            p.reason[n] = "only " + work.units[size_t(chosen)] + " can run it";
            for (size_t u = 0; u < units; ++u)
                if (int(u) != chosen) p.reason[n] += "; " + node.costNote[u];
            continue;
        }
        p.step[n] = PlanStep::Affinity;
        if (cheapest.size() > 1) {
            p.reason[n] = "affinity: same cost (" + us(best) + ") on " + std::to_string(cheapest.size()) +
                          " units; stays with its input on " + work.units[size_t(chosen)];
            continue;
        }
        std::string others;
        for (int u : runnable)
            if (u != chosen) others += (others.empty() ? "" : ", ") + work.units[size_t(u)] + " " + us(node.costUs[u]);
        p.reason[n] = "affinity: " + node.opClass + " cheapest on " + work.units[size_t(chosen)] + " (" + us(best) +
                      "; " + others + ")";
    }
    // Constants cost nothing anywhere (each stage computes the ones it reads): they join the run before them, or
    // the first run when they lead, so they never open a stage of their own.
    int firstComputing = -1;
    for (size_t n = 0; n < work.nodes.size() && firstComputing < 0; ++n)
        if (!work.nodes[n].constantOnly) firstComputing = p.unitOf[n];
    for (size_t n = 0; n < work.nodes.size(); ++n) {
        if (!work.nodes[n].constantOnly || p.step[n] == PlanStep::Only) continue;
        const int unit = n > 0 ? p.unitOf[n - 1] : std::max(firstComputing, 0);
        if (std::isinf(work.nodes[n].costUs[size_t(unit)])) continue;
        p.unitOf[n] = unit;
        p.reason[n] = "affinity: computed from constants only (free on every unit); stays with its neighbours on " +
                      work.units[size_t(unit)];
    }
}

/// Moves whole runs to the unit where one frame's serial time (compute + hand-offs) is lowest, one move at a time.
void localityStep(const Evaluator& eval, Placement& p) {
    const WorkGraph& work = eval.work();
    for (size_t iteration = 0; iteration < 4 * work.nodes.size() + 4; ++iteration) {
        const double before = eval.evaluate(p.unitOf, false).serialUs;
        double bestDelta = -1e-9 * std::max(1.0, before);
        Run bestRun;
        int bestUnit = -1;
        for (const Run& r : runsOf(p.unitOf))
            for (size_t v = 0; v < work.units.size(); ++v) {
                if (int(v) == r.unit || !canRun(work, r.begin, r.end, int(v))) continue;
                std::vector<int> trial = p.unitOf;
                std::fill(trial.begin() + long(r.begin), trial.begin() + long(r.end), int(v));
                double delta = eval.evaluate(trial, false).serialUs - before;
                if (delta < bestDelta) {
                    bestDelta = delta;
                    bestRun = r;
                    bestUnit = int(v);
                }
            }
        if (bestUnit < 0) return;
        const double gain = computeOn(work, bestRun.begin, bestRun.end, bestUnit) -
                            computeOn(work, bestRun.begin, bestRun.end, bestRun.unit);
        const std::string reason = "locality: stays with its neighbours on " + work.units[size_t(bestUnit)] + " (" +
                                   rangeLabel(work, bestRun.begin, bestRun.end) + " on " +
                                   work.units[size_t(bestRun.unit)] + " would save " + us(gain) +
                                   " of compute, but its hand-offs cost " + us(gain - bestDelta) + ")";
        for (size_t n = bestRun.begin; n < bestRun.end; ++n) {
            p.unitOf[n] = bestUnit;
            p.step[n] = PlanStep::Locality;
            p.reason[n] = reason;
        }
    }
}

/// Predicted pipelined time per frame of a placement (the schedule simulation, without its timeline).
double pipelinedUs(const Evaluator& eval, const std::vector<int>& unitOf, const PipelineTarget& target) {
    StagePlan plan = eval.evaluate(unitOf, true);
    std::vector<double> stageUs;
    for (const Stage& st : plan.stages) stageUs.push_back(st.computeUs);
    const int frames = std::clamp(target.frames, 1, 64);  // enough for fill and steady state to weigh as they will
    ChainSchedule chain = stageChainSchedule(eval.work(), plan, stageUs, "pipelined", target.maxInFlight, frames);
    return simulate(chain, false).figures.makespanUs / frames;
}

/// Moves a run, its head or tail, or everything before or after a node to another unit, one move at a time, while
/// that lowers the predicted pipelined time per frame.
void balanceStep(const Evaluator& eval, Placement& p, const PipelineTarget& target) {
    const WorkGraph& work = eval.work();
    const size_t n = work.nodes.size();
    const double fillShare = 1.0 - 1.0 / std::clamp(target.frames, 2, 64);
    double current = pipelinedUs(eval, p.unitOf, target);
    for (size_t iteration = 0; iteration < 4 * n + 4; ++iteration) {
        std::vector<std::pair<size_t, size_t>> segments;
        for (const Run& r : runsOf(p.unitOf)) {
            segments.push_back({r.begin, r.end});
            for (size_t k = r.begin + 1; k < r.end; ++k) {
                segments.push_back({r.begin, k});  // a head of the run
                segments.push_back({k, r.end});    // a tail of the run
            }
        }
        for (size_t k = 1; k < n; ++k) {
            segments.push_back({0, k});  // everything before node k
            segments.push_back({k, n});  // everything from node k on
        }
        double best = current * (1 - 1e-6);
        size_t bestBegin = 0, bestEnd = 0;
        int bestUnit = -1;
        for (const auto& [b, e] : segments)
            for (size_t v = 0; v < work.units.size(); ++v) {
                bool changes = false;
                for (size_t m = b; m < e && !changes; ++m) changes = p.unitOf[m] != int(v);
                if (!changes || !canRun(work, b, e, int(v))) continue;
                std::vector<int> trial = p.unitOf;
                std::fill(trial.begin() + long(b), trial.begin() + long(e), int(v));
                // The busiest lane bounds the pipelined time from below: skip what cannot win before simulating.
                if (eval.evaluate(trial, false).boundUs * fillShare >= best) continue;
                double t = pipelinedUs(eval, trial, target);
                if (t >= best) continue;
                best = t;
                bestBegin = b;
                bestEnd = e;
                bestUnit = int(v);
            }
        if (bestUnit < 0) return;
        const StagePlan before = eval.evaluate(p.unitOf, false);
        std::vector<int> next = p.unitOf;
        std::fill(next.begin() + long(bestBegin), next.begin() + long(bestEnd), bestUnit);
        const StagePlan after = eval.evaluate(next, false);
        std::string loads;
        for (size_t u = 0; u < work.units.size(); ++u)
            loads += (loads.empty() ? "" : ", ") + work.units[u] + " " + us(before.unitLoadUs[u]) + " -> " +
                     us(after.unitLoadUs[u]);
        const std::string reason = "balance: moved to " + work.units[size_t(bestUnit)] + " with " +
                                   rangeLabel(work, bestBegin, bestEnd) + ": per-frame load " + loads +
                                   "; predicted pipelined time per frame " + us(current) + " -> " + us(best);
        for (size_t m = bestBegin; m < bestEnd; ++m)
            if (p.unitOf[m] != bestUnit) {
                p.step[m] = PlanStep::Balance;
                p.reason[m] = reason;
            }
        p.unitOf = std::move(next);
        current = best;
    }
}

}  // namespace

const char* planStepName(PlanStep step) {
    switch (step) {
        case PlanStep::Only: return "only";
        case PlanStep::Affinity: return "affinity";
        case PlanStep::Locality: return "locality";
        case PlanStep::Balance: return "balance";
    }
    return "affinity";
}

Placement placeNodes(const WorkGraph& work, const TransferCost& transfer, const std::string& strategy,
                     const PipelineTarget& target) {
    if (strategy != "affinity" && strategy != "locality" && strategy != "balanced")
        failInput("partition strategy must be affinity, locality or balanced, got '" + strategy + "'");
    if (work.units.empty()) failInput("partition: no units to place nodes on");
    if (work.units.size() > 64) failInput("partition: at most 64 units");
    Placement p;
    p.unitOf.assign(work.nodes.size(), 0);
    p.step.assign(work.nodes.size(), PlanStep::Affinity);
    p.reason.assign(work.nodes.size(), "");
    affinityStep(work, p);
    Evaluator eval(work, transfer);
    if (strategy != "affinity") localityStep(eval, p);
    if (strategy == "balanced") balanceStep(eval, p, target);
    return p;
}

StagePlan buildStages(const WorkGraph& work, const std::vector<int>& unitOf, const TransferCost& transfer) {
    return Evaluator(work, transfer).evaluate(unitOf, true);
}

std::string linkName(const WorkGraph& work, std::pair<int, int> link) {
    return work.units[size_t(link.first)] + "<->" + work.units[size_t(link.second)];
}

}  // namespace npuwb::partition
