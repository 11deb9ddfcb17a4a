#pragma once
// Per-layer times of a run, taken from the engine's execution observer, written as the vendor's perf-detail table
// (RKNN_QUERY_PERF_DETAIL: "Network Layer Information Table", the per-frame totals, "Operator Time Consuming Ranking
// Table"; RKNN SDK user guide V2.5.0, 5.2 performance analysis), so code that reads the vendor's text reads this.
#include <chrono>
#include <string>
#include <vector>

#include "npuwb/ExecutionObserver.h"
#include "npuwb/Session.h"

namespace npuwb::standin {

class LayerTimes : public ExecutionObserver {
public:
    /// Clears the times (not the shapes learnt): one rknn_run may execute the model once per batch item.
    void startRun();
    /// The table of the times since startRun(), for a run of `items` batch items: shapes are one item's, Time(us)
    /// and RW(KB) cover all items. Target is CPU (the stand-in computes on the CPU); the NPU-only columns (cycles,
    /// MAC usage, workload) are "\" as the vendor prints for layers without them.
    std::string table(const Session& session, int64_t items) const;

    void runStarted(size_t nodeCount) override;
    void nodeStarted(size_t step, const Node& node) override;
    void nodeFinished(size_t step, const Node& node, const std::vector<const Value*>& inputs,
                      const std::vector<Value>& outputs) override;
    bool wantsKernelTimes() const override { return true; }
    void kernelTimed(const std::vector<size_t>& steps, double microseconds) override;
    bool acceptsPlaceholderOutputs() const override { return true; }  // shapes only, never values

private:
    struct Step {
        double us = 0;
        std::vector<std::string> inputShapes, outputShapes;
        std::string dataType;
        int64_t bytes = 0;  // read + written
    };
    void grow(size_t steps);
    std::vector<Step> steps_;
    std::chrono::steady_clock::time_point started_;
};

}  // namespace npuwb::standin
