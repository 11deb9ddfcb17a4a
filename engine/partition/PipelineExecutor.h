#pragma once
// Runs a chain of stages on this machine: each unit is a pinned Worker, each stage a Session (the engine's public
// API) on the unit's backend, frames flow from worker to worker through bounded queues with at most `maxInFlight`
// frames admitted at once (1: serial). Every stage of every frame is recorded (ready, start, end) as a measured
// trace in the report's timeline format. Also calibrates: per-node costs of each unit (a profile run on its
// worker), stage times, and the hand-off latency between two workers.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "npuwb/DeviceProfile.h"
#include "npuwb/Report.h"
#include "npuwb/Session.h"
#include "partition/Partitioner.h"
#include "partition/Worker.h"

namespace npuwb::partition {

/// A stage as a model of its own: its nodes, the constants they need, its inputs and outputs as graph inputs and
/// outputs (typed from the full model).
std::shared_ptr<const Model> stageModel(const Model& full, const std::vector<size_t>& graphNodes,
                                        const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                                        const std::string& name);

struct ExecStep {
    std::string name;
    int unit = 0;  // worker index
    std::shared_ptr<const Session> session;
    std::vector<std::string> inputs;   // read from the frame's values
    std::vector<std::string> outputs;  // written to them
    std::vector<std::string> release;  // values no later step reads: dropped after this step
};

struct ExecChain {
    std::string name;  // single | serial | pipelined
    std::vector<ExecStep> steps;
    int maxInFlight = 1;
};

struct MeasuredSchedule {
    ScheduleFigures figures;
    Trace trace;  // source "measured"
};

class LocalExecutor {
public:
    /// One worker per unit (in `units` order), pinned as its executor says. Throws naming a unit without one.
    LocalExecutor(const DeviceProfile& device, const std::vector<std::string>& units, size_t queueCapacity,
                  const std::atomic<bool>* cancel);

    const DeviceUnit& unit(int index) const { return units_.at(size_t(index)); }
    size_t unitCount() const { return units_.size(); }
    /// A session for `model` on the unit's backend and threads.
    std::shared_ptr<const Session> session(int unit, std::shared_ptr<const Model> model) const;

    /// Per-node median times of the whole model on `unit`, in the execution order of `nodeNames` (a profile run on
    /// the unit's worker).
    std::vector<double> nodeTimes(int unit, std::shared_ptr<const Model> model, const std::vector<std::string>& nodeNames,
                                  const std::map<std::string, Tensor>& inputs, int runs) ;
    /// Median time of each step, run alone on its worker (after one warm-up pass of the chain).
    std::vector<double> calibrateSteps(const ExecChain& chain, const std::map<std::string, Tensor>& inputs, int runs);
    /// What a stage boundary costs on `unit` (session entry, layout conversion at the cut, fusion lost across it):
    /// the model cut into `pieces` stages of equal cost (WorkGraph costs of the unit), run one after another on
    /// the unit, minus the whole model, per boundary (fastest of `runs` each; never below 0).
    double stageOverheadUs(int unit, const WorkGraph& work, const std::map<std::string, Tensor>& inputs, int runs,
                           int pieces = 4);
    /// Median one-way hand-off latency between the workers of units 0 and 1 (0 with fewer than two units).
    double handoffUs(int roundTrips);
    /// Runs `frames` frames (after `warmup` unrecorded ones) through the chain.
    MeasuredSchedule run(const ExecChain& chain, const std::map<std::string, Tensor>& inputs, int frames, int warmup);

private:
    void checkCancel() const;
    std::vector<DeviceUnit> units_;
    std::vector<std::unique_ptr<Worker>> workers_;
    const std::atomic<bool>* cancel_;
};

}  // namespace npuwb::partition
