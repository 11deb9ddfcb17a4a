#pragma once
// `npuwb-agent probe`: one JSON object describing the board (RKNN SDK user guide V2.5.0, 5.2.1.1): architecture,
// kernel, OS, CPU model and cores, memory, NPU driver and load, CPU/DDR/NPU frequencies and governors, librknnrt.
#include <nlohmann/json.hpp>
#include <string>

#include "BoardFiles.h"

namespace npuwb::agent {

nlohmann::json probeBoard(const BoardFiles& files);

/// `uname -m` / `uname -r` of the running system.
std::string machineArch();
std::string kernelRelease();
std::string hostName();
/// PRETTY_NAME from /etc/os-release under the root; empty when absent.
std::string osPrettyName(const BoardFiles& files);
/// "Intel(R) Core(TM) ..." or, on ARM, the core types: "4x Cortex-A55 + 4x Cortex-A76"; empty when unknown.
std::string cpuModel(const BoardFiles& files);

}  // namespace npuwb::agent
