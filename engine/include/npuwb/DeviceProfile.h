#pragma once
// A heterogeneous device as the partitioner sees it: named compute units (NPU, GPU, CPU clusters, or local worker
// pools standing in for them), what each op costs on each, and what a hand-off between units costs. Loaded from
// editable JSON (resources/devices/*.json, fields documented in resources/devices/README.md); numbers live in the
// files, never in code.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "npuwb/RunOptions.h"
#include "npuwb/ir/Tensor.h"

namespace npuwb {

/// A latency measured for one op on one unit at one input shape. Other shapes of the op scale with the element
/// count of the first input.
struct MeasuredOpLatency {
    std::string opType;  // ONNX op type ("Softmax", "Gelu")
    Shape inputShape;
    double us = 0;
};

/// How to run a unit's stages on this machine: sessions on a backend, on a worker pinned to CPUs.
struct UnitExecutor {
    /// Backend ("auto", "reference" or a plugin name; the profile names one) and backend threads of the stage
    /// sessions: one unless the profile says more, since the worker is pinned.
    ExecutorOptions session{.backend = kAutoBackend, .threads = 1};
    std::vector<int> cpus;  // CPUs the worker is pinned to (sched_setaffinity); empty: not pinned
};

struct DeviceUnit {
    std::string name;  // "NPU", "GPU", "CPU-big", "core0"
    std::string kind;  // npu | gpu | cpu
    std::string description;
    /// roofline: rates x affinity factors, with measured op latencies taking precedence;
    /// chip: per-layer times of the chip profile's NPU cost model (DeviceProfile::chip; only for kind npu);
    /// calibrated: measured on this machine by running the model on the unit's executor.
    std::string costs = "roofline";
    double gmacsPerSecond = 0;   // roofline: MAC rate at "excellent" affinity
    double gbytesPerSecond = 0;  // roofline: memory rate at "excellent" affinity (data-bound ops)
    double opOverheadUs = 0;     // roofline: per op (launch, hand-over)
    /// Extra time of each stage after the first on this unit (graph launch, layout conversion at the cut, fusion
    /// lost across it); calibrated units measure it.
    double stageOverheadUs = 0;
    std::map<std::string, std::string> affinity;  // op class -> level (key of DeviceProfile::affinityFactors)
    std::vector<MeasuredOpLatency> measured;
    std::string chipDtype = "int8";  // chip: NPU data type of the estimate
    std::optional<UnitExecutor> executor;  // required for calibrated units; makes a unit executable
};

/// What moving a value between two units costs: one synchronisation per hand-off plus the bytes at a copy rate.
struct TransferCost {
    double syncUs = 0;
    double gbytesPerSecond = 0;  // 0: bytes cost nothing (shared memory, no copy)
    bool calibrate = false;      // measure syncUs on this machine (hand-off between the executors' workers)
};

struct DeviceProfile {
    std::string name;
    std::string description;
    std::string sourcePath;
    std::string chip;  // chip profile for "chip" units (resources/chips); empty when none uses one
    /// Affinity level -> time multiplier on the unit's rate ("excellent" 1.0, "good", "medium", "poor").
    std::map<std::string, double> affinityFactors;
    /// ONNX op type -> op class, overriding the built-in classes (opClassOf).
    std::map<std::string, std::string> opClasses;
    std::vector<DeviceUnit> units;
    TransferCost transfer;
    std::vector<std::string> notes;

    const DeviceUnit* unit(const std::string& unitName) const;  // nullptr when absent
    /// True when every unit has an executor: the schedules can run on this machine.
    bool executable() const;
};

/// The op classes of the affinity table ("NPU/GPU operator partitioning with pipeline parallelism on Snapdragon X2
/// Elite", 2.1): gemm, conv, elementwise, activation, softmax, reduce, control, reorganize.
const std::vector<std::string>& opClassNames();
/// The class of an ONNX op: the profile's override, else the built-in table, else "elementwise".
std::string opClassOf(const std::string& opType, const DeviceProfile& device);

/// Parses a profile; `label` (usually the path) is named in every error together with the dotted field at fault.
DeviceProfile deviceProfileFromJson(const nlohmann::json& j, const std::string& label);
/// Loads a profile file; malformed JSON, a missing field or a wrong type throws InvalidInput naming file and field.
DeviceProfile loadDeviceProfile(const std::string& path);
/// Folders searched for profiles: $NPUWB_DEVICES_DIR, then the install data dir, then the source tree.
std::vector<std::string> deviceProfileDirs();
/// "<name>.json" in deviceProfileDirs() (case-insensitive), or a path; throws listing what exists.
DeviceProfile findDeviceProfile(const std::string& nameOrPath);
std::vector<std::string> availableDeviceProfiles();

}  // namespace npuwb
