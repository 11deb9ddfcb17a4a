#pragma once
// What a board's kernel tells about its clocks and its NPU (RKNN SDK user guide V2.5.0, 5.2.1.1): cpufreq policies,
// devfreq devices (DDR "dmc", NPU "fdab0000.npu", GPU), the RKNPU driver version and load. Shared by probe,
// telemetry and the environment of run reports. Absent files give empty/nullopt values.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "BoardFiles.h"

namespace npuwb::agent {

inline const char* const kCpufreqDir = "/sys/devices/system/cpu/cpufreq";
inline const char* const kDevfreqDir = "/sys/class/devfreq";

struct CpuPolicy {
    std::string name;  // "policy4"
    std::vector<int> cpus;
    std::optional<std::string> governor;
    std::optional<int64_t> curKHz, minKHz, maxKHz;  // scaling_* ; max is cpuinfo_max_freq
    std::vector<std::string> availableGovernors;
    std::string governorFile() const { return std::string(kCpufreqDir) + "/" + name + "/scaling_governor"; }
};

struct DevfreqDevice {
    std::string name;  // "dmc", "fdab0000.npu"
    std::string kind;  // "npu", "ddr", "gpu" or "other"
    std::optional<std::string> governor;
    std::optional<int64_t> curHz, minHz, maxHz;
    std::vector<int64_t> availableHz;
    std::vector<std::string> availableGovernors;
    std::string governorFile() const { return std::string(kDevfreqDir) + "/" + name + "/governor"; }
};

std::vector<int> onlineCpus(const BoardFiles& files);
std::vector<CpuPolicy> cpuPolicies(const BoardFiles& files);
std::vector<DevfreqDevice> devfreqDevices(const BoardFiles& files);
/// Current frequency of each cpu in `cpus` (kHz), from cpuN/cpufreq or the policy covering it.
std::vector<std::optional<int64_t>> cpuFrequenciesKHz(const BoardFiles& files, const std::vector<int>& cpus,
                                                      const std::vector<CpuPolicy>& policies);
/// Current frequency of the first devfreq device of that kind ("npu", "ddr").
std::optional<int64_t> devfreqCurrentHz(const BoardFiles& files, const std::string& kind);

struct NpuDriver {
    std::string file;     // where it was read
    std::string text;     // "RKNPU driver: v0.9.6"
    std::string version;  // "0.9.6" (empty when the text has no version number)
};
std::optional<NpuDriver> npuDriver(const BoardFiles& files);
/// Per-core NPU load in percent ("NPU load:  Core0: 12%, Core1:  0%, Core2:  0%,"); nullopt when absent.
std::optional<std::vector<int>> npuLoad(const BoardFiles& files);
std::optional<std::string> npuLoadFile(const BoardFiles& files);
/// The numbers before each '%' in a load line.
std::vector<int> parseNpuLoad(const std::string& text);

}  // namespace npuwb::agent
