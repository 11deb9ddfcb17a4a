#pragma once
// Post-training quantization: calibrate activation ranges on a data set, then rewrite the float model into a
// standard ONNX QDQ model (QuantizeLinear/DequantizeLinear pairs, opset >= 13) that ONNX Runtime, the vendor
// converter and our own engine run. Calibration and QDQ construction are separate steps so a caller (the GUI)
// can calibrate once and rebuild the QDQ model for many per-layer precision choices.
//
// Conventions (documented once, here):
// - Activations: asymmetric uint8 (ONNX Runtime's default QDQ activation type; RKNN's asymmetric int8 is the same
//   grid shifted by 128), or int8 with ActivationType::Int8. The range always contains 0 so 0 is exact.
// - Weights: symmetric int8 in [-127, 127], zero point 0, per output channel by default (axis 0 for Conv/Gemm
//   with transB, axis 1 for MatMul/Gemm weights [K, N]); per tensor with perChannel = false.
// - Bias (Conv/Gemm): int32, zero point 0, scale = input scale * weight scale (per channel), so an integer kernel
//   accumulates int8 x int8 products and the bias in int32 exactly.
// - Rounding: round half to even, as ONNX QuantizeLinear and the engine's reference kernel do; saturate to the
//   type's range. Requantization (int32 accumulator -> output) = QuantizeLinear of the float result, i.e. the
//   same rounding; what the engine computes on a QDQ model is what ONNX Runtime computes on it.
// - w8a16 and per-layer "int16": int8 weights, activations left in float in the export (int16 QuantizeLinear
//   needs opset 21); the precision map in the metadata records the intent.
// - fp16 and w4a16 activations: Cast(float16) -> Cast(float) pairs on a layer's activation inputs (fp16 rounding);
//   fp16 weights are float16 initializers followed by Cast(float).
// - w4a16 weights: int4 values in [-8, 7] stored as int8, one scale per group of `groupSize` consecutive input
//   elements of an output channel. Pattern: DequantizeLinear(q[rows*groups, groupSize], scale[rows*groups],
//   axis 0) -> Reshape to the weight's shape (-> Transpose for MatMul/Gemm [K, N] weights). Layers whose input
//   size is not a multiple of groupSize fall back to per-channel int4.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "npuwb/ir/Graph.h"
#include "npuwb/Report.h"
#include "npuwb/SampleSource.h"
#include "npuwb/Session.h"

namespace npuwb::quant {

enum class WeightRounding { Nearest, Gptq };
std::string_view weightRoundingName(WeightRounding rounding);      // "nearest" | "gptq"
WeightRounding weightRoundingFromName(std::string_view name);      // throws InvalidInput listing the choices

/// Samples GPTQ measures input correlations on unless told otherwise (QuantizeOptions, CLI, Quantize dialog).
inline constexpr size_t kDefaultRoundingSamples = 128;

/// Input correlation of one weighted layer (GPTQ; defined by the quantizer), by weight name.
struct InputCorrelation;
using InputCorrelations = std::map<std::string, std::shared_ptr<const InputCorrelation>>;

enum class Scheme { W8A8, W8A16, W4A16, FP16 };
/// MinMax: the observed range. KL: TensorRT's entropy threshold on |x|, never clipping more than 0.01% of the
/// values. MMSE: the clip range with the least expected squared error. Percentile: QuantizeOptions::percentile.
enum class ObserverKind { MinMax, KL, MMSE, Percentile };
/// Per-layer precision (hybrid quantization). Float leaves the layer unquantized.
enum class Precision { Int8, Int16, Int4, Fp16, Float };
enum class ActivationType { UInt8, Int8 };

std::string_view schemeName(Scheme scheme);            // "w8a8"
Scheme schemeFromName(std::string_view name);          // throws InvalidInput listing the choices
std::string_view observerName(ObserverKind observer);  // "minmax" | "kl" | "mmse" | "percentile"
ObserverKind observerFromName(std::string_view name);
std::string_view precisionName(Precision precision);   // "int8" | "int16" | "int4" | "fp16" | "float"
Precision precisionFromName(std::string_view name);

/// Reads a per-layer override file: JSON ({"layer": "fp16", ...}) or text (one "layer precision" per line, '#'
/// comments). Throws InvalidInput naming the file and line for unknown precisions or malformed lines.
std::map<std::string, Precision> loadPrecisionOverrides(const std::string& path);

struct QuantizeOptions {
    Scheme scheme = Scheme::W8A8;
    ObserverKind observer = ObserverKind::MinMax;
    ActivationType activationType = ActivationType::UInt8;
    bool perChannel = true;      // weights per output channel (else per tensor)
    int groupSize = 128;         // w4a16: 32..256
    double percentile = 99.99;   // ObserverKind::Percentile
    int histogramBins = 2048;    // KL / MMSE / percentile
    /// Node name -> precision; wins over the scheme's default and over auto-hybrid.
    std::map<std::string, Precision> overrides;
    /// Auto-hybrid: keep the most sensitive layers in higher precision until the output cosine reaches this.
    std::optional<double> autoHybridCosine;
    Precision hybridPrecision = Precision::Fp16;  // what auto-hybrid raises a layer to
    std::string chip = "rk3588";                  // cost model chip for auto-hybrid's cost ordering
    ExecutorOptions executor;                     // calibration and evaluation (threads shared by the workers)
    size_t maxSamples = 0;                        // 0: every sample of the source
    size_t evalSamples = 4;                       // samples auto-hybrid evaluates cosine on
    /// Pre-quantization optimization (prepareForQuantization) before calibration; off: the model as given.
    bool prepare = true;
    /// Integer weights: nearest, or GPTQ error feedback through the layer inputs' correlation (GPTQ),
    /// measured on the first `roundingSamples` samples during calibration.
    WeightRounding weightRounding = WeightRounding::Nearest;
    size_t roundingSamples = kDefaultRoundingSamples;
};

/// Progress: (phase, done, total) with phase "calibrate" | "rounding" | "sensitivity" | "hybrid" (| "inference":
/// timeInference).
struct QuantizeControl {
    std::function<void(const std::string& phase, size_t done, size_t total)> progress;
    const std::atomic<bool>* cancel = nullptr;  // set -> Error(Cancelled) at the next sample boundary
};

/// Calibrated range of one activation value and the quantization parameters chosen from it.
struct ActivationRange {
    float observedMin = 0.0f;  // over all samples
    float observedMax = 0.0f;
    float min = 0.0f;          // the clipping range the observer chose (contains 0)
    float max = 0.0f;
};

struct Calibration {
    std::map<std::string, ActivationRange> ranges;  // activation value name -> range
    ObserverKind observer = ObserverKind::MinMax;
    size_t samples = 0;
    std::string datasetHash;
    double seconds = 0.0;
    std::string backend;  // the backend calibration ran on
    /// Weight name -> input correlation, for WeightRounding::Gptq (empty otherwise).
    InputCorrelations weightCorrelations;
    WeightRounding weightRounding = WeightRounding::Nearest;
};

/// Which values calibration observes: float activation inputs of the nodes the QDQ builder quantizes.
std::vector<std::string> quantizableActivations(const Model& model);
/// Node names the QDQ builder can quantize (compute and data-movement ops with float activations), in graph order.
std::vector<std::string> quantizableNodes(const Model& model);

/// Runs the float model over the samples once (streaming; several samples in parallel) and picks every
/// activation's range with the observer. KL, MMSE and percentile use histograms whose range grows with the data
/// (StreamingHistogram.h), so they need no second pass.
Calibration calibrate(const Model& floatModel, const SampleSource& samples, const QuantizeOptions& options,
                      const QuantizeControl& control = {});

/// Seconds to run the plain float model over the samples calibrate() would use, the same way (workers, backend,
/// threads, sample loading, session creation): the baseline calibration's cost is compared with.
double timeInference(const Model& floatModel, const SampleSource& samples, const QuantizeOptions& options,
                     const QuantizeControl& control = {});

/// The default precision of every quantizable node for the scheme, with options.overrides applied.
std::map<std::string, Precision> defaultPrecisions(const Model& floatModel, const QuantizeOptions& options);

/// Rewrites the float model into QDQ form with a precision per quantizable node (missing nodes: the scheme's
/// default). Adds metadata_props npuwb.quant.scheme, .observer, .dataset_hash, .samples, .precision (JSON map).
Model buildQdqModel(const Model& floatModel, const Calibration& calibration, const QuantizeOptions& options,
                    const std::map<std::string, Precision>& precisions);

/// One layer auto-hybrid considered.
struct HybridLayer {
    std::string node;
    std::string opType;
    double sensitivity = 0.0;     // 1 - cosine of the layer's own output, only it quantized, float inputs
    double extraCostUs = 0.0;     // estimated latency of the higher precision minus int8 (cost model)
    bool kept = false;            // raised to the higher precision
};

struct HybridResult {
    std::vector<HybridLayer> layers;  // sorted by sensitivity, most sensitive first
    double targetCosine = 0.0;
    /// The target holds for the worst output on the worst evaluated sample: cosineBefore/After are those minima
    /// (all layers at the scheme's precision / with the kept layers raised); the means over outputs stand beside.
    double cosineBefore = 0.0;
    double cosineAfter = 0.0;
    double meanCosineBefore = 0.0, meanCosineAfter = 0.0;
    std::vector<AccuracyOutput> outputsBefore, outputsAfter;  // per graph output: worst and mean cosine, SNR
    size_t evalSamples = 0;
    double int8LatencyUs = 0.0;    // cost model, whole model (0 when the cost model could not estimate)
    double hybridLatencyUs = 0.0;
    bool targetMet = false;
    std::string chip;
};

/// What prepareForQuantization did to the float model (also in the QDQ model's npuwb.quant.prepare metadata).
struct Preparation {
    bool ran = false;                        // false: skipped (see skipped)
    std::string skipped;                     // why the optimizer could not run
    int64_t opsetBefore = 0, opsetAfter = 0;
    size_t nodesBefore = 0, nodesAfter = 0;
    std::map<std::string, int> rewrites;     // pass -> proven rewrites applied
    std::vector<std::string> rolledBack;     // rewrites the proof rejected ("pass 'x' at node 'y': ...")
    std::string proofBackend;                // what the proofs ran on ("reference", "cpu-onednn", ...)
    std::string summary() const;             // one line for notes and logs
    std::string json() const;                // the metadata value
};

/// Passes run before calibration, through the proven Optimizer (passes/Optimizer.h: every rewrite is checked on
/// random inputs and the first sample and rolled back when it changes the outputs). Each removes a rounding step
/// or enables a better grid:
///   fold_batchnorm, fold_affine  BatchNormalization and Paddle's constant Mul/Add after a Conv join the Conv's
///                                weights and bias (else each is a separately quantized layer, and a per-tensor
///                                activation grid sits between the Conv and its per-channel scale);
///   fuse_hardswish               x*Clip(x+3,0,6)/6 becomes one HardSwish (the NPU's op) instead of four
///                                quantized elementwise layers;
///   fuse_layernorm               ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div(/Mul/Add) becomes LayerNormalization,
///                                which the NPU runs as one op in higher precision, instead of quantizing x - mean
///                                and the normalized value in between (opset 17: upgraded for it when it matches);
///   remove_identity, constant_folding, dead_code_elimination   clean-ups the others rely on;
///   upgrade_opset                only when the opset is < 13: per-channel QDQ needs 13, and the optimizer's
///                                upgrade records missing ranks first, so it converts models ONNX's converter alone
///                                rejects (paddle2onnx's opset 9 Softmax with unknown rank).
std::vector<std::string> preparationPasses(int64_t opset);
/// The proofs run on `executor` (the calibration's backend and threads: the reference kernels took 11 s of a
/// 14 s PP-OCRv4 det quantization).
Model prepareForQuantization(const Model& floatModel, const SampleSource& samples, const ExecutorOptions& executor,
                             Preparation& report);

/// The float model to compare `quantModel` with layer by layer: when the quantizer prepared the model it exported
/// (its npuwb.quant.prepare metadata), `floatModel` with the same input shapes and preparation, since a folded
/// BatchNormalization leaves the Conv's output name holding other values; otherwise `floatModel` as given.
/// `notes` gets a line saying which.
Model floatReferenceFor(const Model& floatModel, const Model& quantModel, const SampleSource& samples,
                        const ExecutorOptions& executor, std::vector<std::string>& notes);

struct QuantizeResult {
    Model model;  // the QDQ model
    Model floatModel;  // the float model calibration ran (input shapes fixed, prepared, opset converted)
    Preparation preparation;
    Calibration calibration;
    std::map<std::string, Precision> precisions;  // per quantizable node
    std::optional<HybridResult> hybrid;
    std::vector<std::string> notes;  // what was adapted (e.g. per-tensor weights because the opset stayed < 13)
};

/// calibrate + (auto-hybrid) + buildQdqModel. Graph inputs with symbolic dims take the samples' shape (noted in
/// QuantizeResult::notes): the opset converter, the cost model and backend plans need concrete shapes.
QuantizeResult quantizeModel(const Model& floatModel, const SampleSource& samples, const QuantizeOptions& options,
                             const QuantizeControl& control = {});

/// Each graph output of `candidate` against `reference` on the first `maxSamples` samples (0: all): mean and worst
/// cosine, SNR over all samples and on the worst sample.
std::vector<AccuracyOutput> compareOutputs(const Model& reference, const Model& candidate, const SampleSource& samples,
                                           size_t maxSamples, const ExecutorOptions& executor,
                                           const std::atomic<bool>* cancel = nullptr);
/// The worst output cosine on the worst sample (compareOutputs), the figure a cosine target is checked against.
double outputCosine(const Model& reference, const Model& candidate, const SampleSource& samples, size_t maxSamples,
                    const ExecutorOptions& executor, const std::atomic<bool>* cancel = nullptr);

}  // namespace npuwb::quant
