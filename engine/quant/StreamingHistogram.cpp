#include "quant/StreamingHistogram.h"

#include <vector>

#include <algorithm>
#include <cmath>
#include <limits>

#include "npuwb/Error.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace npuwb::quant {

namespace {

// Bin widths stay in [2^-100, 2^127]: 2^-exponent is then a normal float and |x| * 2^-exponent never overflows.
constexpr int kMinExponent = -100;
constexpr int kMaxExponent = 127;

int64_t binOf(double x, int exponent) {
    const double scaled = std::floor(std::ldexp(x, -exponent));
    return static_cast<int64_t>(std::clamp(scaled, -0x1p62, 0x1p62));
}

int64_t coarser(int64_t index, int shift) { return index >> std::min(shift, 63); }  // floor(index / 2^shift)

}  // namespace

StreamingHistogram::StreamingHistogram(size_t bins, bool absolute) : bins_(bins), absolute_(absolute) {
    if (bins < 2) failInput("a histogram needs at least two bins");
}

int StreamingHistogram::exponentFor(int from, double lo, double hi, int64_t occupiedLo, int64_t occupiedHi,
                                    int occupiedExponent) const {
    for (int e = std::max(from, kMinExponent); e < kMaxExponent; ++e) {
        int64_t a = binOf(lo, e), b = binOf(hi, e);
        if (started_) {
            a = std::min(a, coarser(occupiedLo, e - occupiedExponent));
            b = std::max(b, coarser(occupiedHi, e - occupiedExponent));
        }
        if (b - a + 1 <= static_cast<int64_t>(bins_)) return e;
    }
    return kMaxExponent;
}

void StreamingHistogram::start(double lo, double hi) {
    // A first guess just below the width that fits, then the exact search.
    const int guess = hi > lo ? static_cast<int>(std::floor(std::log2((hi - lo) / static_cast<double>(bins_)))) - 1
                              : kMinExponent;
    exponent_ = exponentFor(guess, lo, hi, 0, 0, 0);
    occupiedLo_ = binOf(lo, exponent_);
    occupiedHi_ = binOf(hi, exponent_);
    first_ = occupiedLo_;
    counts_.assign(bins_, 0);
    started_ = true;
}

void StreamingHistogram::coverAt(int exponent, int64_t lo, int64_t hi) {
    const int shift = exponent - exponent_;
    int64_t first = coarser(first_, shift);
    if (lo < first) first = lo;
    else if (hi >= first + static_cast<int64_t>(bins_)) first = hi - static_cast<int64_t>(bins_) + 1;
    if (shift > 0 || first != first_) {
        std::vector<uint64_t> moved(bins_, 0);
        for (size_t j = 0; j < bins_; ++j)
            if (counts_[j]) moved[static_cast<size_t>(coarser(first_ + static_cast<int64_t>(j), shift) - first)] += counts_[j];
        counts_ = std::move(moved);
    }
    exponent_ = exponent;
    first_ = first;
    occupiedLo_ = lo;
    occupiedHi_ = hi;
}

void StreamingHistogram::add(std::span<const float> values, float finiteLo, float finiteHi, bool hasNonFinite) {
    if (bins_ == 0) fail(ErrorKind::Internal, "streaming histogram used without bins");
    if (values.empty() || finiteLo > finiteHi) return;
    double lo = std::min<double>(finiteLo, 0.0), hi = std::max<double>(finiteHi, 0.0);
    if (absolute_) {
        hi = std::max(std::fabs(lo), hi);
        lo = 0.0;
    }
    if (!started_) {
        start(lo, hi);
    } else {
        const int e = exponentFor(exponent_, lo, hi, occupiedLo_, occupiedHi_, exponent_);
        coverAt(e, std::min(binOf(lo, e), coarser(occupiedLo_, e - exponent_)),
                std::max(binOf(hi, e), coarser(occupiedHi_, e - exponent_)));
    }
    // bin = floor(x / 2^e) - first: x * 2^-e is exact and the window contains every value, so the difference is
    // >= 0 and truncation is floor; the clamp only absorbs the top edge.
    const float inv = std::ldexp(1.0f, -exponent_);
    const float offset = static_cast<float>(first_);  // |first| < bins: the window contains 0
    const float top = static_cast<float>(bins_ - 1);
    auto binIndex = [&](float x) {
        const float t = (absolute_ ? std::fabs(x) : x) * inv - offset;
        return static_cast<size_t>(std::clamp(t, 0.0f, top));
    };
    if (hasNonFinite) {
        for (float x : values)
            if (std::isfinite(x)) ++counts_[binIndex(x)];
        return;
    }
    if (values.size() < 8 * bins_) {
        for (float x : values) ++counts_[binIndex(x)];
        return;
    }
    // Long runs of one bin (zeros after Relu) serialise on a single counter: spread consecutive values over four
    // lanes of 32-bit counters, then fold them in.
    thread_local std::vector<uint32_t> lanes;
    lanes.assign(4 * bins_, 0);
    const size_t n = values.size();
    const float* v = values.data();
    constexpr size_t kBlock = 256;
    alignas(16) int32_t index[kBlock];
    for (size_t i = 0; i < n; i += kBlock) {
        const size_t m = std::min(kBlock, n - i);
        binIndices(v + i, m, index, inv, offset, top);
        size_t k = 0;
        for (; k + 4 <= m; k += 4) {
            ++lanes[static_cast<size_t>(index[k])];
            ++lanes[bins_ + static_cast<size_t>(index[k + 1])];
            ++lanes[2 * bins_ + static_cast<size_t>(index[k + 2])];
            ++lanes[3 * bins_ + static_cast<size_t>(index[k + 3])];
        }
        for (; k < m; ++k) ++counts_[static_cast<size_t>(index[k])];
    }
    for (size_t j = 0; j < bins_; ++j)
        counts_[j] += uint64_t{lanes[j]} + lanes[bins_ + j] + lanes[2 * bins_ + j] + lanes[3 * bins_ + j];
}

void StreamingHistogram::binIndices(const float* v, size_t n, int32_t* index, float inv, float offset, float top) const {
    size_t k = 0;
#ifdef __SSE2__
    const __m128 vinv = _mm_set1_ps(inv), voff = _mm_set1_ps(offset), vtop = _mm_set1_ps(top), zero = _mm_setzero_ps();
    const __m128 magnitude = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    for (; k + 4 <= n; k += 4) {
        __m128 x = _mm_loadu_ps(v + k);
        if (absolute_) x = _mm_and_ps(x, magnitude);
        const __m128 t = _mm_min_ps(_mm_max_ps(_mm_sub_ps(_mm_mul_ps(x, vinv), voff), zero), vtop);
        _mm_store_si128(reinterpret_cast<__m128i*>(index + k), _mm_cvttps_epi32(t));
    }
#endif
    for (; k < n; ++k) {
        const float t = (absolute_ ? std::fabs(v[k]) : v[k]) * inv - offset;
        index[k] = static_cast<int32_t>(std::clamp(t, 0.0f, top));
    }
}

void StreamingHistogram::merge(const StreamingHistogram& other) {
    if (!other.started_) return;
    if (!started_) {
        *this = other;
        return;
    }
    if (other.bins_ != bins_ || other.absolute_ != absolute_)
        fail(ErrorKind::Internal, "streaming histograms with different bins cannot be merged");
    // Bring this one to a grid at least as coarse as the other's that holds both occupied ranges.
    int e = std::max(exponent_, other.exponent_);
    auto span = [&](int at) {
        const int64_t a = std::min(coarser(occupiedLo_, at - exponent_), coarser(other.occupiedLo_, at - other.exponent_));
        const int64_t b = std::max(coarser(occupiedHi_, at - exponent_), coarser(other.occupiedHi_, at - other.exponent_));
        return std::pair{a, b};
    };
    while (span(e).second - span(e).first + 1 > static_cast<int64_t>(bins_)) ++e;
    const auto [lo, hi] = span(e);
    coverAt(e, lo, hi);
    const int shift = e - other.exponent_;
    for (size_t j = 0; j < bins_; ++j)
        if (other.counts_[j])
            counts_[static_cast<size_t>(coarser(other.first_ + static_cast<int64_t>(j), shift) - first_)] +=
                other.counts_[j];
}

Histogram StreamingHistogram::histogram() const {
    Histogram h;
    h.absolute = absolute_;
    if (!started_) {
        h.lo = 0.0f;
        h.hi = 1e-12f;
        h.counts.assign(1, 0.0);
        return h;
    }
    // The occupied range was widened to cover the values and 0, so trimming to it loses nothing.
    const float width = std::ldexp(1.0f, exponent_);
    h.lo = static_cast<float>(occupiedLo_) * width;
    h.hi = static_cast<float>(occupiedHi_ + 1) * width;
    for (int64_t k = occupiedLo_; k <= occupiedHi_; ++k) h.counts.push_back(static_cast<double>(counts_[static_cast<size_t>(k - first_)]));
    return h;
}

namespace {

// Tensors up to kDenseElements are binned whole; larger ones give about kSampleElements per sample. Sampling what
// BlazeFace and PP-OCRv4 rec have (98K-230K elements) moved their MMSE ranges by chance: BlazeFace's mean int8 gap
// over four calibration draws went from 0.875 points (all elements) to 1.125.
constexpr size_t kDenseElements = size_t{1} << 18, kSampleElements = size_t{1} << 16;
constexpr size_t kLine = 16;  // floats per 64-byte cache line

size_t sampleStride(size_t n) { return n <= kDenseElements ? 1 : std::max<size_t>(3, (n / kSampleElements) | 1); }
/// Elements after which the sampling pattern repeats.
size_t samplePeriod(size_t stride) { return stride < kLine ? stride : kLine * stride; }
/// Which of the `stride` candidates of sampling window `window` is taken: a fixed hash of the window's index, so the
/// sample is the same every run but forms no lattice. A lattice lined up with a blocked layout's channel lanes (a
/// backend's nChw16c, seen in place): every third element of PP-OCRv4 rec's [1,240,12,80] values took each channel
/// at a diagonal third of the pixels only, and MMSE clipped one at 0.73 where all elements give 2.71.
size_t pickInWindow(size_t window, size_t stride) {
    const uint64_t h = ((static_cast<uint64_t>(window) + 1) * 0x9E3779B97F4A7C15ull) >> 32;
    return static_cast<size_t>((h * stride) >> 32);  // h / 2^32 * stride, without a division per element
}

/// Appends the sampled elements of v[begin, end) of an n-element tensor; `begin` is a multiple of the period.
void appendSample(const float* v, size_t begin, size_t end, size_t n, size_t stride, std::vector<float>& out) {
    if (stride == 1) {
        out.insert(out.end(), v + begin, v + end);
    } else if (stride < kLine) {  // one element per window of `stride`: every cache line is read anyway
        const size_t first = out.size();
        out.resize(first + (end - begin + stride - 1) / stride);
        float* o = out.data() + first;
        size_t taken = 0;
        for (size_t w = begin, k = begin / stride; w < end; w += stride, ++k)
            if (const size_t i = w + pickInWindow(k, stride); i < end) o[taken++] = v[i];
        out.resize(first + taken);
    } else {  // one cache line's run of 16 elements per window of `stride` runs: the other lines are not read
        const size_t window = kLine * stride;
        for (size_t w = begin, k = begin / window; w < end; w += window, ++k) {
            const size_t i = w + kLine * pickInWindow(k, stride);
            if (i < end && i + kLine <= n) out.insert(out.end(), v + i, v + i + kLine);
        }
    }
}

}  // namespace

std::span<const float> ValueStats::histogramSample(std::span<const float> values, std::vector<float>& buffer) {
    const size_t stride = sampleStride(values.size());
    if (stride == 1) return values;
    buffer.clear();
    appendSample(values.data(), 0, values.size(), values.size(), stride, buffer);
    return buffer;
}

FiniteRange ValueStats::add(std::span<const float> values, std::vector<float>* sample) {
    if (sample) sample->clear();
    if (!withHistogram) {
        const FiniteRange r = finiteRange(values);
        range.add(r);
        return r;
    }
    thread_local std::vector<float> buffer;
    std::vector<float>& picked = sample ? *sample : buffer;
    picked.clear();
    // One read of the data: the min/max and the sample of each L1-sized chunk together.
    const size_t n = values.size(), stride = sampleStride(n), period = samplePeriod(stride);
    const size_t chunk = period * std::max<size_t>(1, 8192 / period);
    FiniteRange r;
    r.lo = std::numeric_limits<float>::infinity();
    r.hi = -r.lo;
    for (size_t begin = 0; begin < n; begin += chunk) {
        const size_t end = std::min(n, begin + chunk);
        const FiniteRange c = finiteRange(values.subspan(begin, end - begin));
        r.nonFinite = r.nonFinite || c.nonFinite;
        if (c.any) {
            r.any = true;
            r.lo = std::min(r.lo, c.lo);
            r.hi = std::max(r.hi, c.hi);
        }
        if (stride > 1) appendSample(values.data(), begin, end, n, stride, picked);
    }
    if (!r.any) r.lo = r.hi = 0.0f;
    range.add(r);
    if (stride == 1 && sample) sample->assign(values.begin(), values.end());
    if (r.any) histogram.add(stride == 1 ? values : std::span<const float>(picked), r.lo, r.hi, r.nonFinite);
    return r;
}

void ValueStats::add(const FiniteRange& r, std::span<const float> histogramValues) {
    range.add(r);
    if (withHistogram && r.any) histogram.add(histogramValues, r.lo, r.hi, r.nonFinite);
}

void ValueStats::merge(const ValueStats& other) {
    range.merge(other.range);
    if (withHistogram) histogram.merge(other.histogram);
}

}  // namespace npuwb::quant
