#pragma once
// How closely a quantized model's graph outputs follow the float model's, per output and per sample, so that a
// verdict holds for the worst output on the worst sample: concatenating outputs lets a large-valued output hide a
// small one (a detector's score map that collapsed to zero next to a box regression map), and averaging over
// samples hides the sample where it fails.
#include <map>
#include <string>
#include <vector>

#include "npuwb/Report.h"
#include "npuwb/ir/Tensor.h"

namespace npuwb::quant::detail {

/// Per-sample statistics of one output. Each sample's slot is written by one thread only.
class OutputAgreementAccumulator {
public:
    explicit OutputAgreementAccumulator(size_t samples) : perSample_(samples) {}
    /// Compares one output of sample `sample`; outputs that are not float or differ in size are skipped.
    void add(size_t sample, const std::string& output, const Tensor& reference, const Tensor& candidate);
    /// One row per name in `outputs` that was compared: mean and worst cosine, SNR over all samples and worst.
    std::vector<AccuracyOutput> summarize(const std::vector<std::string>& outputs) const;

private:
    struct Stats {
        double cosine = 1, euclidean = 0, signal = 0, noise = 0;
    };
    std::vector<std::map<std::string, Stats>> perSample_;
};

/// The worst cosine over the rows (1 when there are none).
double worstCosine(const std::vector<AccuracyOutput>& outputs);
/// The mean of the rows' mean cosines (1 when there are none).
double meanCosine(const std::vector<AccuracyOutput>& outputs);

}  // namespace npuwb::quant::detail
