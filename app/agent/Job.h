#pragma once
// `npuwb-agent run JOB.json`: a job names a model and how to run it; the agent streams progress, telemetry and
// the final report as JSON lines (app/agent/README.md).
//   {"model": PATH, "backend": "auto", "runs": 10, "warmup": 2, "threads": 0, "seed": 1,
//    "inputShapes": {"x": [1,3,224,224]}, "telemetryIntervalMs": 250}
#include <cstdint>
#include <map>
#include <string>

#include "BoardFiles.h"
#include "npuwb/ir/Tensor.h"

namespace npuwb::agent {

struct Job {
    std::string model;
    std::string backend = "auto";
    int runs = 10;
    int warmup = 2;
    int threads = 0;
    uint64_t seed = 1;
    std::map<std::string, Shape> inputShapes;
    int telemetryIntervalMs = 250;  // 0: no periodic samples (one at the start and one at the end still)
};

/// Parses and checks a job; errors (InvalidInput) name `source` and the field.
Job parseJob(const std::string& text, const std::string& source);
/// Reads a job from a file, or from stdin when `path` is "-".
Job loadJob(const std::string& path);
/// Runs the job and streams its events. Throws npuwb::Error (Cancelled when a stop signal arrived).
void runJob(const Job& job, const BoardFiles& files);

}  // namespace npuwb::agent
