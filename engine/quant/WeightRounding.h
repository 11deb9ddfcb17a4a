#pragma once
// Error-feedback weight rounding (GPTQ: Frantar et al. 2022, after Optimal Brain Quantization). Rounding each
// weight to the nearest grid point ignores that a layer's inputs are correlated: with smooth image input, a 5x5
// filter's 25 rounding errors add up in its DC gain. GPTQ rounds one weight of a row at a time and spreads its
// error over the row's not yet rounded weights through the inverse input correlation H^-1 (H = E[x x^T] over the
// layer's input patches), which minimises E[(dW x)^2] instead of |dW|^2.
//
//   nearest: q_k = round(w_k / s_k)
//   gptq:    q_k = round(w_k / s_k); w_j -= (w_k - q_k s_k) * U_kj / U_kk  for j > k   (H^-1 = U^T U)
//
// Weights are taken in order of decreasing input energy (H_kk, GPTQ's "act-order"): the taps that matter most are
// rounded first, while the most weights remain to absorb their error.
// The export is the same standard QDQ graph; only integer weights (and, for int4, group scales) change. int8 scales
// stay max-abs; an int4 group's scale clips where the squared rounding error is least (leastSquaresAbsMax): with 16
// levels one outlier otherwise coarsens the whole group (PP-OCRv4 rec w4a16: 74 -> 84 of 100 lines).
// H comes from the float model on calibration samples (Conv with explicit pads, Gemm, MatMul with 2-D weights).
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "npuwb/ir/Graph.h"
#include "npuwb/Quantizer.h"
#include "npuwb/SampleSource.h"

namespace npuwb::quant {

/// E[x x^T] of one weighted layer's input patches, one K x K matrix per weight group (Conv groups; 1 otherwise).
/// Row r of the weight viewed as [rows, K] (Conv: [Cout, Cin/group*kh*kw]; Gemm/MatMul: output-major) uses
/// matrix r / (rows / groups).
struct InputCorrelation {
    int64_t k = 0;
    int64_t groups = 1;
    std::vector<double> h;  // groups * k * k, row-major
    double patches = 0.0;   // patch vectors accumulated (per group)
};

struct CorrelationOptions {
    size_t samples = kDefaultRoundingSamples;
    int64_t maxK = 4096;               // larger layers keep nearest rounding (H is K x K doubles)
    size_t maxBytes = size_t{768} << 20;  // all layers' H together; layers past it keep nearest rounding
    size_t positionsPerSample = 2048;  // output positions sampled per layer and sample
    ExecutorOptions executor;
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(size_t done, size_t total)> progress;
};

/// Runs the float model on the first samples and accumulates H for every Conv / Gemm / MatMul with a constant
/// weight it can read patches for.
InputCorrelations collectInputCorrelations(const Model& floatModel, const SampleSource& samples,
                                           const CorrelationOptions& options);

/// The clipping bound (at most max |v|) whose symmetric grid of 2*qmax+1 levels has the least squared rounding
/// error over the values: ratios 1.0, 0.98, ..., 0.6 of max |v| are tried.
float leastSquaresAbsMax(const float* values, int64_t count, int qmax);

/// Rounds rows of a weight ([rows, K], row-major) to integers in [qmin, qmax] with error feedback.
/// scaleOf(row, k) is the grid step of element k of `row`. Rows without usable H (singular after damping) fall
/// back to nearest rounding. Returns the integers, row-major.
std::vector<int8_t> roundWithFeedback(const float* weight, int64_t rows, int64_t k,
                                      const std::function<float(int64_t row, int64_t k)>& scaleOf, int qmin,
                                      int qmax, const InputCorrelation& h);

}  // namespace npuwb::quant
