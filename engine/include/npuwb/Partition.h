#pragma once
// Heterogeneous partitioning with pipeline parallelism: split a model over the units of a device profile
// (npuwb/DeviceProfile.h), predict three schedules (single unit, serial heterogeneous, pipelined) and, when every
// unit has a local executor, run them and measure. The result is a Report of kind "partition": the plan (every
// node's unit and why, stages, cut tensors), predicted and measured figures per schedule, and their timelines in
// the report's trace format (Report::traces).
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "npuwb/DeviceProfile.h"
#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"

namespace npuwb {

struct PartitionOptions {
    /// Units of the profile to use, in its order when empty: all of them.
    std::vector<std::string> units;
    /// "affinity": each node on its cheapest unit; "locality": + neighbours stay together unless the gain beats the
    /// hand-offs; "balanced": + load balance for pipelining.
    std::string strategy = "balanced";
    /// Schedules to predict (and run): any of "single", "serial", "pipelined".
    std::vector<std::string> schedules = {"single", "serial", "pipelined"};
    /// Unit of the single-unit schedule; empty: the one that runs the whole model fastest.
    std::string singleUnit;
    int frames = 100;
    /// Frames between admission and completion in the pipelined schedule; 0: two per unit (one running, one
    /// waiting). A free unit takes the oldest frame waiting for it.
    int maxFramesInFlight = 0;
    /// Run the schedules when every unit has an executor (otherwise predict only).
    bool execute = true;
    int warmupFrames = 2;
    int calibrationRuns = 5;  // runs per stage (and per unit for node costs) when calibrating
    int64_t symbolicDimValue = 1;
    uint64_t seed = 1;  // generated inputs
};

struct PartitionControl {
    /// (phase, done, total): phases "costs", "plan", "calibrate", "single", "serial", "pipelined".
    std::function<void(const std::string&, int, int)> progress;
    const std::atomic<bool>* cancel = nullptr;
};

/// Plans, predicts and (when possible and asked) executes. Throws InvalidInput naming an unknown unit or schedule,
/// a node no unit can run, or a unit whose executor cannot start; Error(Cancelled) when cancelled.
Report partitionModel(std::shared_ptr<const Model> model, const DeviceProfile& device,
                      const PartitionOptions& options = {}, const PartitionControl& control = {});

/// The figures of one schedule in a partition report; throws InvalidInput when it is absent.
const ScheduleResult& scheduleResult(const Report& report, const std::string& schedule);

}  // namespace npuwb
