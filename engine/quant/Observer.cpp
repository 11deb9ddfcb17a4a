#include "quant/Observer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "npuwb/Error.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace npuwb::quant {

FiniteRange finiteRange(std::span<const float> values) {
    constexpr float inf = std::numeric_limits<float>::infinity();
    float lo = inf, hi = -inf;
    bool nan = false;
    size_t i = 0;
#ifdef __SSE2__
    // minps / maxps return the second operand when the first is NaN: NaN never enters the running range.
    // Four independent accumulators: one chain of dependent min/max ops waits out their latency on every step.
    __m128 vlo[4], vhi[4], vnan[4];
    for (int k = 0; k < 4; ++k) {
        vlo[k] = _mm_set1_ps(inf);
        vhi[k] = _mm_set1_ps(-inf);
        vnan[k] = _mm_setzero_ps();
    }
    for (; i + 16 <= values.size(); i += 16)
        for (int k = 0; k < 4; ++k) {
            const __m128 x = _mm_loadu_ps(values.data() + i + 4 * k);
            vlo[k] = _mm_min_ps(x, vlo[k]);
            vhi[k] = _mm_max_ps(x, vhi[k]);
            vnan[k] = _mm_or_ps(vnan[k], _mm_cmpunord_ps(x, x));
        }
    for (int k = 1; k < 4; ++k) {
        vlo[0] = _mm_min_ps(vlo[k], vlo[0]);
        vhi[0] = _mm_max_ps(vhi[k], vhi[0]);
        vnan[0] = _mm_or_ps(vnan[k], vnan[0]);
    }
    for (; i + 4 <= values.size(); i += 4) {
        const __m128 x = _mm_loadu_ps(values.data() + i);
        vlo[0] = _mm_min_ps(x, vlo[0]);
        vhi[0] = _mm_max_ps(x, vhi[0]);
        vnan[0] = _mm_or_ps(vnan[0], _mm_cmpunord_ps(x, x));
    }
    alignas(16) float l[4], h[4];
    _mm_store_ps(l, vlo[0]);
    _mm_store_ps(h, vhi[0]);
    for (int k = 0; k < 4; ++k) {
        lo = std::min(lo, l[k]);
        hi = std::max(hi, h[k]);
    }
    nan = _mm_movemask_ps(vnan[0]) != 0;
#endif
    for (; i < values.size(); ++i) {
        const float x = values[i];
        if (x != x) nan = true;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    FiniteRange r;
    r.nonFinite = nan || lo == -inf || hi == inf;
    if (lo == -inf || hi == inf) {  // rare: recompute without the infinities
        lo = inf;
        hi = -inf;
        for (float x : values)
            if (std::isfinite(x)) {
                lo = std::min(lo, x);
                hi = std::max(hi, x);
            }
    }
    r.any = lo <= hi;
    r.lo = r.any ? lo : 0.0f;
    r.hi = r.any ? hi : 0.0f;
    return r;
}

void MinMax::add(std::span<const float> values) { add(finiteRange(values)); }

void MinMax::add(const FiniteRange& r) {
    if (!r.any) return;  // nothing finite
    if (!seen) {
        min = r.lo;
        max = r.hi;
        seen = true;
    } else {
        min = std::min(min, r.lo);
        max = std::max(max, r.hi);
    }
}

void MinMax::merge(const MinMax& other) {
    if (!other.seen) return;
    if (!seen) {
        *this = other;
        return;
    }
    min = std::min(min, other.min);
    max = std::max(max, other.max);
}

float MinMax::absMax() const { return std::max(std::fabs(min), std::fabs(max)); }

Histogram::Histogram(float lo_, float hi_, size_t bins, bool absolute_)
    : lo(lo_), hi(hi_), counts(bins, 0.0), absolute(absolute_) {
    if (bins == 0) failInput("histogram needs at least one bin");
    if (!(hi > lo)) hi = lo + 1e-12f;  // a constant value: one non-empty bin
}

void Histogram::add(std::span<const float> values) {
    const double scale = static_cast<double>(counts.size()) / (static_cast<double>(hi) - static_cast<double>(lo));
    const int64_t last = static_cast<int64_t>(counts.size()) - 1;
    for (float v : values) {
        if (!std::isfinite(v)) continue;
        const double x = absolute ? std::fabs(static_cast<double>(v)) : static_cast<double>(v);
        const int64_t bin = std::clamp(static_cast<int64_t>((x - lo) * scale), int64_t{0}, last);
        counts[static_cast<size_t>(bin)] += 1.0;
    }
}

void Histogram::merge(const Histogram& other) {
    if (other.counts.empty()) return;
    if (counts.empty()) {
        *this = other;
        return;
    }
    if (other.counts.size() != counts.size() || other.lo != lo || other.hi != hi)
        fail(ErrorKind::Internal, "histograms with different bins cannot be merged");
    for (size_t i = 0; i < counts.size(); ++i) counts[i] += other.counts[i];
}

double Histogram::total() const {
    double t = 0;
    for (double c : counts) t += c;
    return t;
}

float klThreshold(const Histogram& h, int levels) {
    // For each candidate threshold i (bins kept), TensorRT's reference P is the first i bins with the clipped mass
    // added to the last, and Q merges the same i bins into nq levels spread evenly over each level's non-empty bins.
    // KL(P || Q) = sum_k p_k/ps * (log p_k - log q_k) + log(qs / ps), with ps = total and qs = sum of the first i
    // counts; q_k is constant within a level, so prefix sums of counts, of non-empty bins and of c*log(c) give every
    // candidate in O(nq) instead of O(bins) (the direct form cost seconds per model with 2048 bins).
    //
    // The bin at 0 is excluded from the search the way pytorch-quantization's entropy calibrator does it (its count
    // replaced by its neighbour's): 0 is exact on every grid here, yet after a Relu it holds half the values, and
    // that spike made the search prefer thresholds whose first level is that bin alone (T = 255 bins, 383, ...),
    // clipping Relu outputs to a quarter of their range (BlazeFace: 99.5% -> 50% accuracy).
    const size_t bins = h.counts.size();
    const size_t nq = static_cast<size_t>(std::max(levels, 1));
    if (bins <= nq) return h.hi;
    std::vector<double> counts = h.counts;
    counts[0] = counts[1];
    std::vector<double> count(bins + 1, 0.0), nonEmpty(bins + 1, 0.0), cLogC(bins + 1, 0.0);
    for (size_t k = 0; k < bins; ++k) {
        const double c = counts[k];
        count[k + 1] = count[k] + c;
        nonEmpty[k + 1] = nonEmpty[k] + (c > 0 ? 1.0 : 0.0);
        cLogC[k + 1] = cLogC[k] + (c > 0 ? c * std::log(c) : 0.0);
    }
    const double total = count[bins];
    if (total <= 0) return h.hi;
    const double logTotal = std::log(total);
    double best = std::numeric_limits<double>::infinity();
    size_t bestI = bins;
    for (size_t i = nq; i <= bins; ++i) {
        if (counts[i - 1] == 0 && i < bins) continue;  // TensorRT skips thresholds on empty bins
        const double qs = count[i];
        if (qs <= 0) continue;
        const double clipped = total - count[i];  // lands in P's last bin
        const double last = counts[i - 1] + clipped;
        double pLogP = cLogC[i - 1] + (last > 0 ? last * std::log(last) : 0.0);
        double pLogQ = 0;
        double lastLogQ = 0;
        for (size_t level = 0; level < nq; ++level) {
            const size_t start = level * i / nq, stop = (level + 1) * i / nq;
            const double ne = nonEmpty[stop] - nonEmpty[start];
            if (ne == 0) continue;
            const double sum = count[stop] - count[start];
            const double logQ = std::log(sum / ne);
            pLogQ += sum * logQ;  // the level's counts, each at log q of the level
            if (stop == i) lastLogQ = logQ;
        }
        pLogQ += clipped * lastLogQ;  // the clipped mass sits in the last bin (non-empty, so in a level)
        const double kl = (pLogP - pLogQ) / total - logTotal + std::log(qs);
        if (kl < best) {
            best = kl;
            bestI = i;
        }
    }
    return h.lo + static_cast<float>(bestI) * h.binWidth();  // upper edge of the last kept bin
}

ClipRange mmseRange(const Histogram& h, int levels) {
    const size_t bins = h.counts.size();
    const double width = static_cast<double>(h.binWidth());
    double bestErr = std::numeric_limits<double>::infinity();
    ClipRange best{std::min(h.lo, 0.0f), std::max(h.hi, 0.0f)};
    const double lo0 = std::min(0.0, static_cast<double>(h.lo)), hi0 = std::max(0.0, static_cast<double>(h.hi));
    // Shrink each end independently over a grid of fractions of the observed range.
    constexpr int kSteps = 40;
    for (int a = 0; a <= kSteps; ++a) {
        const double lo = lo0 * (1.0 - 0.8 * a / kSteps);
        for (int b = 0; b <= kSteps; ++b) {
            const double hi = hi0 * (1.0 - 0.8 * b / kSteps);
            if (hi - lo <= 0) continue;
            const double step = (hi - lo) / (levels - 1);
            double err = 0;
            for (size_t k = 0; k < bins; ++k) {
                if (h.counts[k] == 0) continue;
                const double c = h.lo + (static_cast<double>(k) + 0.5) * width;
                double e;
                if (c < lo) e = (lo - c) * (lo - c);
                else if (c > hi) e = (c - hi) * (c - hi);
                else e = step * step / 12.0;  // uniform rounding error inside the grid
                err += h.counts[k] * e;
            }
            if (err < bestErr) {
                bestErr = err;
                best = {static_cast<float>(lo), static_cast<float>(hi)};
            }
        }
    }
    return best;
}

ClipRange percentileRange(const Histogram& h, double percentile) {
    if (!(percentile > 50.0 && percentile <= 100.0)) failInput("percentile must be in (50, 100]");
    const double total = h.total();
    if (total <= 0) return {std::min(0.0f, h.lo), std::max(0.0f, h.hi)};
    const double tail = total * (100.0 - percentile) / 100.0;
    const size_t bins = h.counts.size();
    const float width = h.binWidth();
    // Low end: smallest bin edge with more than `tail` elements below it; high end symmetrically.
    size_t lowBin = 0;
    double below = 0;
    while (lowBin < bins && below + h.counts[lowBin] <= tail) below += h.counts[lowBin++];
    size_t highBin = bins;
    double above = 0;
    while (highBin > 0 && above + h.counts[highBin - 1] <= tail) above += h.counts[--highBin];
    float lo = h.lo + static_cast<float>(lowBin) * width;
    float hi = h.lo + static_cast<float>(highBin) * width;
    if (h.lo >= 0.0f) lo = 0.0f;  // non-negative data (after Relu): keep 0 as the low end
    if (hi < lo) hi = lo;
    return {std::min(lo, 0.0f), std::max(hi, 0.0f)};
}

QuantParams asymmetricParams(float min, float max, DType qtype) {
    int32_t qmin = 0, qmax = 255;
    if (qtype == DType::I8) { qmin = -128; qmax = 127; }
    else if (qtype == DType::I16) { qmin = -32768; qmax = 32767; }
    else if (qtype != DType::U8) failUnsupported("activation type " + std::string(dtypeName(qtype)) + " is not supported");
    min = std::min(min, 0.0f);
    max = std::max(max, 0.0f);
    QuantParams q;
    q.scale = (max - min) / static_cast<float>(qmax - qmin);
    if (!(q.scale > 0.0f) || !std::isfinite(q.scale)) {
        q.scale = 1.0f;  // a constant-zero tensor: any scale represents it exactly
        q.zeroPoint = qtype == DType::U8 ? 0 : 0;
        return q;
    }
    const double zp = std::nearbyint(static_cast<double>(qmin) - static_cast<double>(min) / q.scale);
    q.zeroPoint = static_cast<int32_t>(std::clamp(zp, static_cast<double>(qmin), static_cast<double>(qmax)));
    return q;
}

QuantParams symmetricParams(float absMax, int qmax) {
    QuantParams q;
    q.scale = absMax / static_cast<float>(qmax);
    if (!(q.scale > 0.0f) || !std::isfinite(q.scale)) q.scale = 1.0f;
    return q;
}

int32_t quantizeValue(float x, const QuantParams& q, int32_t qmin, int32_t qmax) {
    const double r = std::nearbyint(static_cast<double>(x / q.scale)) + q.zeroPoint;  // default FE: half to even
    if (!(r >= qmin)) return qmin;
    return static_cast<int32_t>(std::min(r, static_cast<double>(qmax)));
}

}  // namespace npuwb::quant
