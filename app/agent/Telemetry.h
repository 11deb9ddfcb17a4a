#pragma once
// Periodic board samples during a run, streamed as telemetry events: NPU load per core, CPU frequency per core,
// NPU and DDR frequency, and this process's resident set size.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "BoardFiles.h"
#include "npuwb/AgentProtocol.h"

namespace npuwb::agent {

/// One sample; tMs counts from `start`.
AgentTelemetry telemetrySample(const BoardFiles& files, std::chrono::steady_clock::time_point start);
/// Resident set size of this process (bytes; 0 when unknown). Always the real /proc, not the sysfs root.
int64_t currentRssBytes();

class TelemetrySampler {
public:
    /// Emits a first sample at once, then one every `intervalMs` until stop() (and a last one then).
    TelemetrySampler(BoardFiles files, int intervalMs);
    ~TelemetrySampler();
    void stop();
    int samples() const { return samples_.load(); }

private:
    void loop();
    BoardFiles files_;
    int intervalMs_;
    std::chrono::steady_clock::time_point start_;
    std::atomic<int> samples_{0};
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace npuwb::agent
