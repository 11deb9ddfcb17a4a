#pragma once
// Per-layer quantization accuracy: float model vs its QDQ model on the same samples, like RKNN's
// error_analysis.txt. For every compute node of the float model (matched by output value name in the QDQ model):
//   entire: cosine / euclidean distance of the QDQ model's value (quantized all the way) vs the float value;
//   single: the node alone quantized (its QDQ input chain and weights), fed with the float model's values;
// plus the float range of the value, the scale / zero point of the QuantizeLinear applied to it and the fraction
// of elements that saturate, and the SNR (dB) of both. Graph outputs get the mean and the worst sample's cosine
// and SNR. Metrics are computed per sample; samples stream (memory does not grow).
#include <atomic>
#include <functional>
#include <string>

#include "npuwb/ir/Graph.h"
#include "npuwb/SampleSource.h"
#include "npuwb/Report.h"
#include "npuwb/RunOptions.h"

namespace npuwb::quant {

struct AccuracyOptions {
    ExecutorOptions executor;  // for the two whole-model runs; "single" runs nodes on the reference kernels
    size_t maxSamples = 0;         // 0: all
    bool single = true;            // also compute "single" (costs about one extra model run per sample)
    double snrThresholdDb = 10.0;  // flag layers whose own (single) SNR is below this, as Hailo's layer analysis
};

struct AccuracyControl {
    std::function<void(size_t done, size_t total)> progress;  // per sample
    const std::atomic<bool>* cancel = nullptr;
};

/// Throws InvalidInput when the models' inputs differ or the QDQ model has no node matching the float model's.
AccuracySection analyzeAccuracy(const Model& floatModel, const Model& quantModel, const SampleSource& samples,
                                const AccuracyOptions& options = {}, const AccuracyControl& control = {});

/// The text table (error_analysis.txt style): one row per layer, then the outputs.
std::string accuracyToText(const AccuracySection& accuracy);

/// Cosine similarity / euclidean distance of two equally sized float vectors (1 / 0 for two all-zero vectors).
double cosineSimilarity(const float* a, const float* b, size_t n);
double euclideanDistance(const float* a, const float* b, size_t n);
/// 10 log10(signal / noise) in dB, kSnrCapDb when there is no noise, -kSnrCapDb when there is no signal.
double snrFromEnergies(double signalEnergy, double noiseEnergy);

}  // namespace npuwb::quant
