#pragma once
// Assigns every node to a unit in three steps (the split principles of "NPU/GPU operator partitioning with pipeline
// parallelism on Snapdragon X2 Elite", 3.1):
//   affinity  each node on the unit where it is cheapest;
//   locality  a run of nodes goes back to its neighbours' unit when the hand-offs cost more than it gains
//             (objective: the serial time of one frame);
//   balance   a run (or its head or tail), or everything before or after a node, moves to another unit while
//             that lowers the predicted pipelined time per frame (the schedule simulation of Schedule.h: the
//             busiest lane bounds it, a chain that revisits units falls short of the bound).
// Stages are the maximal runs of consecutive nodes on one unit; a value crossing units is handed off when the
// stage that first needs it on the new unit starts.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "partition/WorkGraph.h"

namespace npuwb::partition {

enum class PlanStep { Only, Affinity, Locality, Balance };
const char* planStepName(PlanStep step);

struct Placement {
    std::vector<int> unitOf;  // per WorkGraph node
    std::vector<PlanStep> step;
    std::vector<std::string> reason;
};

struct Stage {
    int unit = 0;
    std::vector<int> nodes;            // WorkGraph node indices, in order
    double computeUs = 0;              // sum of the nodes' costs on the unit
    std::vector<std::string> inputs;   // values made before this stage (or given by the caller) that it reads
    std::vector<std::string> outputs;  // values it makes that later stages (or the caller) read
    int64_t handoffBytes = 0;          // bytes handed over from other units when it starts
    double handoffUs = 0;              // sync + those bytes at the transfer rate (0 for the first stage)
};

struct Cut {
    std::string value;
    int64_t bytes = 0;
    int fromStage = 0, toStage = 0;
    int fromUnit = 0, toUnit = 0;
};

/// The stages of a placement and what they cost per frame.
struct StagePlan {
    std::vector<Stage> stages;
    std::vector<Cut> cuts;
    std::vector<double> unitLoadUs;                 // per unit: compute per frame
    std::map<std::pair<int, int>, double> linkLoadUs;  // per unit pair (low, high): hand-offs per frame
    double serialUs = 0;  // one frame, one unit at a time: all compute + all hand-offs
    double boundUs = 0;   // the busiest lane per frame: what pipelining can at best reach
};

/// What the balance step optimises: the pipelined schedule over `frames` frames with `maxInFlight` in flight.
struct PipelineTarget {
    int frames = 100;
    int maxInFlight = 4;
};

/// Frames in flight when the caller leaves it open: two per unit, one running and one waiting.
inline int defaultFramesInFlight(size_t units) { return int(2 * units); }

/// `strategy`: "affinity", "locality" or "balanced" (each includes the steps before it). Throws InvalidInput
/// naming a node that no unit can run.
Placement placeNodes(const WorkGraph& work, const TransferCost& transfer, const std::string& strategy,
                     const PipelineTarget& target = {});

StagePlan buildStages(const WorkGraph& work, const std::vector<int>& unitOf, const TransferCost& transfer);

/// "NPU<->GPU"
std::string linkName(const WorkGraph& work, std::pair<int, int> link);

}  // namespace npuwb::partition
