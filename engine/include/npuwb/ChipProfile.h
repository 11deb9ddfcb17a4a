#pragma once
// A Rockchip NPU chip as the cost model sees it, loaded from an editable JSON file (resources/chips/*.json,
// fields documented in resources/chips/README.md). Facts live in the files, never in code.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace npuwb {

/// The MAC array and memory layout for one data type ("int8", "fp16").
struct NpuDTypeRates {
    int64_t atomicInputChannels = 0;   // input channels reduced per cycle (matmul K block)
    int64_t atomicOutputChannels = 0;  // output channels produced per cycle (matmul N block)
    int64_t macsPerCycle = 0;          // per core; = atomicInputChannels x atomicOutputChannels
    int64_t c2 = 0;                    // NC1HWC2 channel block of activations in memory
    int64_t convOutputChannelAlign = 0;
    int64_t otherOutputChannelAlign = 0;
    int64_t bytes = 1;  // element size of activations and weights
};

/// An inclusive integer range an attribute or dimension must fall in, keyed as in the op list ("weight.kernel_h").
struct NpuOpLimit {
    std::string key;
    int64_t min = 0;
    int64_t max = 0;
};

/// Conditions of the op list beyond integer ranges, under which the converter keeps an op on the NPU.
struct NpuOpConditions {
    /// Transpose: permutation ("[0,2,3,1]") -> op-list dtype ("int8", "float16") -> expressions over the input
    /// dims n1, c1, h1, w1 and `constants` that must all hold ("h1%16==0", "(h1==w1==1, n1%4==0) or (...)").
    /// A permutation that is absent runs on the CPU; an empty list means any shape.
    std::map<std::string, std::map<std::string, std::vector<std::string>>> perms;
    std::map<std::string, int64_t> constants;  // "p", "q" of the Transpose rules
    std::vector<int64_t> axes;                 // Softmax: the axes (of the 4-D NPU tensor) it runs on
    std::vector<double> exponents;             // Pow: the constant exponents it runs
    std::optional<std::array<int64_t, 2>> integerScale;  // Resize: integer H/W scale factors in [min, max]
};

struct NpuOp {
    std::string name;  // RKNN op name ("Convolution", "Depthwise Convolution", "Clip/ReLU6")
    std::vector<std::string> dtypes;  // "int8", "float16", ...
    bool multiCore = false;  // split across cores when more than one is used
    std::vector<NpuOpLimit> limits;
    NpuOpConditions conditions;
};

/// A fused NPU op: `base` followed by each of `then` (alternatives separated by '|', ONNX-style names).
struct FusedNpuOp {
    std::string name;
    std::string base;
    std::vector<std::string> then;
};

/// CPU fallback throughput of the runtime's CPU ops (single thread, fp32; documented estimates).
struct CpuProfile {
    std::string description;
    double gmacsPerSecond = 0;
    double gbytesPerSecond = 0;
    double opOverheadUs = 0;  // NPU<->CPU hand-over, layout conversion
};

/// Coefficients of the cost model, the same physics on every chip (resources/chips/README.md). The profiles'
/// "costModel" objects hold the values fitted on the published rknn_model_zoo figures by tests/perfmodel; these
/// defaults only serve a profile without one.
struct CostCoefficients {
    double computeEfficiency = 0.6;  // MAC array busy fraction on aligned layers (pipeline fill, halo re-fetch)
    double ddrEfficiency = 0.3;      // fraction of theoretical DDR bandwidth the NPU's strided NC1HWC2 DMA achieves
    double layerOverheadCycles = 6000;  // per NPU layer: task set-up, register programming, pipeline drain
    int64_t minStripePixels = 16;     // output pixels are processed in blocks of this many (doc: H*W < 16 is poor)
    /// Elements per cycle of the output stage's lookup-table activations (Sigmoid, Swish, Tanh, ...) per
    /// atomicOutputChannels lane: a LUT activation fused into a layer adds output elements / (this x lanes) cycles.
    double lutElementsPerLane = 0.25;
    /// Cycles the output stage takes per pixel and block of atomicOutputChannels output channels (vendor perf
    /// detail on RK3588; not fitted).
    double outputBlockCycles = 4;
    /// CPU fallbacks: CPU work per element converted between the NPU's int8 NC1HWC2 and the CPU op's fp32 NCHW
    /// (dequantize + un-tile on the way in, quantize + re-tile on the way out), in multiply-accumulates at
    /// cpu.gmacsPerSecond: a scalar per-element loop, bound by the core rather than by memory. Paid for every
    /// tensor crossing the NPU/CPU boundary.
    double cpuConvertMacsPerElement = 4;
    /// CPU fallbacks: microseconds of each NPU -> CPU -> NPU switch (wait for the NPU job, cache maintenance,
    /// submit the next NPU job), in units of cpu.opOverheadUs so that slower CPUs pay more.
    double cpuSwitchOverheads = 1;
};

/// How the fitted coefficients did on published figures they were not fitted on (tests/perfmodel's
/// leave-one-family-out cross-validation): the estimate's uncertainty range. ratio = estimated / published time.
struct EstimateValidation {
    std::string method;        // "leave-one-family-out cross-validation over the rknn_model_zoo figures"
    int points = 0;            // 0: no validation, no range
    double medianAbsError = 0;  // |ratio - 1|
    double maxAbsError = 0;
    double fastRatioP10 = 1;   // 10th percentile of the ratio
    double slowRatioP90 = 1;   // 90th percentile
};

/// Native layout blocks and limits of the matmul API for one operand kind ("int4", "int8", "fp16": A's type,
/// which also picks B's layout and limits for mixed types; npuwb/Matmul.h).
struct MatmulKindLimits {
    int64_t aKBlock = 0;  // A native [K/a, M, a]
    int64_t bNBlock = 0;  // B native [N/n, K/k, n, k]: n
    int64_t bKBlock = 0;  //                            k
    int64_t cNBlock = 0;  // C native [N/c, M, c]
    int64_t kAlign = 0;   // K must be a multiple of this
    int64_t nAlign = 0;   // N must be a multiple of this
};

/// The chip's matmul API (the profile's "matmul" section, resources/chips/README.md).
struct MatmulChipProfile {
    std::vector<std::string> types;     // supported type names, "int8xint8->int32"
    std::vector<std::string> bLayouts;  // "norm", "native", "tp_norm"
    std::map<std::string, MatmulKindLimits> kinds;
    int64_t maxK = 0;
    int64_t kSegment = 0;  // B's native layout splits K into segments of this many rows (0: never)
};

/// What the chip's NPU runtime offers (the profile's optional "runtime" object; absent: the full librknnrt.so with
/// everything below). RV1106/RV1103 ship the mini runtime librknnmrt.so without per-layer perf detail or
/// rknn_dup_context.
struct RuntimeProfile {
    std::string library = "librknnrt.so";
    bool perfDetail = true;  // RKNN_QUERY_PERF_DETAIL
    bool dupContext = true;  // rknn_dup_context: more than one context sharing weights
};

struct ChipProfile {
    std::string name;        // "RK3588"
    std::string sourcePath;  // file it was loaded from
    std::string opSupportPlatform;
    int64_t cores = 1;
    double clockMHz = 0;
    double peakTopsInt8 = 0;
    int64_t bufferBytesPerCore = 0;
    int64_t sramBytes = 0;
    int64_t hwAlign = 4;
    int64_t zeroCopyInputWidthAlign = 0;
    std::map<std::string, NpuDTypeRates> dtypes;
    double ddrBandwidthGBps = 0;
    CpuProfile cpu;
    std::map<std::string, NpuOp> npuOps;
    std::map<std::string, std::vector<std::string>> onnxToNpu;  // ONNX op -> candidate NPU ops
    std::map<std::string, std::string> lowering;                // ONNX op -> NPU op the toolkit rewrites it to
    std::vector<FusedNpuOp> fusedOps;
    std::vector<std::string> cpuOps;
    std::optional<MatmulChipProfile> matmul;  // absent: the chip has no matmul API
    std::vector<std::string> notes;
    RuntimeProfile runtime;
    CostCoefficients coefficients;
    EstimateValidation validation;  // "costModel.validation"

    const NpuDTypeRates& rates(const std::string& dtype) const;  // throws Unsupported naming chip and dtype
    const NpuOp* npuOp(const std::string& opName) const;
};

/// Parses a profile; `label` (usually the path) is named in every error together with the field at fault.
ChipProfile chipProfileFromJson(const nlohmann::json& j, const std::string& label);
/// Loads a profile file. Malformed JSON, a missing field or a wrong type throws InvalidInput naming file and field.
ChipProfile loadChipProfile(const std::string& path);

/// Folders searched for profiles: $NPUWB_CHIPS_DIR, then <prefix>/share/npuwb/chips (found from the engine library's
/// folder), then the source tree's resources/chips for build trees inside it.
std::vector<std::string> chipProfileDirs();
/// Finds "<name>.json" (case-insensitive name, e.g. "rk3588") in chipProfileDirs(); throws listing what exists.
ChipProfile findChipProfile(const std::string& name);
/// Names of all profiles found in chipProfileDirs().
std::vector<std::string> availableChipProfiles();

}  // namespace npuwb
