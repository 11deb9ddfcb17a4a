#pragma once
// The schedule arithmetic: frames flow through a chain of steps, each occupying one lane (a unit, or the link
// a hand-off crosses); a free lane takes the oldest frame waiting for it (first come, first served would let a
// long stage of one frame hold up the short stages of the frames behind it on a unit the chain revisits); at most
// `maxInFlight` frames are between admission and their last step. That one rule gives all three schedules:
//   single     one step (the whole model on one unit), one frame at a time: frames x model time;
//   serial     the stages and hand-offs one frame at a time (maxInFlight 1): frames x (stages + syncs per cut);
//   pipelined  frames overlap (stage N of frame f on one unit while another unit runs frame f+1): after the fill,
//              one frame per busiest-lane load; the last frame drains through the rest.
// The predicted timelines come out of this simulation; the executor measures the same chain.
#include <string>
#include <vector>

#include "npuwb/Report.h"
#include "partition/Partitioner.h"

namespace npuwb::partition {

struct ChainStep {
    std::string name;
    int lane = 0;
    double us = 0;
    int handoffLane = -1;  // a hand-off before the step (sync + transfer), on a link lane; -1: none
    double handoffUs = 0;
};

struct ChainSchedule {
    std::string name;  // single | serial | pipelined
    std::vector<std::string> lanes;
    std::vector<ChainStep> steps;
    int maxInFlight = 1;
    int frames = 1;
};

struct SimulatedSchedule {
    ScheduleFigures figures;
    Trace trace;  // source "predicted"
};

/// Without `withTrace` only the figures are made (the planner compares placements by them).
SimulatedSchedule simulate(const ChainSchedule& schedule, bool withTrace = true);

/// The whole model as one step on `unit`, taking `modelUs` per frame.
ChainSchedule singleUnitSchedule(const WorkGraph& work, int unit, double modelUs, int frames);
/// The stages of `plan` with `stageUs` per stage (the plan's compute sums, or calibrated times) and hand-offs on
/// link lanes. `maxInFlight` 1 is the serial schedule.
ChainSchedule stageChainSchedule(const WorkGraph& work, const StagePlan& plan, const std::vector<double>& stageUs,
                                 const std::string& name, int maxInFlight, int frames);

/// "s3 NPU: 'qkv_2'..'scores_2'"
std::string stageName(const WorkGraph& work, const StagePlan& plan, size_t stage);

}  // namespace npuwb::partition
