#pragma once
// The statistics calibration keeps per activation value, collected in ONE streaming pass: min/max and, for the
// histogram observers, a histogram whose range grows as values arrive (so no min/max pass is needed first).
//
// Bins have a power-of-two width 2^e and start at an integer multiple of it, and the range always contains 0.
// Growing the range doubles the width, which merges neighbouring bin pairs exactly; histograms of several
// workers merge exactly the same way. Once data arrived, it spans between bins/2 and bins bins (at worst half
// the resolution of a fixed-range histogram with the same bin count, never less).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "quant/Observer.h"

namespace npuwb::quant {

class StreamingHistogram {
public:
    StreamingHistogram() = default;
    /// absolute: bins |x| over [0, max|x|] (KL); else x over [min, max] widened to contain 0 (MMSE, percentile).
    StreamingHistogram(size_t bins, bool absolute);

    /// Adds finite values; NaN and inf are ignored. `finiteLo` / `finiteHi`: the values' finite min / max (the
    /// caller has them from MinMax), `hasNonFinite`: whether any value is NaN or inf (takes a checked loop).
    void add(std::span<const float> values, float finiteLo, float finiteHi, bool hasNonFinite);
    void merge(const StreamingHistogram& other);

    /// The occupied bins (and 0) as a fixed histogram for the observers (klThreshold, mmseRange, ...).
    Histogram histogram() const;
    bool empty() const { return !started_; }
    int exponent() const { return exponent_; }  // bin width = 2^exponent

private:
    void start(double lo, double hi);
    /// Coarsens to `exponent` (>= current) and moves the window so it covers bins [lo, hi] at that exponent.
    void coverAt(int exponent, int64_t lo, int64_t hi);
    /// The smallest exponent >= `from` at which the occupied bins plus [lo, hi] (values) fit in the window.
    int exponentFor(int from, double lo, double hi, int64_t occupiedLo, int64_t occupiedHi, int occupiedExponent) const;
    /// Bin of each value (finite, inside the window) for the current exponent and window.
    void binIndices(const float* values, size_t n, int32_t* index, float inv, float offset, float top) const;

    size_t bins_ = 0;
    bool absolute_ = false;
    bool started_ = false;
    int exponent_ = 0;
    int64_t first_ = 0;                         // absolute index of counts_[0]: covers [first * w, (first + 1) * w)
    int64_t occupiedLo_ = 0, occupiedHi_ = 0;   // absolute indices of the first / last bin in use (0's bin included)
    std::vector<uint64_t> counts_;
};

/// Min/max plus (optionally) a streaming histogram of one value: what one calibration pass collects.
struct ValueStats {
    MinMax range;
    StreamingHistogram histogram;
    bool withHistogram = false;

    ValueStats() = default;
    ValueStats(size_t bins, bool absolute) : histogram(bins, absolute), withHistogram(true) {}
    /// Adds one tensor's values; returns their finite range (a value derived from this one maps it). `sample`
    /// (optional) receives the elements the histogram took (histogramSample's), for values derived from this one.
    FiniteRange add(std::span<const float> values, std::vector<float>* sample = nullptr);
    /// Adds a tensor known only by its exact finite range and the elements the histogram takes of it
    /// (`histogramSample`): a value derived from another one elementwise, never materialised in full.
    void add(const FiniteRange& range, std::span<const float> histogramValues);
    void merge(const ValueStats& other);

    /// The elements the histogram of a tensor takes: all of them up to 256K elements; of a larger one, one element
    /// (while `stride` is under a cache line) or one cache line's run of 16 elements (so most of a large tensor is
    /// not read again after its min/max) from each window of `stride` candidates (odd, >= 3: about 64K elements per
    /// tensor and sample), at a hashed position: no lattice that could line up with rows or with the channel lanes
    /// of a backend's blocked layout. A hundred samples still give a histogram millions of values.
    static std::span<const float> histogramSample(std::span<const float> values, std::vector<float>& buffer);
};

}  // namespace npuwb::quant
