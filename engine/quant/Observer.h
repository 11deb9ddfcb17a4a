#pragma once
// Range observers for activation calibration. Every observer sees the same streaming statistics: a first pass
// records min/max per value; KL, MMSE and percentile then fill a fixed-range histogram in a second pass (bins
// over [min, max] for MMSE/percentile, over [0, max |x|] for KL). Statistics of several workers merge exactly.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "npuwb/ir/DType.h"

namespace npuwb::quant {

/// The finite min / max of some values and whether any is NaN or inf (one vectorised read of the data).
struct FiniteRange {
    float lo = 0.0f;
    float hi = 0.0f;
    bool any = false;        // at least one finite value
    bool nonFinite = false;  // at least one NaN or inf
};
FiniteRange finiteRange(std::span<const float> values);

struct MinMax {
    float min = 0.0f;
    float max = 0.0f;
    bool seen = false;
    void add(std::span<const float> values);  // NaN and inf are ignored (they would poison the range)
    void add(const FiniteRange& range);
    void merge(const MinMax& other);
    float absMax() const;
};

/// Counts of values in `bins` equal bins over [lo, hi]; values outside land in the edge bins.
struct Histogram {
    float lo = 0.0f;
    float hi = 0.0f;
    std::vector<double> counts;
    bool absolute = false;  // bins |x| (KL)

    Histogram() = default;
    Histogram(float lo, float hi, size_t bins, bool absolute);
    void add(std::span<const float> values);
    void merge(const Histogram& other);  // same lo/hi/bins required
    double total() const;
    float binWidth() const { return counts.empty() ? 0.0f : (hi - lo) / static_cast<float>(counts.size()); }
};

/// TensorRT-style entropy calibration on a |x| histogram: the threshold T in (0, max|x|] whose clipped,
/// `levels`-bucket quantized distribution has the smallest KL divergence from the clipped reference.
/// `levels` = 128 for 8-bit (one side of the symmetric grid).
float klThreshold(const Histogram& absHistogram, int levels = 128);

struct ClipRange {
    float min = 0.0f;
    float max = 0.0f;
};

/// The clipping range [a, b] (a scaled-down [min, max] grid search) minimising the expected squared
/// quantization error (rounding inside + clipping outside) of the histogram for a `levels`-step grid.
ClipRange mmseRange(const Histogram& histogram, int levels = 256);
/// The (100 - p) and p percentiles of the histogram (p in (50, 100]); the low end is 0 for non-negative data.
ClipRange percentileRange(const Histogram& histogram, double percentile);

/// Scale and zero point for an asymmetric `qtype` (U8/I8/I16) grid covering [min, max] (widened to contain 0).
struct QuantParams {
    float scale = 1.0f;
    int32_t zeroPoint = 0;
};
QuantParams asymmetricParams(float min, float max, DType qtype);
/// Symmetric grid (zero point 0) over [-absMax, absMax] with `qmax` steps per side (127 for int8, 7 for int4).
QuantParams symmetricParams(float absMax, int qmax);
/// round-half-to-even(x / scale) + zeroPoint, saturated to [qmin, qmax]: QuantizeLinear's rule.
int32_t quantizeValue(float x, const QuantParams& q, int32_t qmin, int32_t qmax);

}  // namespace npuwb::quant
