#include "Telemetry.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "BoardState.h"
#include "JsonLines.h"

namespace npuwb::agent {

using nlohmann::json;

int64_t currentRssBytes() {
    std::ifstream in("/proc/self/statm");
    int64_t size = 0, resident = 0;
    if (!(in >> size >> resident)) return 0;
    return resident * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

AgentTelemetry telemetrySample(const BoardFiles& files, std::chrono::steady_clock::time_point start) {
    const double tMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return {.tMs = std::round(tMs * 10.0) / 10.0,
            .npuLoad = npuLoad(files),
            .cpuFreqKHz = cpuFrequenciesKHz(files, onlineCpus(files), cpuPolicies(files)),
            .npuFreqHz = devfreqCurrentHz(files, "npu"),
            .ddrFreqHz = devfreqCurrentHz(files, "ddr"),
            .rssBytes = currentRssBytes()};
}

TelemetrySampler::TelemetrySampler(BoardFiles files, int intervalMs)
    : files_(std::move(files)), intervalMs_(std::max(intervalMs, 10)), start_(std::chrono::steady_clock::now()) {
    thread_ = std::thread([this] { loop(); });
}

TelemetrySampler::~TelemetrySampler() { stop(); }

void TelemetrySampler::stop() {
    {
        std::lock_guard lock(mutex_);
        if (stopping_ && !thread_.joinable()) return;
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void TelemetrySampler::loop() {
    std::unique_lock lock(mutex_);
    while (true) {
        lock.unlock();
        emitEvent(telemetrySample(files_, start_));
        ++samples_;
        lock.lock();
        // A start and an end sample even for a run shorter than one interval (a compiled model's few ms).
        if (stopping_ && samples_ >= 2) return;
        if (!stopping_)
            wake_.wait_for(lock, std::chrono::milliseconds(intervalMs_), [this] { return stopping_; });
        // Falls through once more after stop(): the last sample shows the state at the end of the run.
    }
}

}  // namespace npuwb::agent
